// Deployment plans: Marathon's active deployments, its DeploymentPlans (GET /v2/deployments,
// docs/semantics/marathon.md#the-active-deployments-view), derived from the pacer.dev Deployments
// as stored, with no state of its own (level-triggered: the same list always gives the same plans;
// the controller and the plugin compute them alike).
//
// IN MOTION. An app (a pacer.dev Deployment) is in motion when a change to it is not yet carried
// out: it is being deleted (deletionTimestamp), or it is not DeploymentComplete (progress.ts: a
// generation not yet observed, or replicas not all updated and available — a rollout or a scaling
// under way, paused, past its progress deadline or held back by its dependencies). Marathon has no
// deadline, so a paused app mid-rollout or one past its deadline stays in motion until done.
// DependenciesReady=False on an app that is otherwise complete is not motion: that app has nothing
// left to do (a scale of db alone does not drag app into the plan: Marathon's plan holds
// changed apps only); an app that waits with a change pending is incomplete anyway.
//
// MEMBERS. A deployment plan is a connected component of apps in motion over their direct dependency
// edges (spec.dependencies), plus the finished dependencies its apps waited for: a finished app X
// stays in the plan of an app Y in motion that depends on it directly while Y's current spec
// waited for its dependencies — Y's DependenciesReady is True stamped with Y's current generation
// (the engine stamps observedGeneration at each transition), or still False. So db ← app upgraded
// together stays one plan, [[Restart db], [Restart app]], until app is done too. With several
// dependencies the condition does not say which one held Y back: a finished dependency that did not
// move is then kept as well (its step shows as done).
//
// ACTIONS (Marathon's names).
//   StopApplication    being deleted; only in the "stop" step (Marathon gives removed apps no level).
//   StartApplication   new: no revision yet, or at revision 1 and the first rollout not yet complete
//                      (Progressing not True/NewReplicaSetAvailable; without a Progressing condition,
//                      generation 1). In the "start" step, and ScaleApplication at its level.
//   RestartApplication its template changed: old replicas remain (status.replicas > updatedReplicas),
//                      or Progressing says a rollout (NewReplicaSetCreated, FoundNewReplicaSet,
//                      ReplicaSetUpdated, ProgressDeadlineExceeded). Before the controller observed
//                      the change: any change that leaves the replica count as it is.
//   ScaleApplication   only the replica count changed (or the target is 0, as in Marathon).
//   A finished app kept as a member: Start/Scale when new (revision ≤ 1, generation 1), else
//   Restart (its stored state no longer says whether it was a scale).
//
// STEPS (Marathon's plan): one "stop" step, one "start" step, then one step per dependency level (levels over
// the whole graph of apps not being deleted, only the plan's apps placed; apps on a
// dependency cycle have no level and go into one last step); empty steps are dropped. Actions are
// sorted by app id. currentStep is the first step with an action not done: Stop is done when the
// app is gone (never, while listed); Start when the controller has observed the app
// (status.observedGeneration ≥ 1; Marathon's StartApplication succeeds at once); Scale and Restart
// when the app is no longer in motion.
//
// ID AND VERSION. id: UUID-shaped, from a SHA-256 of the members (namespace/name, uid, generation):
// the same while the plan runs, new when a further change joins (a new generation or a new
// member; pausing the apps is such a change). version (RFC 3339 with ms): the latest, over members,
// of when its change became visible in what is stored — deletionTimestamp (Stop), creationTimestamp
// (Start), else the Progressing condition's lastTransitionTime (creationTimestamp without one). A
// Deployment does not record when its spec last changed, so for an upgrade this is the last time
// the app's progress changed status (its creation, a resume, a missed deadline): stable while the
// plan runs, but earlier than the change itself. `now` when no member has a readable time.

import { createHash } from 'node:crypto';
import type { Deployment } from '../../api/types.ts';
import { dependencyKeys, deploymentKey } from '../../api/dependencies.ts';
import { REVISION_ANNOTATION } from '../kubernetes/annotations.ts';
import { DEPENDENCIES_READY, PROGRESSING, REASON, getCondition, parseTime } from '../kubernetes/conditions.ts';
import { dependencyLevels } from './dependencies.ts';
import { deploymentComplete } from '../kubernetes/progress.ts';

export type PlanActionName = 'StartApplication' | 'StopApplication' | 'ScaleApplication' | 'RestartApplication';

export interface PlanAction {
  action: PlanActionName;
  /** `/<namespace>/<name>` */
  app: string;
}

/** Marathon's readiness results of a current action; Pacer has no readiness checks: always []. */
export interface ReadinessCheckResult {
  name: string;
  taskId: string;
  ready: boolean;
  lastResponse?: { status: number; contentType: string; body: string };
}

export interface PlanCurrentAction extends PlanAction {
  readinessCheckResults: ReadinessCheckResult[];
}

export interface PlanStep {
  actions: PlanAction[];
}

