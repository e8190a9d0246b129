// `kubectl pacer rollout undo NAME [--to-revision=N] [--dry-run]`: kubectl's client-side undo.
// The target ReplicaSet's template (without its hash label) and the rollback annotations go into
// the Deployment with one JSON patch whose first op tests the resourceVersion the decision was
// made on, so a concurrent change fails with a conflict instead of being overwritten.

import { HttpMethod, resourcePath } from '../kube/client.ts';
import type { Deployment, ReplicaSet } from '../api/types.ts';
import {
  findRollbackTarget,
  LAST_APPLIED_CONFIG_ANNOTATION,
  ROLLBACK_MESSAGES,
  annotationsInUpstreamKeys,
  inPacerKeys,
  rollbackAnnotations,
  runsTemplateOf,
  templateWithoutHash,
} from '../engine/index.ts';
import { PluginError } from './errors.ts';
import { untilNotStale } from './stale.ts';
import { describeTemplate, ownedReplicaSets } from './history.ts';
import type { Session } from './options.ts';
import { PACER_KIND, kindOf, replicaSetInPacerKeys } from './target.ts';
import type { DeploymentKind } from './target.ts';

/** kubectl's words with the kind's resource name (`deployment.pacer.dev/web rolled back`). */
const ours = (s: string, k: DeploymentKind): string => s.replace('deployment.apps/', k.prefix);

export const UNDO_MESSAGES = {
  rolledBack: (name: string, k: DeploymentKind = PACER_KIND) => ours(ROLLBACK_MESSAGES.rolledBack(name), k),
  skipped: (name: string, n: number, k: DeploymentKind = PACER_KIND) => ours(ROLLBACK_MESSAGES.skipped(name, n), k),
  lastAppliedWarning: (name: string, k: DeploymentKind = PACER_KIND) =>
    ROLLBACK_MESSAGES.lastAppliedWarning(`${k.resource}/${name}`),
} as const;

export type JsonPatchOp = { op: 'test' | 'replace' | 'add'; path: string; value: unknown };

export type UndoPlan =
  | { kind: 'skip'; message: string; target: ReplicaSet }
  | { kind: 'patch'; patch: JsonPatchOp[]; target: ReplicaSet; warning?: string };

/**
 * What `rollout undo` does to `d` given its ReplicaSets; throws kubectl's errors. An apps/v1
 * Deployment's objects are read in Pacer's keys and its annotations written back in upstream's. Pure.
 */
export function planUndo(stored: Deployment, rss: readonly ReplicaSet[], toRevision = 0): UndoPlan {
  const k = kindOf(stored);
  const d = k.native ? inPacerKeys(stored) : stored;
  const name = d.metadata.name ?? '';
  const target = findRollbackTarget(name, rss.map(replicaSetInPacerKeys), toRevision);
  if (d.spec.paused) throw new PluginError(ROLLBACK_MESSAGES.paused);
  if (runsTemplateOf(d, target)) return { kind: 'skip', message: UNDO_MESSAGES.skipped(name, toRevision, k), target };
  const computed = rollbackAnnotations(d.metadata.annotations, target.metadata.annotations);
  const annotations = k.native ? annotationsInUpstreamKeys(computed) : computed;
  const patch: JsonPatchOp[] = [
    { op: 'test', path: '/metadata/resourceVersion', value: d.metadata.resourceVersion },
    { op: 'replace', path: '/spec/template', value: templateWithoutHash(target.spec.template) },
    // `replace` needs the member to exist; `add` sets it either way.
    { op: d.metadata.annotations ? 'replace' : 'add', path: '/metadata/annotations', value: annotations },
  ];
  const warning =
    d.metadata.annotations?.[LAST_APPLIED_CONFIG_ANNOTATION] !== undefined
      ? UNDO_MESSAGES.lastAppliedWarning(name, k)
      : undefined;
  return { kind: 'patch', patch, target, ...(warning ? { warning } : {}) };
}

export type DryRun = 'none' | 'client' | 'server';

/** --dry-run's value as kubectl reads it (a bare --dry-run is "client"). */
export function parseDryRun(v: string | boolean | undefined): DryRun {
  if (v === undefined || v === false || v === 'none' || v === 'false') return 'none';
  if (v === true || v === 'client' || v === 'true') return 'client';
  if (v === 'server') return 'server';
  throw new PluginError(`Invalid dry-run value (${String(v)}). Must be "none", "server", or "client".`);
}

/**
 * Reads Deployment `name`, plans with `plan`, and sends the plan's patch. The patch tests the
 * resourceVersion it was planned on, and the controller writes the Deployment all the time (its
 * status bumps the resourceVersion too): a patch that lost such a race is planned again from a
 * fresh read (untilNotStale). Returns the plan that was carried out (or skipped).
 */
export async function patchAsPlanned(
  s: Session,
  name: string,
  plan: (d: Deployment) => Promise<UndoPlan>,
  query = '',
): Promise<UndoPlan> {
  return untilNotStale(async () => {
    const p = await plan(await s.client.getDeployment(s.namespace, name));
    if (p.kind === 'skip') return p;
    await s.client.request<Deployment>(
      HttpMethod.PATCH,
      resourcePath((s.kind ?? PACER_KIND).type, s.namespace, name) + query,
      {
        body: p.patch,
        contentType: 'application/json-patch+json',
        what: `patch ${(s.kind ?? PACER_KIND).resource} ${name}`,
      },
    );
    return p;
  });
}

export async function runRolloutUndo(
  s: Session,
  name: string,
  o: { toRevision: number; dryRun: DryRun },
): Promise<number> {
  if (o.dryRun === 'client') {
    const d = await s.client.getDeployment(s.namespace, name);
    const plan = planUndo(d, await ownedReplicaSets(s, d), o.toRevision);
    if (plan.kind === 'skip') {
      s.io.stdout.write(`${plan.message}\n`);
      return 0;
    }
    s.io.stdout.write(describeTemplate(templateWithoutHash(plan.target.spec.template)));
    s.io.stdout.write(`${UNDO_MESSAGES.rolledBack(name, s.kind)} (dry run)\n`);
    return 0;
  }
  let warned = false;
  const done = await patchAsPlanned(
    s,
    name,
    async (d) => {
      const plan = planUndo(d, await ownedReplicaSets(s, d), o.toRevision);
      if (plan.kind === 'patch' && plan.warning && !warned) {
        s.io.stderr.write(`${plan.warning}\n`);
        warned = true;
      }
      return plan;
    },
    o.dryRun === 'server' ? '?dryRun=All' : '',
  );
  if (done.kind === 'skip') {
    s.io.stdout.write(`${done.message}\n`);
    return 0;
  }
  s.io.stdout.write(`${UNDO_MESSAGES.rolledBack(name, s.kind)}${o.dryRun === 'server' ? ' (server dry run)' : ''}\n`);
  return 0;
}
