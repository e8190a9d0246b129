// Deployment plans: Marathon's active deployments (GET /v2/deployments), derived from the pacer.dev
// Deployments as stored. Pure, with no state of its own: the same list always gives the same plans,
// so the controller's view, the lock and the plugin agree. What is in motion, the members, the
// actions, the steps, the id and the version: docs/semantics/marathon.md#the-view-in-pacer.

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

const ROLLOUT_REASONS: ReadonlySet<string> = new Set([
  REASON.newRSCreated,
  REASON.foundNewRS,
  REASON.rsUpdated,
  REASON.timedOut,
]);

/** Is a change to `d` not yet carried out? (docs/semantics/marathon.md#the-view-in-pacer: in motion) */
export function inMotion(d: Deployment): boolean {
  if (d.metadata.deletionTimestamp) return true;
  return !deploymentComplete(d, d.status ?? {});
}

/** New: no revision yet, or its first revision has not completed (docs/semantics/marathon.md#the-view-in-pacer). */
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
 * no level). Actions: docs/semantics/marathon.md#the-view-in-pacer.
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
    .map(
      (d) =>
        `${deploymentKey(d.metadata.namespace, d.metadata.name)} ${d.metadata.uid ?? ''} ${d.metadata.generation ?? 0}`,
    )
    .sort();
  const h = createHash('sha256').update(lines.join('\n')).digest();
  h[6] = (h[6] & 0x0f) | 0x80;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

/**
 * When a member's change became visible in what is stored (the version,
 * docs/semantics/marathon.md#the-view-in-pacer); NaN if unknown.
 */
function changeSeen(d: Deployment): number {
  if (d.metadata.deletionTimestamp) return parseTime(d.metadata.deletionTimestamp);
  const created = parseTime(d.metadata.creationTimestamp);
  if (isNewApp(d)) return created;
  const p = parseTime(getCondition(d.status, PROGRESSING)?.lastTransitionTime);
  return Number.isNaN(p) ? created : p;
}

/** The action of a finished member kept for a dependent (docs/semantics/marathon.md#the-view-in-pacer: actions). */
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
        members.set(dep, {
          key: dep,
          app: appId(target.metadata.namespace, target.metadata.name),
          d: target,
          moving: false,
        });
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
      const { start: isStart, action } = m.moving
        ? { start: isNewApp(m.d), action: appAction(m.d) }
        : finishedAction(m.d);
      if (isStart)
        start.push({
          action: { action: 'StartApplication', app: m.app },
          done: !m.moving || (m.d.status?.observedGeneration ?? 0) >= 1,
        });
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
