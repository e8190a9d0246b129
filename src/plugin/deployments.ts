// `kubectl pacer deployments` and `kubectl pacer deployment cancel ID --force`: Marathon's active
// deployments (src/engine/deployments.ts) computed from the Deployments the plugin lists from the
// API server — the same pure view the controller serves on GET /v2/deployments.
//
// cancel --force stops a deployment where it stands (Marathon's DELETE ?force=true): every affected
// app that is not being deleted gets spec.paused=true, one merge patch each (no resourceVersion
// guard: the controller writes status all the time, and pausing twice is harmless). cancel without
// --force is Marathon's rollback, which is not built yet: it says so and exits 1.

import type { Deployment } from '../api/types.ts';
import { DEPLOYMENTS } from '../kube/client.ts';
import { activeDeployments, deploymentById, unknownDeploymentMessage } from '../engine/deployments.ts';
import type { MarathonDeployment } from '../engine/deployments.ts';
import { OBJECT_PREFIX, PluginError } from './errors.ts';
import { tabwrite } from './format.ts';
import type { Session } from './options.ts';
import { printData } from './options.ts';

export const CANCEL_NOT_IMPLEMENTED = 'not implemented yet: use --force to stop the deployment, or kubectl pacer rollout undo per app';

export const CANCEL_MESSAGES = {
  paused: (name: string) => `${OBJECT_PREFIX}${name} paused`,
  alreadyPaused: (name: string) => `${OBJECT_PREFIX}${name} already paused`,
  deleting: (name: string) => `${OBJECT_PREFIX}${name} is being deleted: not paused`,
} as const;

/** The table people read: one line per deployment. */
export function deploymentsTable(active: readonly MarathonDeployment[]): string {
  const lines = [['ID', 'AFFECTED APPS', 'STEP', 'CURRENT ACTIONS'].join('\t')];
  for (const d of active) {
    lines.push([
      d.id,
      d.affectedApps.join(','),
      `${d.currentStep}/${d.totalSteps}`,
      d.currentActions.map((a) => `${a.action} ${a.app}`).join(', '),
    ].join('\t'));
  }
  return tabwrite(lines.join('\n') + '\n', { minwidth: 6, padding: 3 });
}

async function listActive(s: Session, allNamespaces: boolean): Promise<{ items: Deployment[]; active: MarathonDeployment[] }> {
  const list = await s.client.list<Deployment>(DEPLOYMENTS, allNamespaces ? undefined : s.namespace);
  return { items: list.items, active: activeDeployments(list.items, Date.now()) };
}

export async function runDeployments(s: Session, o: { allNamespaces: boolean; output?: string }): Promise<number> {
  const { active } = await listActive(s, o.allNamespaces);
  if (o.output) {
    printData(s.io, o.output, active);
    return 0;
  }
  if (active.length === 0) {
    s.io.stderr.write(o.allNamespaces ? 'No active deployments found\n' : `No active deployments found in ${s.namespace} namespace.\n`);
    return 0;
  }
  s.io.stdout.write(deploymentsTable(active));
  return 0;
}

export interface PauseStep {
  namespace: string;
  name: string;
  /** What happens to this app: a patch, or nothing (with the reason). */
  verb: 'pause' | 'already-paused' | 'deleting';
}

/** What cancel --force does to each app of deployment `id`, in the order shown; 404 when unknown. Pure. */
export function forceCancelPlan(items: readonly Deployment[], active: readonly MarathonDeployment[], id: string): PauseStep[] {
  const target = deploymentById(active, id);
  if (!target) throw new PluginError(unknownDeploymentMessage(id));
  const byApp = new Map(items.map((d) => [`/${d.metadata.namespace ?? 'default'}/${d.metadata.name ?? ''}`, d]));
  return target.affectedApps.flatMap((app): PauseStep[] => {
    const d = byApp.get(app);
    if (!d) return [];
    const namespace = d.metadata.namespace ?? 'default';
    const name = d.metadata.name ?? '';
    const verb = d.metadata.deletionTimestamp ? 'deleting' : d.spec.paused === true ? 'already-paused' : 'pause';
    return [{ namespace, name, verb }];
  });
}

export async function runDeploymentCancel(s: Session, id: string, o: { force: boolean; allNamespaces: boolean }): Promise<number> {
  if (!o.force) throw new PluginError(CANCEL_NOT_IMPLEMENTED);
  const { items, active } = await listActive(s, o.allNamespaces);
  for (const step of forceCancelPlan(items, active, id)) {
    if (step.verb === 'pause') {
      await s.client.patchDeployment(step.namespace, step.name, { spec: { paused: true } });
      s.io.stdout.write(CANCEL_MESSAGES.paused(step.name) + '\n');
    } else {
      s.io.stdout.write((step.verb === 'deleting' ? CANCEL_MESSAGES.deleting(step.name) : CANCEL_MESSAGES.alreadyPaused(step.name)) + '\n');
    }
  }
  return 0;
}
