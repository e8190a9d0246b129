// An operator's requests on a node roll (docs/semantics/node-roll.md; `kubectl pacer node-roll
// resume [--skip-analysis]|skip`), carried out on the checkpoint before the decision. Each is safe to carry out twice:
// the plugin writes it as an annotation and the controller clears it once the status is stored.

import { restartClocks } from './checkpoint.ts';
import type { RollCheckpoint } from './types.ts';

/** An operator's requests on a NodeRoll, as annotations the plugin writes and the controller clears once carried out. */
export const RESUME_ANNOTATION = 'pacer.dev/resume';
export const SKIP_ANNOTATION = 'pacer.dev/skip';
/** resume --skip-analysis: the node (named) whose analysis paused the roll passes its gate without a run. */
export const SKIP_ANALYSIS_ANNOTATION = 'pacer.dev/skip-analysis';

/**
 * resume: the pause is lifted and every wait under way starts its clock again. A pause on a node's
 * run that ended badly also moves that node on to its next attempt (a new run), or with
 * `skipAnalysis` lets it pass its gate without one; a pause on an analysis that could not start
 * tries the same attempt again.
 */
export function resumeRoll(cp: RollCheckpoint, now: number, o: { skipAnalysis?: boolean } = {}): RollCheckpoint {
  const { paused, ...rest } = restartClocks(cp, now);
  if (paused?.wait !== 'analysis' || paused.node === undefined || !rest.nodes) return rest;
  const next = (attempt: number) =>
    o.skipAnalysis ? { attempt, skipped: true } : { attempt: paused.run !== undefined ? attempt + 1 : attempt };
  return {
    ...rest,
    nodes: rest.nodes.map((n) => (n.name === paused.node ? { ...n, analysis: next(n.analysis?.attempt ?? 1) } : n)),
  };
}

/**
 * skip NODE: a node whose drain is blocked goes back to Pending and to the end of the order (it
 * stays cordoned; what it still runs stays); the roll goes on with the others and comes back to it.
 * Only a node not yet terminated (in place: not yet drained) can be skipped.
 */
export function skipNode(
  cp: RollCheckpoint,
  node: string,
  now: number,
): { checkpoint?: RollCheckpoint; error?: string } {
  const p = cp.nodes?.find((n) => n.name === node);
  if (!p) return { error: `node ${node} is not one of the roll's original nodes` };
  if (cp.paused?.wait === 'analysis' && cp.paused.node === node)
    return {
      error: `node ${node} has been replaced and the roll is paused on its analysis: resume starts a new run, resume --skip-analysis lets it by`,
    };
  if (p.step !== 'Pending' && p.step !== 'Draining')
    return {
      error: `node ${node} is already ${p.step === 'Done' ? 'done' : p.step === 'Drained' ? 'drained (in place)' : 'being terminated'}`,
    };
  const resumed = cp.paused?.node === node ? resumeRoll(cp, now) : cp;
  return {
    checkpoint: {
      ...resumed,
      skipped: [...new Set([...(cp.skipped ?? []), node])],
      nodes: resumed.nodes!.map((n) => (n.name === node ? { name: node, step: 'Pending', since: now } : n)),
    },
  };
}

/**
 * The checkpoint after the operator's requests (skip of the nodes named, comma-separated; skipping
 * the analysis of the node it paused on; resume),
 * and what could not be done. Carrying a request out twice changes nothing more.
 */
export function applyRequests(
  cp: RollCheckpoint,
  annotations: Readonly<Record<string, string>> | undefined,
  now: number,
): { checkpoint: RollCheckpoint; errors: string[]; handled: string[] } {
  let out = cp;
  const errors: string[] = [];
  const handled: string[] = [];
  const skip = annotations?.[SKIP_ANNOTATION];
  if (skip !== undefined) {
    handled.push(SKIP_ANNOTATION);
    for (const node of skip
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x !== '')) {
      const r = skipNode(out, node, now);
      if (r.checkpoint) out = r.checkpoint;
      else errors.push(r.error!);
    }
  }
  const skipAnalysis = annotations?.[SKIP_ANALYSIS_ANNOTATION];
  if (skipAnalysis !== undefined) {
    handled.push(SKIP_ANALYSIS_ANNOTATION);
    const node = skipAnalysis.trim();
    const already = out.nodes?.find((n) => n.name === node)?.analysis?.skipped === true;
    if (out.paused?.wait === 'analysis' && out.paused.node === node) out = resumeRoll(out, now, { skipAnalysis: true });
    // Carried out already (a crash before the annotation was cleared): nothing more to do.
    else if (!already)
      errors.push(
        `skip-analysis ${node}: the roll is not paused on the analysis of node ${node}${out.paused?.node ? ` (it is paused on node ${out.paused.node}: ${out.paused.wait})` : ''}`,
      );
  }
  if (annotations?.[RESUME_ANNOTATION] !== undefined) {
    handled.push(RESUME_ANNOTATION);
    if (out.paused) out = resumeRoll(out, now);
  }
  return { checkpoint: out, errors, handled };
}
