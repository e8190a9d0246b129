// The new ReplicaSet: found among the Deployment's ReplicaSets (and its annotations brought up to
// date: revision, revision history, copied Deployment annotations, minReadySeconds), or built for
// creation exactly as upstream builds it (docs/semantics/kubernetes-deployments.md#the-pod-template-hash-and-the-new-replicaset).

import type { Deployment, ReplicaSet } from '../../api/types.ts';
import {
  nextRevisionText,
  parseInt64,
  setNewReplicaSetAnnotations,
  skipCopyAnnotation,
  REVISION_ANNOTATION,
} from './annotations.ts';
import { PROGRESSING, MESSAGE, REASON, formatTime, getCondition, newCondition, setCondition } from './conditions.ts';
import { newControllerRef } from './claim.ts';
import { POD_TEMPLATE_HASH_LABEL, fnv1a32, replicaSetName, templateHashOf } from './hash.ts';
import type { DecisionPass } from './pass.ts';
import { createReplicaSet, setDeploymentRevision, updateReplicaSet } from './pass.ts';
import { hasProgressDeadline } from './progress.ts';
import { deploymentReplicas, findNewReplicaSet, findOldReplicaSets } from './replicasets.ts';
import { newReplicaSetTarget } from './rolling.ts';

const encoder = new TextEncoder();

/** A stable UUID-shaped uid for a created object (pure: derived from its identity). */
export function generatedUid(...parts: string[]): string {
  const seed = encoder.encode(parts.join('/'));
  let hex = '';
  for (let i = 0; hex.length < 32; i++)
    hex += fnv1a32(seed, fnv1a32(encoder.encode(String(i))))
      .toString(16)
      .padStart(8, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The ReplicaSet to create for `d`'s template (without replicas and annotations, which depend on
 * the other ReplicaSets): name `<deployment>-<hash>`, hash label on labels, selector and template.
 */
export function buildNewReplicaSet(d: Deployment, hash: string, now: number): ReplicaSet {
  const name = replicaSetName(d.metadata.name ?? '', hash);
  const template = structuredClone(d.spec.template ?? {});
  const labels = { ...template.metadata?.labels, [POD_TEMPLATE_HASH_LABEL]: hash };
  template.metadata = { ...template.metadata, labels };
  const selector = structuredClone(d.spec.selector ?? {});
  selector.matchLabels = { ...selector.matchLabels, [POD_TEMPLATE_HASH_LABEL]: hash };
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name,
      namespace: d.metadata.namespace,
      uid: generatedUid(d.metadata.namespace ?? '', name, d.metadata.uid ?? ''),
      generation: 1,
      creationTimestamp: formatTime(now),
      labels: { ...labels },
      ownerReferences: [newControllerRef(d)],
    },
    spec: {
      replicas: 0,
      minReadySeconds: d.spec.minReadySeconds ?? 0,
      selector,
      template,
    },
    status: { replicas: 0 },
  };
}

/** The hash a ReplicaSet for `d` would get now (template without the hash label, collisionCount). */
export function templateHash(d: Deployment, collisionCount: number | undefined): string {
  return templateHashOf(d.spec.template, collisionCount);
}

/** Would setNewReplicaSetAnnotations(exists) change nothing on `rs`? (a fast, allocation-free check) */
function annotationsInSync(d: Deployment, rs: ReplicaSet, newRevision: string): boolean {
  const own = rs.metadata.annotations;
  const from = d.metadata.annotations;
  if (from) {
    for (const k in from) if (!skipCopyAnnotation(k) && own?.[k] !== from[k]) return false;
  }
  const current = own?.[REVISION_ANNOTATION];
  if (current === undefined) return false;
  const cur = parseInt64(current);
  const next = parseInt64(newRevision);
  return cur === null || next === null || cur >= next;
}

export interface NewAndOld {
  newRS: ReplicaSet | undefined;
  oldRSs: ReplicaSet[];
}

