// One reconcile pass as plain data: the Deployment as read (defaults applied), its working status
// and annotations, its ReplicaSets as they are after the writes issued so far, and the writes
// themselves. The rule modules read and extend it; decide.ts turns it into a Decision. Objects are
// never mutated: a write replaces the ReplicaSet with a shallow copy of what changed, so unchanged
// subtrees (pod templates above all) are shared with the snapshot and nothing is deep-cloned.

import type { Deployment, DeploymentStatus, Pod, PodTemplateSpec, ReplicaSet } from '../../api/types.ts';
import type { Action, EventRecord } from '../types.ts';
import { REVISION_ANNOTATION, setReplicasAnnotations } from './annotations.ts';
import { deploymentReplicas, sameReplicaSet, specReplicas } from './replicasets.ts';
import type { PassLimits } from '../limits.ts';

/**
 * The engine's working state while it decides one pass (pure data, no I/O); the controller's
 * ActionWriter (src/controllers/deployment/reconciler.ts) later carries out the Decision made from it.
 */
export interface DecisionPass {
  /** The Deployment as read, with upstream defaults. Its spec never changes during a pass. */
  readonly d: Deployment;
  /** The stored status ({} when there is none). */
  readonly stored: DeploymentStatus;
  /** The working status: every change of this pass lands here; written once at the end. */
  status: DeploymentStatus;
  /** The Deployment's annotations as they should be after the pass. */
  annotations: Record<string, string> | undefined;
  /** The Deployment's ReplicaSets as they are after the writes issued so far. */
  rss: ReplicaSet[];
  /** Every candidate ReplicaSet of the snapshot (for name collisions). */
  readonly candidates: readonly ReplicaSet[];
  readonly pods: readonly Pod[];
  readonly actions: Action[];
  readonly events: EventRecord[];
  readonly now: number;
  /** Seconds until the progress deadline (requeueStuckDeployment), null for none. */
  requeueAfterSeconds: number | null;
  /** The pass stopped early (an error upstream would return). */
  aborted: boolean;
  /** A new pod template for the Deployment (legacy server-side rollback), written with `update`. */
  template?: PodTemplateSpec;
  /** Event to record once the Deployment `update` succeeded. */
  deploymentUpdateEvent?: EventRecord;
  /** What the strategy and the gates allow in this pass (limits.ts), resolved once at its start. */
  readonly limits: PassLimits;
  /** The last in-sync answer of getAllReplicaSetsAndSyncRevision, valid while nothing was written. */
  newAndOld?: { actions: number; rss: ReplicaSet[]; result: { newRS: ReplicaSet | undefined; oldRSs: ReplicaSet[] } };
}

export function startPass(
  d: Deployment,
  rss: ReplicaSet[],
  candidates: readonly ReplicaSet[],
  pods: readonly Pod[],
  now: number,
  limits: PassLimits,
): DecisionPass {
  const stored = d.status ?? {};
  return {
    d,
    stored,
    status: { ...stored },
    annotations: d.metadata.annotations,
    rss,
    candidates,
    pods,
    actions: [],
    events: [],
    now,
    requeueAfterSeconds: null,
    aborted: false,
    limits,
  };
}

export function deploymentName(pass: DecisionPass): string {
  return pass.d.metadata.name ?? '';
}

/** The latest version of `rs` in this pass (after any write to it), undefined once deleted. */
export function latest(pass: DecisionPass, rs: ReplicaSet): ReplicaSet | undefined {
  for (const x of pass.rss) if (sameReplicaSet(x, rs)) return x;
  return undefined;
}

function replace(pass: DecisionPass, before: ReplicaSet, after: ReplicaSet): void {
  const i = pass.rss.findIndex((x) => sameReplicaSet(x, before));
  if (i >= 0) pass.rss[i] = after;
  else pass.rss.push(after);
}

/** A written ReplicaSet: spec changes bump metadata.generation as the API server does. */
function withSpec(
  rs: ReplicaSet,
  spec: ReplicaSet['spec'],
  annotations: Record<string, string> | undefined,
): ReplicaSet {
  const metadata = { ...rs.metadata, annotations };
  if (metadata.generation !== undefined) metadata.generation += 1;
  return { ...rs, metadata, spec };
}

