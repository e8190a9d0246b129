// Requests: what an operator asks of a Deployment through its annotations that reaches past one
// pass over it, to the other apps of its deployment plan: force (locks.ts) and cancel (cancel.ts).
// decide() asks here first, and a request with writes to make is the whole pass. Every step is
// recorded in annotations, so a restart at any moment resumes it: docs/architecture.md#the-engines-contract.

import type { Deployment } from '../../api/types.ts';
import {
  CANCEL_ANNOTATION,
  CANCEL_EVENTS,
  CANCEL_REQUEST_ANNOTATION,
  carryOutCancel,
  fanOutCancel,
  fanOutPending,
  formatCancel,
  parseCancel,
  patch,
} from './cancel.ts';
import { withAnnotations } from '../kubernetes/annotations.ts';
import { controllerOf } from '../../api/owners.ts';
import { FORCE_ANNOTATION, forceActions } from './locks.ts';
import type { Action, Decision, Snapshot } from '../types.ts';

/** How long a stamped app waits before it looks again whether the fan-out is over. */
export const FAN_OUT_WAIT_SECONDS = 1;

/** Does `d` carry a request that needs every Deployment known (Snapshot.deployments)? */
export function needsPeers(d: Deployment): boolean {
  const a = d.metadata.annotations;
  return (
    a !== undefined &&
    (a[FORCE_ANNOTATION] === 'true' || a[CANCEL_REQUEST_ANNOTATION] !== undefined || a[CANCEL_ANNOTATION] !== undefined)
  );
}

export type RequestOutcome =
  /** The pass is these writes. */
  | { decision: Decision }
  /** An ordinary pass, then a look again after this many seconds. */
  | { waitSeconds: number }
  /** No request: an ordinary pass. */
  | undefined;

export function decideRequests(snapshot: Snapshot): RequestOutcome {
  const d = snapshot.deployment;
  const all = snapshot.deployments ?? [d];
  const forced = forceActions(d, all, snapshot.now);
  if (forced.length > 0) return { decision: requestDecision(snapshot, forced) };

  const request = parseCancel(d.metadata.annotations?.[CANCEL_REQUEST_ANNOTATION]);
  if (request === 'invalid') return dropInvalid(snapshot, CANCEL_REQUEST_ANNOTATION);
  if (request) return { decision: requestDecision(snapshot, fanOutCancel(d, request, all, snapshot.now)) };

  const stamp = parseCancel(d.metadata.annotations?.[CANCEL_ANNOTATION]);
  if (stamp === 'invalid') return dropInvalid(snapshot, CANCEL_ANNOTATION);
  if (stamp) {
    if (fanOutPending(d, formatCancel(stamp), all)) return { waitSeconds: FAN_OUT_WAIT_SECONDS };
    return { decision: requestDecision(snapshot, [carryOutCancel(snapshot, stamp)]) };
  }
  return undefined;
}

/** A value that is not `<mode>:<id>` (written past the webhook) is removed with a Warning. */
function dropInvalid(snapshot: Snapshot, key: string): RequestOutcome {
  const d = snapshot.deployment;
  return {
    decision: requestDecision(snapshot, [
      patch(d, { [key]: null }, true, CANCEL_EVENTS.invalid(key, d.metadata.annotations?.[key] ?? '')),
    ]),
  };
}

/** A pass made of a request's writes: the status stays as stored, the ReplicaSets as they are. */
function requestDecision(snapshot: Snapshot, actions: Action[]): Decision {
  const d = snapshot.deployment;
  const ns = d.metadata.namespace ?? 'default';
  let after: Deployment = d;
  for (const a of actions) {
    if (a.verb === 'update' && a.kind === 'Deployment') after = a.object as Deployment;
    if (a.verb === 'patch' && a.namespace === ns && a.name === d.metadata.name)
      after = withAnnotations(after, a.annotations);
  }
  return {
    deployment: `${ns}/${d.metadata.name ?? ''}`,
    actions,
    status: d.status ?? {},
    requeueAfterSeconds: null,
    events: [],
    objects: {
      deployment: after,
      replicaSets: snapshot.replicaSets.filter((rs) => controllerOf(rs)?.uid === d.metadata.uid),
    },
  };
}