/**
 * getAllReplicaSetsAndSyncRevision: finds the new ReplicaSet (creating it when `create`), syncs
 * its annotations and the Deployment's revision. Sets `pass.aborted` on a hash collision (the
 * name is taken by another ReplicaSet): collisionCount is bumped and the pass ends.
 */
export function getAllReplicaSetsAndSyncRevision(pass: DecisionPass, create: boolean): NewAndOld {
  // A pass asks twice (the scaling-event check, then the rollout): when the first found the new
  // ReplicaSet in sync and nothing was written since, the answer is the same.
  const known = pass.newAndOld;
  if (known && known.actions === pass.actions.length && known.rss === pass.rss) return known.result;
  const d = pass.d;
  const existing = findNewReplicaSet(d, pass.rss, templateHash(d, pass.status.collisionCount));
  const oldRSs = findOldReplicaSets(pass.rss, existing);
  const newRevision = nextRevisionText(oldRSs);
  const replicas = deploymentReplicas(d);
  const maxReplicas = replicas + pass.limits.maxSurge;

  if (existing) {
    const copy: ReplicaSet = { ...existing };
    // The common case, nothing to sync, is checked without copying the annotations.
    const annotationsUpdated =
      !annotationsInSync(d, existing, newRevision) &&
      setNewReplicaSetAnnotations(d, copy, newRevision, true, replicas, maxReplicas);
    const minReadySeconds = d.spec.minReadySeconds ?? 0;
    if (annotationsUpdated || (existing.spec.minReadySeconds ?? 0) !== minReadySeconds) {
      // Upstream returns right after this update, leaving the Deployment for the next pass.
      const metadata = { ...copy.metadata };
      let spec = existing.spec;
      if ((existing.spec.minReadySeconds ?? 0) !== minReadySeconds) {
        spec = { ...existing.spec, minReadySeconds };
        if (metadata.generation !== undefined) metadata.generation += 1;
      }
      const updated = updateReplicaSet(pass, existing, { ...copy, metadata, spec });
      return { newRS: updated, oldRSs };
    }
    setDeploymentRevision(pass, copy.metadata.annotations?.[REVISION_ANNOTATION] ?? '');
    if (hasProgressDeadline(d) && !getCondition(pass.status, PROGRESSING)) {
      setCondition(
        pass.status,
        newCondition(
          PROGRESSING,
          'True',
          REASON.foundNewRS,
          MESSAGE.foundNewRS(existing.metadata.name ?? ''),
          pass.now,
        ),
      );
    }
    const result = { newRS: existing, oldRSs };
    pass.newAndOld = { actions: pass.actions.length, rss: pass.rss, result };
    return result;
  }

  if (!create) return { newRS: undefined, oldRSs };

  const hash = templateHash(d, pass.status.collisionCount);
  const rs = buildNewReplicaSet(d, hash, pass.now);
  const taken =
    pass.candidates.some((c) => c.metadata.name === rs.metadata.name) ||
    pass.rss.some((c) => c.metadata.name === rs.metadata.name);
  if (taken) {
    // AlreadyExists with another template (ours with the same template would have been found):
    // a hash collision. Bump collisionCount; the next pass hashes with it.
    pass.status.collisionCount = (pass.status.collisionCount ?? 0) + 1;
    pass.aborted = true;
    pass.requeueAfterSeconds = 0;
    return { newRS: undefined, oldRSs };
  }
  rs.spec.replicas = newReplicaSetTarget(d, [...oldRSs, rs], rs, pass.limits);
  setNewReplicaSetAnnotations(d, rs, newRevision, false, replicas, maxReplicas);
  const created = createReplicaSet(pass, rs);
  setDeploymentRevision(pass, newRevision);
  if (hasProgressDeadline(d)) {
    setCondition(
      pass.status,
      newCondition(PROGRESSING, 'True', REASON.newRSCreated, MESSAGE.newRSCreated(rs.metadata.name ?? ''), pass.now),
    );
  }
  return { newRS: created, oldRSs };
}
