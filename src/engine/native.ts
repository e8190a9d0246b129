// An apps/v1 Deployment's bookkeeping annotations (native mode, docs/native.md#what-is-the-same-and-what-differs):
// upstream keeps a Deployment's and its ReplicaSets' revision, revision history and desired and
// maximum replicas under deployment.kubernetes.io/, which kubectl's rollout commands read; Pacer's
// own kind keeps the same under pacer.dev/ (annotations.ts). The engine is written in Pacer's keys:
// a pass of an apps/v1 Deployment reads its objects with upstream's keys renamed to Pacer's, and
// every object it writes has them renamed back. Pure.
//
// Analysis' bookkeeping in status (stableRS, abortedRS) has no field in apps/v1's status, whose
// unknown fields the API server drops: an apps/v1 Deployment keeps them in annotations, read into
// the status a pass sees and written with its status write (through /status, which keeps
// annotations and leaves the generation alone).

import type { Deployment, DeploymentStatus, ReplicaSet } from '../api/types.ts';
import { isAppsDeployment } from '../api/types.ts';
import {
  DESIRED_REPLICAS_ANNOTATION,
  withAnnotations,
  MAX_REPLICAS_ANNOTATION,
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
} from './kubernetes/annotations.ts';
import type { Action, Decision, Snapshot } from './types.ts';

/** [upstream's key, Pacer's key]. */
const KEYS: ReadonlyArray<readonly [string, string]> = [
  ['deployment.kubernetes.io/revision', REVISION_ANNOTATION],
  ['deployment.kubernetes.io/revision-history', REVISION_HISTORY_ANNOTATION],
  ['deployment.kubernetes.io/desired-replicas', DESIRED_REPLICAS_ANNOTATION],
  ['deployment.kubernetes.io/max-replicas', MAX_REPLICAS_ANNOTATION],
];

/** [status field, the annotation that keeps it on an apps/v1 Deployment]. */
const STATUS_KEYS: ReadonlyArray<readonly ['stableRS' | 'abortedRS', string]> = [
  ['stableRS', 'pacer.dev/stable-rs'],
  ['abortedRS', 'pacer.dev/aborted-rs'],
];

/** The Deployment with the status fields its annotations keep put back in its status. */
export function statusFromAnnotations(d: Deployment): Deployment {
  const a = d.metadata.annotations;
  if (!a || !STATUS_KEYS.some(([, key]) => key in a)) return d;
  const status: DeploymentStatus = { ...d.status };
  for (const [f, key] of STATUS_KEYS) if (key in a) status[f] = a[key];
  return { ...d, status };
}

/** `status` without the fields annotations keep, and the annotation changes that keep them (merge patch: null removes). */
function statusToAnnotations(
  status: DeploymentStatus,
  annotations: Record<string, string> | undefined,
): { status: DeploymentStatus; changes: Record<string, string | null> } {
  const out: DeploymentStatus = { ...status };
  const changes: Record<string, string | null> = {};
  for (const [f, key] of STATUS_KEYS) {
    const v = status[f];
    delete out[f];
    if (v !== annotations?.[key]) changes[key] = v ?? null;
  }
  return { status: out, changes };
}

type Annotated = { metadata: { annotations?: Record<string, string> } };

/** `annotations` with each `from` key renamed to its `to` key (the same object when none is there). */
function renamed<V>(annotations: Record<string, V> | undefined, toPacer: boolean): Record<string, V> | undefined {
  if (!annotations) return annotations;
  let out: Record<string, V> | undefined;
  for (const [apps, pacer] of KEYS) {
    const [from, to] = toPacer ? [apps, pacer] : [pacer, apps];
    if (!(from in annotations)) continue;
    out ??= { ...annotations };
    out[to] = out[from];
    delete out[from];
  }
  return out ?? annotations;
}

function withKeys<T extends Annotated>(obj: T, toPacer: boolean): T {
  const annotations = renamed(obj.metadata.annotations, toPacer);
  return annotations === obj.metadata.annotations ? obj : { ...obj, metadata: { ...obj.metadata, annotations } };
}

/**
 * An apps/v1 Deployment or one of its ReplicaSets in Pacer's keys (what the engine's readers of
 * revisions expect: the plugin's history, undo and tree read native objects through it); the same
 * object when it has none of upstream's keys.
 */
export function inPacerKeys<T extends Annotated>(obj: T): T {
  return withKeys(obj, true);
}

/** Annotations computed in Pacer's keys, written back in upstream's (an apps/v1 object's). */
export function annotationsInUpstreamKeys(annotations: Record<string, string>): Record<string, string> {
  return renamed(annotations, false) ?? annotations;
}

function actionToApps(a: Action): Action {
  switch (a.verb) {
    case 'create':
    case 'scale':
      return { ...a, object: withKeys(a.object, false) };
    case 'update':
      return { ...a, object: withKeys(a.object as ReplicaSet, false) };
    case 'patch':
      return { ...a, annotations: renamed(a.annotations, false) ?? a.annotations };
    default:
      return a;
  }
}

/**
 * A pass of an apps/v1 Deployment: `pass` sees the snapshot in Pacer's keys, and its decision is
 * written in upstream's. Pacer's own kind passes through untouched.
 */
export function inUpstreamKeys(snapshot: Snapshot, pass: (s: Snapshot) => Decision): Decision {
  if (!isAppsDeployment(snapshot.deployment)) return pass(snapshot);
  const decision = pass({
    ...snapshot,
    deployment: withKeys(statusFromAnnotations(snapshot.deployment), true),
    replicaSets: snapshot.replicaSets.map((rs) => withKeys(rs, true)),
  });
  const kept = snapshot.deployment.metadata.annotations;
  const toApps = (a: Action): Action => {
    if (a.verb !== 'updateStatus') return actionToApps(a);
    const { status, changes } = statusToAnnotations(a.status, kept);
    return Object.keys(changes).length > 0 ? { ...a, status, annotations: changes } : { ...a, status };
  };
  const after = statusToAnnotations(decision.status, kept);
  const final = withAnnotations(withKeys(decision.objects.deployment as Deployment, false), after.changes);
  return {
    ...decision,
    status: after.status,
    actions: decision.actions.map(toApps),
    objects: {
      deployment: { ...final, status: statusToAnnotations(final.status ?? {}, kept).status },
      replicaSets: decision.objects.replicaSets.map((rs) => withKeys(rs, false)),
    },
  };
}
