// One vocabulary for the state of a Deployment, its ReplicaSets and pods, shared by `list` and the
// tree of `get`: Argo Rollouts' words and glyphs (✔ Healthy, ◌ Progressing, ✖ Degraded, ॥ Paused),
// derived from the conditions and counts the controller writes.

import type { Deployment, Pod, ReplicaSet } from '../api/types.ts';
import { INVALID_SPEC, PROGRESSING, REASON } from '../engine/index.ts';
import { rolloutStatus } from './status.ts';

export type DeploymentPhase = 'Healthy' | 'Progressing' | 'Degraded' | 'Paused' | 'InvalidSpec';

export const SYMBOL = {
  Healthy: '✔',
  Progressing: '◌',
  Degraded: '✖',
  Paused: '॥',
  InvalidSpec: '✖',
  ScaledDown: '•',
  Unknown: '?',
} as const;

export interface DeploymentState {
  phase: DeploymentPhase;
  /** Why, as `Reason: message` from the deciding condition ('' when there is nothing to say). */
  message: string;
}

/** The state of a Deployment: an invalid spec, then a missed deadline, then paused, then progress. */
export function deploymentState(d: Deployment): DeploymentState {
  const conditions = d.status?.conditions ?? [];
  const invalid = conditions.find((c) => c.type === INVALID_SPEC && c.status === 'True');
  if (invalid)
    return { phase: 'InvalidSpec', message: `${invalid.reason ?? REASON.invalidSpec}: ${invalid.message ?? ''}` };
  const progressing = conditions.find((c) => c.type === PROGRESSING);
  if (progressing?.reason === REASON.timedOut)
    return { phase: 'Degraded', message: `${REASON.timedOut}: ${progressing.message ?? ''}` };
  if (d.spec.paused) return { phase: 'Paused', message: 'DeploymentPaused: Deployment is paused' };
  const status = rolloutStatus(d);
  if (status.done) return { phase: 'Healthy', message: '' };
  return { phase: 'Progressing', message: status.message.trim() };
}

export interface ObjectState {
  symbol: string;
  word: string;
}

/** A ReplicaSet: scaled down, degraded (the newest one of a Degraded Deployment), healthy, or progressing. */
export function replicaSetState(rs: ReplicaSet, isNewest: boolean, phase: DeploymentPhase): ObjectState {
  const spec = rs.spec.replicas ?? 1;
  const st = rs.status ?? { replicas: 0 };
  if (spec === 0 && (st.replicas ?? 0) === 0) return { symbol: SYMBOL.ScaledDown, word: 'ScaledDown' };
  if (isNewest && phase === 'Degraded' && (st.availableReplicas ?? 0) < spec)
    return { symbol: SYMBOL.Degraded, word: 'Degraded' };
  if ((st.replicas ?? 0) === spec && (st.availableReplicas ?? 0) >= spec)
    return { symbol: SYMBOL.Healthy, word: 'Healthy' };
  return { symbol: SYMBOL.Progressing, word: 'Progressing' };
}

interface ContainerStatus {
  ready?: boolean;
  restartCount?: number;
  state?: { waiting?: { reason?: string }; terminated?: { reason?: string } };
}

function containerStatuses(p: Pod): ContainerStatus[] {
  const cs = p.status?.containerStatuses;
  return Array.isArray(cs) ? (cs as ContainerStatus[]) : [];
}

const BAD_WAITING = new Set([
  'CrashLoopBackOff',
  'ImagePullBackOff',
  'ErrImagePull',
  'CreateContainerConfigError',
  'InvalidImageName',
  'RunContainerError',
]);

/** A pod in kubelet words (Running, ContainerCreating, CrashLoopBackOff, Terminating...) with a glyph. */
export function podState(p: Pod): ObjectState {
  if (p.metadata.deletionTimestamp) return { symbol: SYMBOL.Progressing, word: 'Terminating' };
  const phase = p.status?.phase ?? 'Unknown';
  for (const c of containerStatuses(p)) {
    const reason = c.state?.waiting?.reason;
    if (reason && BAD_WAITING.has(reason)) return { symbol: SYMBOL.Degraded, word: reason };
  }
  if (phase === 'Failed') return { symbol: SYMBOL.Degraded, word: 'Failed' };
  if (phase === 'Succeeded') return { symbol: SYMBOL.ScaledDown, word: 'Completed' };
  if (phase === 'Pending') {
    const waiting = containerStatuses(p)
      .map((c) => c.state?.waiting?.reason)
      .find((r) => r);
    return { symbol: SYMBOL.Progressing, word: waiting ?? 'Pending' };
  }
  if (phase === 'Running') {
    const ready = p.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
    return { symbol: ready ? SYMBOL.Healthy : SYMBOL.Progressing, word: 'Running' };
  }
  return { symbol: SYMBOL.Unknown, word: phase };
}

/** `ready:1/2 restarts:0`: ready containers of all, restarts summed. */
export function podReadiness(p: Pod): { ready: number; total: number; restarts: number } {
  const cs = containerStatuses(p);
  const spec = p.spec as { containers?: unknown[] } | undefined;
  const total = Math.max(cs.length, spec?.containers?.length ?? 0);
  return {
    ready: cs.filter((c) => c.ready).length,
    total,
    restarts: cs.reduce((n, c) => n + (c.restartCount ?? 0), 0),
  };
}