/** One deployment plan: an element of GET /v2/deployments (docs/semantics/marathon.md#marathons-v2deployments). */
export interface DeploymentPlan {
  id: string;
  version: string;
  affectedApps: string[];
  /** Marathon's pods; Pacer has none. */
  affectedPods: string[];
  steps: PlanStep[];
  currentActions: PlanCurrentAction[];
  /** 1-based. */
  currentStep: number;
  totalSteps: number;
}

/** Marathon's app id of a Deployment: `/<namespace>/<name>`. */
export function appId(namespace: string | undefined, name: string | undefined): string {
  return `/${namespace ?? 'default'}/${name ?? ''}`;
}

const ROLLOUT_REASONS: ReadonlySet<string> = new Set([REASON.newRSCreated, REASON.foundNewRS, REASON.rsUpdated, REASON.timedOut]);

/** Is a change to `d` not yet carried out? (The module header defines it.) */
export function inMotion(d: Deployment): boolean {
  if (d.metadata.deletionTimestamp) return true;
  return !deploymentComplete(d, d.status ?? {});
}

/** New: no revision yet, or its first revision has not completed (module header). */
export function isNewApp(d: Deployment): boolean {
  const revision = d.metadata.annotations?.[REVISION_ANNOTATION];
  if (revision === undefined || revision === '') return true;
  if (revision !== '1') return false;
  const p = getCondition(d.status, PROGRESSING);
  if (p?.status === 'True' && p.reason === REASON.newRSAvailable) return false;
  if (p && ROLLOUT_REASONS.has(p.reason ?? '')) return true;
  return (d.metadata.generation ?? 1) <= 1;
}

/**
 * The action of an app in motion at its dependency level (Stop for one being deleted, which has
 * no level). Module header: ACTIONS.
 */
export function appAction(d: Deployment): PlanActionName {
  if (d.metadata.deletionTimestamp) return 'StopApplication';
  const want = d.spec.replicas ?? 1;
  if (isNewApp(d) || want === 0) return 'ScaleApplication';
  const s = d.status ?? {};
  if ((s.replicas ?? 0) > (s.updatedReplicas ?? 0)) return 'RestartApplication';
  if ((s.observedGeneration ?? 0) < (d.metadata.generation ?? 0)) {
    return (s.replicas ?? 0) !== want ? 'ScaleApplication' : 'RestartApplication';
  }
  const p = getCondition(s, PROGRESSING);
  return p && ROLLOUT_REASONS.has(p.reason ?? '') ? 'RestartApplication' : 'ScaleApplication';
}

/** Did `d`'s current spec wait for its dependencies (DependenciesReady False, or True since this generation)? */
function waitedForDependencies(d: Deployment): boolean {
  const c = getCondition(d.status, DEPENDENCIES_READY);
  if (!c) return false;
  if (c.status !== 'True') return true;
  return c.observedGeneration !== undefined && c.observedGeneration === (d.metadata.generation ?? 0);
}

interface Member {
  key: string;
  app: string;
  d: Deployment;
  moving: boolean;
}

/** The connected components (keys sorted) of `edges` over `nodes`. */
function components(nodes: readonly string[], edges: ReadonlyArray<readonly [string, string]>): string[][] {
  const parent = new Map(nodes.map((n) => [n, n]));
  const find = (n: string): string => {
    let r = n;
    while (parent.get(r) !== r) r = parent.get(r)!;
    parent.set(n, r);
    return r;
  };
  for (const [a, b] of edges) {
    const ra = find(a);
    const rb = find(b);
    if (ra === rb) continue;
    // The later name (by string order) joins the earlier one's set.
    const [first, later] = ra < rb ? [ra, rb] : [rb, ra];
    parent.set(later, first);
  }
  const groups = new Map<string, string[]>();
  for (const n of nodes) {
    const r = find(n);
    const g = groups.get(r) ?? [];
    g.push(n);
    groups.set(r, g);
  }
  return [...groups.values()].map((g) => g.sort());
}

