// Rollback: which ReplicaSet a `rollout undo` goes back to, the template and annotations the
// Deployment gets from it (kubectl's client-side undo and the legacy server-side
// `deprecated.deployment.rollback.to` annotation share these), with upstream's wording.

import type { PodTemplateSpec, ReplicaSet } from '../../api/types.ts';
import { ROLLBACK_TO_ANNOTATION, lastRevision, parseInt64, revisionOf, skipCopyAnnotation } from './annotations.ts';
import { POD_TEMPLATE_HASH_LABEL } from './hash.ts';
import type { DecisionPass } from './pass.ts';
import { equalIgnoreHash } from './template.ts';

export const ROLLBACK_MESSAGES = {
  revisionNotFound: (n: number | string) => `unable to find specified revision ${n} in history`,
  noHistory: (name: string) => `no rollout history found for deployment "${name}"`,
  paused: "you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again",
  skipped: (name: string, n: number | string) =>
    `deployment.apps/${name} skipped rollback (current template already matches revision ${n})`,
  rolledBack: (name: string) => `deployment.apps/${name} rolled back`,
  lastAppliedWarning: (resource: string) =>
    `Warning: resource ${resource} was previously managed with 'kubectl apply'. Rolling back will not update the kubectl.kubernetes.io/last-applied-configuration annotation, which may cause unexpected behavior on subsequent 'kubectl apply' operations.`,
} as const;

export const ROLLBACK_EVENTS = {
  rolledBack: (d: string, n: number) => ({
    type: 'Normal' as const,
    reason: 'DeploymentRollback',
    message: `Rolled back deployment "${d}" to revision ${n}`,
  }),
  lastRevisionNotFound: {
    type: 'Warning' as const,
    reason: 'DeploymentRollbackRevisionNotFound',
    message: 'Unable to find last revision.',
  },
  revisionNotFound: {
    type: 'Warning' as const,
    reason: 'DeploymentRollbackRevisionNotFound',
    message: 'Unable to find the revision to rollback to.',
  },
  templateUnchanged: (d: string) => ({
    type: 'Warning' as const,
    reason: 'DeploymentRollbackTemplateUnchanged',
    message: `The rollback revision contains the same template as current deployment "${d}"`,
  }),
} as const;

/**
 * The ReplicaSet `rollout undo --to-revision=toRevision` restores: revision N, or with 0 the
 * second-highest revision among all ReplicaSets (the new one included). Throws kubectl's errors.
 */
export function findRollbackTarget(deploymentName: string, rss: readonly ReplicaSet[], toRevision = 0): ReplicaSet {
  if (toRevision < 0) throw new Error(ROLLBACK_MESSAGES.revisionNotFound(toRevision));
  let latest: ReplicaSet | undefined;
  let latestRev = -1;
  let previous: ReplicaSet | undefined;
  let previousRev = -1;
  for (const rs of rss) {
    const v = revisionOf(rs);
    if (v === null) continue;
    if (toRevision > 0) {
      if (v === toRevision) return rs;
      continue;
    }
    if (v > latestRev) {
      previous = latest;
      previousRev = latestRev;
      latest = rs;
      latestRev = v;
    } else if (v > previousRev) {
      previous = rs;
      previousRev = v;
    }
  }
  if (toRevision > 0) throw new Error(ROLLBACK_MESSAGES.revisionNotFound(toRevision));
  if (!previous) throw new Error(ROLLBACK_MESSAGES.noHistory(deploymentName));
  return previous;
}

/** The ReplicaSet's pod template without the pod-template-hash label (a copy). */
export function templateWithoutHash(template: PodTemplateSpec | undefined): PodTemplateSpec {
  const t = structuredClone(template ?? {});
  if (t.metadata?.labels) {
    const labels = { ...t.metadata.labels };
    delete labels[POD_TEMPLATE_HASH_LABEL];
    t.metadata = { ...t.metadata, labels };
  }
  return t;
}

/** The Deployment's annotations after a rollback: its own skip-listed values plus the target's others. */
export function rollbackAnnotations(
  deployment: Record<string, string> | undefined,
  target: Record<string, string> | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(deployment ?? {})) if (skipCopyAnnotation(k)) out[k] = v;
  for (const [k, v] of Object.entries(target ?? {})) if (!skipCopyAnnotation(k)) out[k] = v;
  return out;
}

/** The legacy rollbackTo revision, or undefined when absent or not a number. */
export function rollbackToRevision(annotations: Record<string, string> | undefined): number | undefined {
  const v = annotations?.[ROLLBACK_TO_ANNOTATION];
  if (v === undefined) return undefined;
  return parseInt64(v) ?? undefined;
}

function clearRollbackTo(pass: DecisionPass): void {
  const a = { ...pass.annotations };
  delete a[ROLLBACK_TO_ANNOTATION];
  pass.annotations = a;
}

/**
 * The legacy server-side rollback on `pass` (after the new ReplicaSet was synced): copies the
 * target's template and annotations into the Deployment, or gives up with a warning; the
 * annotation is removed in every case (an `update` of the Deployment).
 */
export function rollbackFromAnnotation(pass: DecisionPass, allRSs: readonly ReplicaSet[], requested: number): void {
  const name = pass.d.metadata.name ?? '';
  const revision = requested === 0 ? lastRevision(allRSs) : requested;
  if (revision === 0) {
    pass.events.push(ROLLBACK_EVENTS.lastRevisionNotFound);
    clearRollbackTo(pass);
    return;
  }
  const target = allRSs.find((rs) => revisionOf(rs) === revision);
  if (!target) {
    pass.events.push(ROLLBACK_EVENTS.revisionNotFound);
    clearRollbackTo(pass);
    return;
  }
  if (equalIgnoreHash(pass.d.spec.template, target.spec.template)) {
    pass.events.push(ROLLBACK_EVENTS.templateUnchanged(name));
    clearRollbackTo(pass);
    return;
  }
  clearRollbackTo(pass);
  rollbackTo(pass, target, revision);
}

/**
 * The Deployment's template and annotations become `target`'s (revision `revision`): an `update` of
 * the Deployment with the DeploymentRollback event. Its next pass rolls out to that ReplicaSet, which
 * becomes revision n + 1, as `kubectl rollout undo` has it.
 */
export function rollbackTo(pass: DecisionPass, target: ReplicaSet, revision: number): void {
  pass.template = templateWithoutHash(target.spec.template);
  pass.annotations = rollbackAnnotations(pass.annotations, target.metadata.annotations);
  pass.deploymentUpdateEvent = ROLLBACK_EVENTS.rolledBack(pass.d.metadata.name ?? '', revision);
}
