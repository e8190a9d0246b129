// What the dashboard shows of each object, as pure functions of the object: a Deployment's row
// and state, a ReplicaSet's revision and counts, a pod's status in kubelet's words. The server
// sends these views (api.ts), never the objects themselves, so the page only ever gets the fields
// it draws.

import { withDefaults } from '../api/defaults.ts';
import type { Deployment, Pod, PodTemplateSpec, ReplicaSet } from '../api/types.ts';
import { API_VERSION } from '../api/types.ts';
import { controllerOf } from '../api/owners.ts';
import { strategyTypeOf } from '../api/strategies/index.ts';
import {
  CHANGE_CAUSE_ANNOTATION,
  INVALID_SPEC,
  PROGRESSING,
  REASON,
  REVISION_ANNOTATION,
  isGradual,
  maxSurge,
  maxUnavailable,
  revisionOf,
  strategyOf,
} from '../engine/index.ts';
import { podReadiness, podState } from '../plugin/state.ts';
import { rolloutStatus } from '../plugin/status.ts';
import type { BudgetView, DashboardState, DeploymentView, EventView, PodView, ReplicaSetView } from './api.ts';

/** The Progressing reasons of a rollout that its analysis stopped or holds (docs/semantics/analysis.md). */
const ANALYSIS_REASONS: ReadonlySet<string> = new Set([
  REASON.analysisFailed,
  REASON.analysisPaused,
  REASON.analysisInconclusive,
  REASON.analysisInvalid,
]);

/**
 * The Progressing reasons of a rollout held until a person acts: a plan waiting for `plan
 * continue` (PlanWaiting), and the freeze switch (Frozen) until `freeze off`.
 */
const OPERATOR_REASONS: ReadonlySet<string> = new Set([REASON.planWaiting, REASON.frozen]);

/**
 * The state of a Deployment, first match wins: an invalid spec; a missed progress deadline; an
 * analysis that failed or holds the rollout; paused (spec.paused); waiting for an operator; complete
 * (as `kubectl rollout status` says "successfully rolled out"); else progressing. `message` is the
 * deciding condition's `Reason: message`, or rollout status's line while progressing.
 */
export function dashboardState(d: Deployment): { state: DashboardState; message: string } {
  const conditions = d.status?.conditions ?? [];
  const said = (c: { reason?: string; message?: string }, fallback: string) =>
    `${c.reason ?? fallback}: ${c.message ?? ''}`.trim();
  const invalid = conditions.find((c) => c.type === INVALID_SPEC && c.status === 'True');
  if (invalid) return { state: 'invalid', message: said(invalid, REASON.invalidSpec) };
  const progressing = conditions.find((c) => c.type === PROGRESSING);
  const reason = progressing?.reason ?? '';
  if (progressing && reason === REASON.timedOut)
    return { state: 'deadline-exceeded', message: said(progressing, reason) };
  if (progressing && ANALYSIS_REASONS.has(reason))
    return { state: 'analysis-failing', message: said(progressing, reason) };
  if (d.spec.paused) return { state: 'paused', message: `${REASON.paused}: Deployment is paused` };
  if (progressing && OPERATOR_REASONS.has(reason)) return { state: 'waiting', message: said(progressing, reason) };
  const status = rolloutStatus(d);
  if (status.done) return { state: 'complete', message: '' };
  return { state: 'progressing', message: status.message.trim() };
}

/** The revision annotation's number; null when there is none yet (or it is not a number). */
function revision(obj: { metadata: { annotations?: Record<string, string> } }): number | null {
  return obj.metadata.annotations?.[REVISION_ANNOTATION] === undefined ? null : revisionOf(obj);
}

function imagesOf(t: PodTemplateSpec | undefined): string[] {
  const spec = t?.spec as { containers?: Array<{ image?: string }> } | undefined;
  return (spec?.containers ?? []).map((c) => c.image ?? '');
}

/**
 * The strategy's budget in pods, resolved as a pass of the controller resolves it (fenceposts.ts,
 * on the Deployment with its defaults): RollingUpdate's maxSurge rounded up and maxUnavailable down
 * against spec.replicas (both 0: unavailable 1), MinimumHealth's envelope (Marathon's
 * minimumHealthCapacity and maximumOverCapacity), Recreate none.
 */
export function budgetView(raw: Deployment): BudgetView {
  const d = withDefaults(raw);
  const replicas = d.spec.replicas ?? 1;
  const surge = maxSurge(d);
  const unavailable = maxUnavailable(d);
  // The strategy's parameters as `kubectl pacer get` shows them (its module's describe).
  const settings = (strategyOf(d)?.describe(d) ?? []).map(({ name, value }) => `${name} ${value}`).join(', ');
  return {
    gradual: isGradual(d),
    settings,
    maxSurge: surge,
    maxUnavailable: unavailable,
    maxPods: replicas + surge,
    minAvailable: replicas - unavailable,
  };
}

