// What an undo would change: the Deployment's pod template now against the one a revision's
// ReplicaSet keeps, or what changed between any two revisions (their ReplicaSets' templates), both as YAML compared line by line as `diff` compares files (a longest common
// subsequence; removed lines before added ones where both change). Both sides are read as the
// controller compares templates (engine/kubernetes/template.ts): the ReplicaSet's
// `pod-template-hash` label left out (the undo leaves it out too), the API server's pod defaults
// applied to both (a pacer.dev Deployment's template is stored as written, a ReplicaSet's
// defaulted), and empty members (null, {}, []) dropped, so that only what differs shows. Pure.

import { stringify } from 'yaml';
import { podSpecWithDefaults } from '../api/poddefaults.ts';
import type { Deployment, PodTemplateSpec, ReplicaSet } from '../api/types.ts';
import { templateWithoutHash } from '../engine/index.ts';
import type { DiffLine } from './api.ts';
import { replicaSetView } from './model.ts';

/** `v` without its empty members (null, undefined, {} and [] at any depth), as semantic equality reads it. */
function pruned(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(pruned);
  if (typeof v !== 'object' || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const p = pruned(x);
    const empty =
      p === undefined ||
      p === null ||
      (Array.isArray(p) && p.length === 0) ||
      (typeof p === 'object' && !Array.isArray(p) && Object.keys(p as object).length === 0);
    if (!empty) out[k] = p;
  }
  return out;
}

/**
 * The template as YAML lines, as the controller compares it: without pod-template-hash, with the
 * pod defaults, without empty members, keys sorted (two templates line up whatever order they were
 * stored in).
 */
export function templateLines(t: PodTemplateSpec | undefined): string[] {
  const plain = templateWithoutHash(t);
  const read = { ...plain, spec: podSpecWithDefaults(plain.spec) };
  return stringify(pruned(read), { sortMapEntries: true, lineWidth: 0 }).trimEnd().split('\n');
}

/**
 * `from` turned into `to`, line by line: the lines both keep (`same`), those only `from` has
 * (`remove`) and those only `to` has (`add`), in order; where a run of lines changes, its removed
 * lines come first.
 */
export function lineDiff(from: readonly string[], to: readonly string[]): DiffLine[] {
  const n = from.length;
  const m = to.length;
  // lcs[i][j]: the longest common subsequence of from[i..] and to[j..].
  const lcs = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i][j] = from[i] === to[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && from[i] === to[j]) {
      out.push({ op: 'same', text: from[i] });
      i++;
      j++;
    } else if (i < n && (j === m || lcs[i + 1][j] >= lcs[i][j + 1])) {
      out.push({ op: 'remove', text: from[i] });
      i++;
    } else {
      out.push({ op: 'add', text: to[j] });
      j++;
    }
  }
  return out;
}

/** What rolling back from the template `now` to the template `then` changes. */
export function templateDiff(now: PodTemplateSpec | undefined, then: PodTemplateSpec | undefined): DiffLine[] {
  return lineDiff(templateLines(now), templateLines(then));
}

/**
 * The pod templates of `revisions` of Deployment `d`, each from the ReplicaSet of `replicaSets` that
 * `d` controls (by uid) and whose revision annotation is that number; or the first revision asked for
 * that none has (`unable to find specified revision N in history`, upstream's words, is the caller's).
 */
export function revisionTemplates(
  d: Deployment,
  replicaSets: readonly ReplicaSet[],
  revisions: readonly number[],
): Map<number, { replicaSet: string; template: PodTemplateSpec | undefined }> | { missing: number } {
  const byRevision = new Map<number, { replicaSet: string; template: PodTemplateSpec | undefined }>();
  for (const rs of replicaSets) {
    const v = replicaSetView(rs);
    if (!v || v.deploymentUid !== d.metadata.uid || v.revision === null || !revisions.includes(v.revision)) continue;
    byRevision.set(v.revision, { replicaSet: v.name, template: rs.spec.template });
  }
  const missing = revisions.find((r) => !byRevision.has(r));
  return missing === undefined ? byRevision : { missing };
}