/** Records an update of a ReplicaSet (annotations, minReadySeconds, ownerReferences). */
export function updateReplicaSet(pass: DecisionPass, before: ReplicaSet, after: ReplicaSet): ReplicaSet {
  pass.actions.push({ verb: 'update', kind: 'ReplicaSet', name: after.metadata.name ?? '', object: after });
  replace(pass, before, after);
  return after;
}

/**
 * scaleReplicaSet: writes the RS when its size or its desired-/max-replicas annotations need a
 * change. Returns whether the size changed (`scaled`) and the RS as written.
 */
export function scaleReplicaSet(
  pass: DecisionPass,
  rs: ReplicaSet,
  newScale: number,
): { scaled: boolean; rs: ReplicaSet } {
  const current = specReplicas(rs);
  const desired = deploymentReplicas(pass.d);
  const annotations = { ...rs.metadata.annotations };
  const annotationsChanged = setReplicasAnnotations(annotations, desired, desired + pass.limits.maxSurge);
  const sizeChanged = current !== newScale;
  if (!sizeChanged && !annotationsChanged) return { scaled: false, rs };
  const name = rs.metadata.name ?? '';
  if (!sizeChanged) {
    const after = { ...rs, metadata: { ...rs.metadata, annotations } };
    return { scaled: false, rs: updateReplicaSet(pass, rs, after) };
  }
  const after = withSpec(rs, { ...rs.spec, replicas: newScale }, annotations);
  const direction = current < newScale ? 'up' : 'down';
  pass.actions.push({
    verb: 'scale',
    kind: 'ReplicaSet',
    name,
    from: current,
    replicas: newScale,
    object: after,
    event: {
      type: 'Normal',
      reason: 'ScalingReplicaSet',
      message: `Scaled ${direction} replica set ${name} from ${current} to ${newScale}`,
    },
  });
  replace(pass, rs, after);
  return { scaled: true, rs: after };
}

/** scaleReplicaSetAndRecordEvent: nothing when the size already matches. */
export function scaleReplicaSetAndRecordEvent(
  pass: DecisionPass,
  rs: ReplicaSet,
  newScale: number,
): { scaled: boolean; rs: ReplicaSet } {
  if (specReplicas(rs) === newScale) return { scaled: false, rs };
  return scaleReplicaSet(pass, rs, newScale);
}

/** Records the creation of a ReplicaSet. */
export function createReplicaSet(pass: DecisionPass, rs: ReplicaSet): ReplicaSet {
  const name = rs.metadata.name ?? '';
  const replicas = specReplicas(rs);
  pass.actions.push({
    verb: 'create',
    kind: 'ReplicaSet',
    name,
    replicas,
    object: rs,
    ...(replicas > 0
      ? {
          event: {
            type: 'Normal' as const,
            reason: 'ScalingReplicaSet',
            message: `Scaled up replica set ${name} from 0 to ${replicas}`,
          },
        }
      : {}),
  });
  pass.rss.push(rs);
  return rs;
}

/**
 * Records the deletion of an old ReplicaSet (with uid and resourceVersion as preconditions).
 * Upstream records no event for it; Pacer does, in the words Kubernetes controllers use for a
 * deleted child (SuccessfulDelete), so that every ReplicaSet create, scale and delete shows.
 */
export function deleteReplicaSet(pass: DecisionPass, rs: ReplicaSet): void {
  const revision = rs.metadata.annotations?.[REVISION_ANNOTATION];
  pass.actions.push({
    verb: 'delete',
    kind: 'ReplicaSet',
    name: rs.metadata.name ?? '',
    event: {
      type: 'Normal',
      reason: 'SuccessfulDelete',
      message: `Deleted old replica set ${rs.metadata.name ?? ''}${revision ? ` (revision ${revision})` : ''}`,
    },
    ...(rs.metadata.uid !== undefined ? { uid: rs.metadata.uid } : {}),
    ...(rs.metadata.resourceVersion !== undefined ? { resourceVersion: rs.metadata.resourceVersion } : {}),
  });
  const i = pass.rss.findIndex((x) => sameReplicaSet(x, rs));
  if (i >= 0) pass.rss.splice(i, 1);
}

/** SetDeploymentRevision: true when the Deployment's revision annotation changed. */
export function setDeploymentRevision(pass: DecisionPass, revision: string): boolean {
  if (pass.annotations?.[REVISION_ANNOTATION] === revision) return false;
  pass.annotations = { ...pass.annotations, [REVISION_ANNOTATION]: revision };
  return true;
}
