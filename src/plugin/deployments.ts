// `kubectl pacer deployments` and `kubectl pacer deployment cancel ID [--force]`: Marathon's active
// deployments, the deployment plans of src/engine/marathon/deploymentplans.ts, computed from the Deployments the
// plugin lists from the API server — the same pure view the controller serves on GET /v2/deployments.
//
// `deployment cancel ID [--force]` is Marathon's DELETE /v2/deployments/{id} (?force=true: only
// stop), carried out on the server side (src/engine/marathon/cancel.ts): the plugin writes one request, the
// annotation `pacer.dev/cancel-request: "<rollback|stop>:<id>"`, on the first live app of the plan
// in cancel order, and the controller stamps the others and cancels each app, recording one Event
// per app. The plugin then reads those Events (unless --wait=false) and prints each app's outcome
// in cancel order: a Normal one on stdout, a Warning on stderr (exit 1). An interrupted client
// leaves either no request or the whole request: nothing is half-cancelled.

import type { Deployment } from '../api/types.ts';
import { API_VERSION, KIND } from '../api/types.ts';
import { DEPLOYMENTS, EVENTS } from '../kube/client.ts';
import {
  activePlans,
  CANCEL_REASON,
  CANCEL_REFUSED,
  CANCEL_REQUEST_ANNOTATION,
  cancelMessagePrefix,
  cancelOrder,
  formatCancel,
  planById,
  unknownPlanMessage,
} from '../engine/index.ts';
import type { DeploymentPlan } from '../engine/index.ts';
import { OBJECT_PREFIX, PluginError } from './errors.ts';
import { sleep } from './watch.ts';
import { tabwrite } from './format.ts';
import type { Session } from './options.ts';
import { printData } from './options.ts';

/** The table people read: one line per deployment plan. */
export function plansTable(active: readonly DeploymentPlan[]): string {
  const lines = [['ID', 'AFFECTED APPS', 'STEP', 'CURRENT ACTIONS'].join('\t')];
  for (const p of active) {
    lines.push(
      [
        p.id,
        p.affectedApps.join(','),
        `${p.currentStep}/${p.totalSteps}`,
        p.currentActions.map((a) => `${a.action} ${a.app}`).join(', '),
      ].join('\t'),
    );
  }
  return tabwrite(`${lines.join('\n')}\n`, { minwidth: 6, padding: 3 });
}

async function listActive(
  s: Session,
  allNamespaces: boolean,
): Promise<{ items: Deployment[]; active: DeploymentPlan[] }> {
  const list = await s.client.list<Deployment>(DEPLOYMENTS, allNamespaces ? undefined : s.namespace);
  return { items: list.items, active: activePlans(list.items, Date.now()) };
}

export async function runPlanList(s: Session, o: { allNamespaces: boolean; output?: string }): Promise<number> {
  const { active } = await listActive(s, o.allNamespaces);
  if (o.output) {
    printData(s.io, o.output, active);
    return 0;
  }
  if (active.length === 0) {
    s.io.stderr.write(
      o.allNamespaces ? 'No active deployments found\n' : `No active deployments found in ${s.namespace} namespace.\n`,
    );
    return 0;
  }
  s.io.stdout.write(plansTable(active));
  return 0;
}

export interface CancelOptions {
  /** Only stop the plan: every app paused where it stands (Marathon's ?force=true). */
  force: boolean;
  allNamespaces: boolean;
  /** Wait for the controller to carry it out and print each app's outcome. */
  wait: boolean;
  /** With wait: give up after this long (0: never). */
  timeoutMs: number;
  /** Between two looks at the Events (tests shorten it). */
  pollMs?: number;
}

/** The fields of a core/v1 Event the plugin reads. */
interface KubeEvent {
  type?: string;
  reason?: string;
  message?: string;
  lastTimestamp?: string;
  eventTime?: string;
  involvedObject?: { name?: string; namespace?: string };
}

/** One app's outcome, from its DeploymentPlanCancelled or DeploymentPlanCancelFailed Event. */
interface Outcome {
  warning: boolean;
  /** The message after "Deployment plan <id>: ". */
  text: string;
}