/** A UUID-shaped id (version 8, RFC 9562 variant) from the members and their generations. */
export function planId(members: readonly Deployment[]): string {
  const lines = members
    .map((d) => `${deploymentKey(d.metadata.namespace, d.metadata.name)} ${d.metadata.uid ?? ''} ${d.metadata.generation ?? 0}`)
    .sort();
  const h = createHash('sha256').update(lines.join('\n')).digest();
  h[6] = (h[6] & 0x0f) | 0x80;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

/** When a member's change became visible in what is stored (module header: ID AND VERSION); NaN if unknown. */
function changeSeen(d: Deployment): number {
  if (d.metadata.deletionTimestamp) return parseTime(d.metadata.deletionTimestamp);
  const created = parseTime(d.metadata.creationTimestamp);
  if (isNewApp(d)) return created;
  const p = parseTime(getCondition(d.status, PROGRESSING)?.lastTransitionTime);
  return Number.isNaN(p) ? created : p;
}

/** The action of a finished member kept for a dependent (module header: ACTIONS). */
function finishedAction(d: Deployment): { start: boolean; action: PlanActionName } {
  const revision = d.metadata.annotations?.[REVISION_ANNOTATION] ?? '';
  const created = (revision === '' || revision === '1') && (d.metadata.generation ?? 1) <= 1;
  return created ? { start: true, action: 'ScaleApplication' } : { start: false, action: 'RestartApplication' };
}

/**
 * The active deployment plans over `deployments` (every pacer.dev Deployment the caller can see:
 * dependencies outside the list are neither levelled nor joined). Sorted by version, then id.
 */
export function activePlans(deployments: readonly Deployment[], now: number): DeploymentPlan[] {
  const byKey = new Map<string, Deployment>();
  for (const d of deployments) byKey.set(deploymentKey(d.metadata.namespace, d.metadata.name), d);

  const members = new Map<string, Member>();
  for (const [key, d] of byKey) {
    if (inMotion(d)) members.set(key, { key, app: appId(d.metadata.namespace, d.metadata.name), d, moving: true });
  }
  const edges: Array<[string, string]> = [];
  for (const m of [...members.values()]) {
    for (const dep of dependencyKeys(m.d)) {
      const target = byKey.get(dep);
      if (!target) continue;
      if (members.has(dep)) edges.push([m.key, dep]);
      else if (!m.d.metadata.deletionTimestamp && waitedForDependencies(m.d)) {
        members.set(dep, { key: dep, app: appId(target.metadata.namespace, target.metadata.name), d: target, moving: false });
        edges.push([m.key, dep]);
      }
    }
  }
  if (members.size === 0) return [];

  // Levels over the target graph: the apps that are not being deleted.
  const { levels } = dependencyLevels([...byKey.values()].filter((d) => !d.metadata.deletionTimestamp));

  const out: DeploymentPlan[] = [];
  for (const keys of components([...members.keys()].sort(), edges)) {
    const group = keys.map((k) => members.get(k)!);
    const stop: Array<{ action: PlanAction; done: boolean }> = [];
    const start: Array<{ action: PlanAction; done: boolean }> = [];
    const levelled: Array<Array<{ action: PlanAction; done: boolean }>> = [];
    const unlevelled: Array<{ action: PlanAction; done: boolean }> = [];
    for (const m of group) {
      if (m.d.metadata.deletionTimestamp) {
        stop.push({ action: { action: 'StopApplication', app: m.app }, done: false });
        continue;
      }
      const { start: isStart, action } = m.moving ? { start: isNewApp(m.d), action: appAction(m.d) } : finishedAction(m.d);
      if (isStart) start.push({ action: { action: 'StartApplication', app: m.app }, done: !m.moving || (m.d.status?.observedGeneration ?? 0) >= 1 });
      const entry = { action: { action, app: m.app }, done: !m.moving };
      const level = levels.get(m.key);
      if (level === undefined) unlevelled.push(entry);
      else (levelled[level - 1] ??= []).push(entry);
    }
    const byApp = (a: { action: PlanAction }, b: { action: PlanAction }) => a.action.app.localeCompare(b.action.app);
    const steps = [stop, start, ...levelled.filter((s) => s !== undefined), unlevelled]
      .filter((s) => s.length > 0)
      .map((s) => [...s].sort(byApp));
    const current = steps.findIndex((s) => s.some((a) => !a.done));
    const times = group.map((m) => changeSeen(m.d)).filter((t) => !Number.isNaN(t));
    out.push({
      id: planId(group.map((m) => m.d)),
      version: new Date(times.length > 0 ? Math.max(...times) : now).toISOString(),
      affectedApps: group.map((m) => m.app).sort(),
      affectedPods: [],
      steps: steps.map((s) => ({ actions: s.map((a) => a.action) })),
      currentActions: current < 0 ? [] : steps[current].map((a) => ({ ...a.action, readinessCheckResults: [] })),
      currentStep: current + 1,
      totalSteps: steps.length,
    });
  }
  return out.sort((a, b) => a.version.localeCompare(b.version) || a.affectedApps[0].localeCompare(b.affectedApps[0]));
}

/** The active deployment plan that `app` (`/<namespace>/<name>`) belongs to, if any (the lock's question). */
export function planOfApp(active: readonly DeploymentPlan[], app: string): DeploymentPlan | undefined {
  return active.find((x) => x.affectedApps.includes(app));
}

/** The active deployment plan with this id, if any. */
export function planById(active: readonly DeploymentPlan[], id: string): DeploymentPlan | undefined {
  return active.find((x) => x.id === id);
}

/** Marathon's 404 message for an unknown deployment plan id. */
export function unknownPlanMessage(id: string): string {
  return `DeploymentPlan ${id} does not exist`;
}
