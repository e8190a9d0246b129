// `kubectl pacer deployments` and `kubectl pacer deployment cancel ID --force`: Marathon's active
// deployments, the deployment plans of src/engine/plans.ts, computed from the Deployments the
// plugin lists from the API server — the same pure view the controller serves on GET /v2/deployments.
//
// cancel --force stops a deployment plan where it stands (Marathon's DELETE ?force=true): every
// affected app that is not being deleted gets spec.paused=true, one merge patch each (no resourceVersion
// guard: the controller writes status all the time, and pausing twice is harmless).
//
// cancel without --force is Marathon's rollback (DELETE /v2/deployments/{id}): every app of the
// plan goes back to the revision it had before — the newest ReplicaSet whose template is not
// the current one: the latest revision when the current template has no ReplicaSet yet (an app
// that waited on its dependencies), else the previous one, as `rollout undo` picks — in reverse
// dependency order (highest level first; apps on a cycle first of all), each with `rollout undo`'s
// patch plus `pacer.dev/force: "true"`, so that the lock admits it and the apps stop waiting on
// each other (the controller cancels the plan as a unit, src/engine/locks.ts). Each app
// prints kubectl's line (`rolled back`, or `skipped rollback ...`); an app that cannot be rolled
// back (paused, no history) is reported on stderr and the others still go (exit 1).

import type { Deployment, ReplicaSet } from '../api/types.ts';
import { DEPLOYMENTS } from '../kube/client.ts';
import { deploymentKey } from '../api/dependencies.ts';
import { activePlans, dependencyLevels, FORCE_ANNOTATION, planById, revisionOf, unknownPlanMessage } from '../engine/index.ts';
import type { DeploymentPlan } from '../engine/index.ts';
import { ownedReplicaSets } from './history.ts';
import { patchAsPlanned, planUndo } from './undo.ts';
import type { UndoPlan } from './undo.ts';
import { OBJECT_PREFIX, PluginError } from './errors.ts';
import { tabwrite } from './format.ts';
import type { Session } from './options.ts';
import { printData } from './options.ts';

export const CANCEL_MESSAGES = {
  paused: (name: string) => `${OBJECT_PREFIX}${name} paused`,
  alreadyPaused: (name: string) => `${OBJECT_PREFIX}${name} already paused`,
  deleting: (name: string) => `${OBJECT_PREFIX}${name} is being deleted: not paused`,
} as const;

/** The table people read: one line per deployment plan. */
export function plansTable(active: readonly DeploymentPlan[]): string {
  const lines = [['ID', 'AFFECTED APPS', 'STEP', 'CURRENT ACTIONS'].join('\t')];
  for (const p of active) {
    lines.push([
      p.id,
      p.affectedApps.join(','),
      `${p.currentStep}/${p.totalSteps}`,
      p.currentActions.map((a) => `${a.action} ${a.app}`).join(', '),
    ].join('\t'));
  }
  return tabwrite(lines.join('\n') + '\n', { minwidth: 6, padding: 3 });
}

async function listActive(s: Session, allNamespaces: boolean): Promise<{ items: Deployment[]; active: DeploymentPlan[] }> {
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
    s.io.stderr.write(o.allNamespaces ? 'No active deployments found\n' : `No active deployments found in ${s.namespace} namespace.\n`);
    return 0;
  }
  s.io.stdout.write(plansTable(active));
  return 0;
}

export interface PauseStep {
  namespace: string;
  name: string;
  /** What happens to this app: a patch, or nothing (with the reason). */
  verb: 'pause' | 'already-paused' | 'deleting';
}

/** What cancel --force does to each app of deployment plan `id`, in the order shown; 404 when unknown. Pure. */
export function forceCancelPlan(items: readonly Deployment[], active: readonly DeploymentPlan[], id: string): PauseStep[] {
  const target = planById(active, id);
  if (!target) throw new PluginError(unknownPlanMessage(id));
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

/**
 * The apps of deployment plan `id` in rollback order: highest dependency level first (apps on a cycle,
 * which have no level, before all), then by namespace/name; apps being deleted are left out. Pure.
 */
export function rollbackOrder(items: readonly Deployment[], active: readonly DeploymentPlan[], id: string): Deployment[] {
  const target = planById(active, id);
  if (!target) throw new PluginError(unknownPlanMessage(id));
  const live = items.filter((d) => !d.metadata.deletionTimestamp);
  const { levels } = dependencyLevels(live);
  const key = (d: Deployment) => deploymentKey(d.metadata.namespace, d.metadata.name);
  const level = (d: Deployment) => levels.get(key(d)) ?? Number.POSITIVE_INFINITY;
  return live
    .filter((d) => target.affectedApps.includes(`/${d.metadata.namespace ?? 'default'}/${d.metadata.name ?? ''}`))
    .sort((a, b) => level(b) - level(a) || key(a).localeCompare(key(b)));
}

/** The rollback of one app (module header): `rollout undo`'s plan to the revision it had before, forced. Pure. */
export function planCancelRollback(d: Deployment, rss: readonly ReplicaSet[]): UndoPlan {
  const latest = Math.max(-1, ...rss.map((rs) => revisionOf(rs) ?? -1));
  // The latest revision unless it is what runs now (then the previous one: `rollout undo`).
  let plan = latest > 0 ? planUndo(d, rss, latest) : planUndo(d, rss, 0);
  if (plan.kind === 'skip' && latest > 0) plan = planUndo(d, rss, 0);
  if (plan.kind === 'skip') return plan;
  return {
    ...plan,
    patch: plan.patch.map((op) => (op.path === '/metadata/annotations' ? { ...op, value: { ...(op.value as Record<string, string>), [FORCE_ANNOTATION]: 'true' } } : op)),
  };
}

async function runCancelRollback(s: Session, id: string, allNamespaces: boolean): Promise<number> {
  const { items, active } = await listActive(s, allNamespaces);
  let code = 0;
  for (const listed of rollbackOrder(items, active, id)) {
    const name = listed.metadata.name ?? '';
    const at: Session = { ...s, namespace: listed.metadata.namespace ?? 'default' };
    let done: UndoPlan;
    try {
      done = await patchAsPlanned(at, name, async (d) => planCancelRollback(d, await ownedReplicaSets(at, d)));
    } catch (err) {
      if (!(err instanceof PluginError)) throw err;
      s.io.stderr.write(`error: ${OBJECT_PREFIX}${name}: ${err.message}\n`);
      code = 1;
      continue;
    }
    s.io.stdout.write(done.kind === 'skip' ? `${done.message}\n` : `${OBJECT_PREFIX}${name} rolled back\n`);
  }
  return code;
}

export async function runPlanCancel(s: Session, id: string, o: { force: boolean; allNamespaces: boolean }): Promise<number> {
  if (!o.force) return runCancelRollback(s, id, o.allNamespaces);
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