/** The newest cancel Event of deployment plan `id` on each app of `apps` (by "namespace/name"). */
async function outcomes(s: Session, id: string, apps: readonly Deployment[]): Promise<Map<string, Outcome>> {
  const prefix = cancelMessagePrefix(id);
  const out = new Map<string, Outcome & { at: string }>();
  // Only Pacer's Deployments' Events; the reason is checked here (a field selector cannot OR two).
  const fieldSelector = `involvedObject.kind=${KIND},involvedObject.apiVersion=${API_VERSION}`;
  for (const ns of new Set(apps.map((d) => d.metadata.namespace ?? 'default'))) {
    const events = await s.client.list<KubeEvent>(EVENTS, ns, { fieldSelector });
    for (const e of events.items) {
      // The carrier's DeploymentPlanCancelling says only that the fan-out is done: not an outcome.
      if (e.reason !== CANCEL_REASON.cancelled && e.reason !== CANCEL_REASON.failed) continue;
      if (!e.message?.startsWith(prefix)) continue;
      const key = `${e.involvedObject?.namespace ?? ns}/${e.involvedObject?.name ?? ''}`;
      const at = e.lastTimestamp ?? e.eventTime ?? '';
      const seen = out.get(key);
      if (!seen || seen.at <= at)
        out.set(key, { warning: e.type === 'Warning', text: e.message.slice(prefix.length), at });
    }
  }
  return out;
}

/**
 * cancel (module header): one merge patch puts the request on one app of the plan (the first in
 * cancel order); with wait, the Events of every app are read until each has its outcome, which is
 * printed in that order (a failure on stderr, exit 1).
 */
export async function runPlanCancel(s: Session, id: string, o: CancelOptions): Promise<number> {
  const { items, active } = await listActive(s, o.allNamespaces);
  const plan = planById(active, id);
  if (!plan) throw new PluginError(unknownPlanMessage(id));
  const apps = cancelOrder(items, plan);
  if (apps.length === 0)
    throw new PluginError(`DeploymentPlan ${id} has no app left to cancel: every one is being deleted`);
  const carrier = apps[0];
  const carrierName = carrier.metadata.name ?? '';
  const value = formatCancel({ mode: o.force ? 'stop' : 'rollback', id });
  await s.client.patchDeployment(carrier.metadata.namespace ?? 'default', carrierName, {
    metadata: { annotations: { [CANCEL_REQUEST_ANNOTATION]: value } },
  });
  if (!o.wait) {
    s.io.stdout.write(`${OBJECT_PREFIX}${carrierName} annotated ${CANCEL_REQUEST_ANNOTATION}=${value}\n`);
    return 0;
  }
  const keyOf = (d: Deployment) => `${d.metadata.namespace ?? 'default'}/${d.metadata.name ?? ''}`;
  const deadline = o.timeoutMs > 0 ? Date.now() + o.timeoutMs : Number.POSITIVE_INFINITY;
  let found = new Map<string, Outcome>();
  for (;;) {
    found = await outcomes(s, id, apps);
    const carrierOutcome = found.get(keyOf(carrier));
    const refused = carrierOutcome?.warning === true && carrierOutcome.text.startsWith(CANCEL_REFUSED);
    if (refused || apps.every((d) => found.has(keyOf(d))) || Date.now() >= deadline || s.signal?.aborted) break;
    await sleep(o.pollMs ?? 250, s.signal);
  }
  let code = 0;
  for (const d of apps) {
    const got = found.get(keyOf(d));
    if (!got) continue;
    if (got.warning) {
      s.io.stderr.write(`error: ${OBJECT_PREFIX}${d.metadata.name ?? ''}: ${got.text}\n`);
      code = 1;
    } else {
      s.io.stdout.write(`${OBJECT_PREFIX}${d.metadata.name ?? ''} ${got.text}\n`);
    }
  }
  const missing = apps.filter((d) => !found.has(keyOf(d)));
  if (code === 0 && missing.length > 0) {
    throw new PluginError(
      `timed out waiting for the cancel of deployment plan ${id} on ${missing.map((d) => OBJECT_PREFIX + (d.metadata.name ?? '')).join(', ')} (is the controller running? the request stays on ${OBJECT_PREFIX}${carrierName})`,
    );
  }
  return code;
}