export function deploymentView(d: Deployment): DeploymentView {
  const s = d.status ?? {};
  const { state, message } = dashboardState(d);
  return {
    uid: d.metadata.uid ?? '',
    namespace: d.metadata.namespace ?? '',
    name: d.metadata.name ?? '',
    strategy: strategyTypeOf(d),
    desired: d.spec.replicas ?? 1,
    ready: s.readyReplicas ?? 0,
    updated: s.updatedReplicas ?? 0,
    available: s.availableReplicas ?? 0,
    revision: revision(d),
    state,
    stateMessage: message,
    paused: d.spec.paused === true,
    images: imagesOf(d.spec.template),
    containers: (
      (d.spec.template?.spec as { containers?: Array<{ name?: string }> } | undefined)?.containers ?? []
    ).map((c) => c.name ?? ''),
    conditions: (s.conditions ?? []).map((c) => ({
      type: c.type,
      status: c.status,
      reason: c.reason ?? '',
      message: c.message ?? '',
      lastUpdateTime: c.lastUpdateTime ?? '',
    })),
    budget: budgetView(d),
    createdAt: d.metadata.creationTimestamp ?? '',
  };
}

/** A ReplicaSet's view, or undefined when no pacer.dev Deployment controls it (it is not shown). */
export function replicaSetView(rs: ReplicaSet): ReplicaSetView | undefined {
  const owner = controllerOf(rs);
  if (!owner || owner.apiVersion !== API_VERSION || owner.kind !== 'Deployment') return undefined;
  const s = rs.status ?? { replicas: 0 };
  return {
    uid: rs.metadata.uid ?? '',
    namespace: rs.metadata.namespace ?? '',
    name: rs.metadata.name ?? '',
    deploymentUid: owner.uid,
    revision: revision(rs),
    desired: rs.spec.replicas ?? 1,
    replicas: s.replicas ?? 0,
    ready: s.readyReplicas ?? 0,
    available: s.availableReplicas ?? 0,
    images: imagesOf(rs.spec.template),
    changeCause: rs.metadata.annotations?.[CHANGE_CAUSE_ANNOTATION] ?? '',
    createdAt: rs.metadata.creationTimestamp ?? '',
  };
}

/** A pod's view, or undefined when no ReplicaSet controls it. */
export function podView(p: Pod): PodView | undefined {
  const owner = controllerOf(p);
  if (owner?.kind !== 'ReplicaSet') return undefined;
  const state = podState(p);
  const r = podReadiness(p);
  return {
    uid: p.metadata.uid ?? '',
    namespace: p.metadata.namespace ?? '',
    name: p.metadata.name ?? '',
    replicaSet: owner.name,
    status: state.word,
    healthy: state.word === 'Running' && r.total > 0 && r.ready === r.total,
    readyContainers: r.ready,
    containers: r.total,
    restarts: r.restarts,
    node: (p.spec as { nodeName?: string } | undefined)?.nodeName ?? '',
    createdAt: p.metadata.creationTimestamp ?? '',
  };
}

/** The kinds whose Events the dashboard keeps: a Deployment's own, its ReplicaSets' and its pods'. */
export const EVENT_KINDS: ReadonlySet<string> = new Set(['Deployment', 'ReplicaSet', 'Pod']);

/** The fields of a core/v1 Event the dashboard reads (events.k8s.io's series and eventTime included). */
export interface EventObject {
  metadata: { name?: string; namespace?: string; resourceVersion?: string; uid?: string; creationTimestamp?: string };
  involvedObject?: { kind?: string; name?: string; namespace?: string; apiVersion?: string };
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  eventTime?: string | null;
  series?: { count?: number; lastObservedTime?: string } | null;
  source?: { component?: string };
  reportingComponent?: string;
}

/**
 * An Event's view, or undefined for an Event about anything but a Deployment, ReplicaSet or pod
 * (not kept). When it last happened and how often as `kubectl events` reads them: the series' last
 * observation and count when there is a series, else lastTimestamp and count, else eventTime, else
 * its creation; a count of 1 when none is given.
 */
export function eventView(e: EventObject): EventView | undefined {
  const o = e.involvedObject ?? {};
  if (!EVENT_KINDS.has(o.kind ?? '')) return undefined;
  const lastSeen = e.series?.lastObservedTime || e.lastTimestamp || e.eventTime || e.metadata.creationTimestamp || '';
  const count = e.series?.count ?? (e.count !== undefined && e.count > 0 ? e.count : 1);
  return {
    namespace: e.metadata.namespace ?? '',
    name: e.metadata.name ?? '',
    objectKind: o.kind ?? '',
    objectName: o.name ?? '',
    type: e.type ?? '',
    reason: e.reason ?? '',
    message: e.message ?? '',
    count,
    lastSeen,
    source: e.source?.component || e.reportingComponent || '',
  };
}

/** The Event as the cache keeps it: only the fields eventView reads. */
export function slimEvent(e: EventObject): EventObject {
  const { metadata: m } = e;
  return {
    metadata: {
      name: m.name,
      namespace: m.namespace,
      resourceVersion: m.resourceVersion,
      uid: m.uid,
      creationTimestamp: m.creationTimestamp,
    },
    ...(e.involvedObject ? { involvedObject: { kind: e.involvedObject.kind, name: e.involvedObject.name } } : {}),
    type: e.type,
    reason: e.reason,
    message: e.message,
    count: e.count,
    lastTimestamp: e.lastTimestamp,
    eventTime: e.eventTime,
    ...(e.series ? { series: e.series } : {}),
    ...(e.source?.component ? { source: { component: e.source.component } } : {}),
    ...(e.reportingComponent ? { reportingComponent: e.reportingComponent } : {}),
  };
}
