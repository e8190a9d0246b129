// Analysis at a node roll's health gate (docs/semantics/node-roll.md#analysis-at-the-health-gate):
// after each node, once the workloads are healthy, a run of spec.healthGate.analysis's templates
// judges the cluster, and the node is done only once that run is Successful. Which run a node waits
// for (named from the roll, the node and the attempt, so that a restarted controller finds it),
// the run built from the templates (engine/analysis/build.ts, shared with a Deployment's rollout),
// and what the node's gate makes of it. Pure: the runs are read, never remembered.

import type { AnalysisPhase, AnalysisRun } from '../../api/analysis.ts';
import { RUN_ATTEMPT_LABEL, RUN_NODE_LABEL, RUN_NODEROLL_LABEL } from '../../api/analysis.ts';
import type { NodeRollAnalysisReason } from '../../api/noderoll.ts';
import { NODEROLL_KIND } from '../../api/noderoll.ts';
import { labelValueErrors } from '../../api/names.ts';
import { API_VERSION } from '../../api/types.ts';
import { runFromTemplates } from '../analysis/build.ts';
import { fnv1a32 } from '../kubernetes/hash.ts';
import type { NodeProgress, RollAnalysis } from './types.ts';

/** The node a run judges the cluster after, in full (its label holds it only when it fits a label value). */
export const RUN_NODE_ANNOTATION = 'pacer.dev/node';

/** What a node's analysis asks of the pass. */
export type NodeGate =
  /** The run is Successful, or a person skipped the node's analysis. */
  | { kind: 'passed'; run?: string }
  /** No run yet for this attempt: make it. */
  | { kind: 'start'; run: AnalysisRun }
  /** The run measures: wait for it (it ends by itself: every metric has a count). */
  | { kind: 'measuring'; run: string; phase: AnalysisPhase }
  /** Pause for a person: the run ended badly, or none can be made. */
  | { kind: 'pause'; reason: NodeRollAnalysisReason; message: string; run?: string };

const MAX_NAME = 253;

/**
 * The run that judges attempt `attempt` after `node`: `<roll>-<node>-<attempt>`. A name that would
 * be longer than an object name may be is cut and made unique again with a hash of roll and node.
 */
export function nodeRunName(roll: string, node: string, attempt: number): string {
  const full = `${roll}-${node}-${attempt}`;
  if (full.length <= MAX_NAME) return full;
  const hash = fnv1a32(new TextEncoder().encode(`${roll}/${node}`))
    .toString(16)
    .padStart(8, '0');
  const tail = `-${hash}-${attempt}`;
  return `${full.slice(0, MAX_NAME - tail.length).replace(/[-.]+$/, '')}${tail}`;
}

/** The attempt a node's gate waits for (1 until a person resumes after a run that ended badly). */
export const attemptOf = (p: NodeProgress): number => p.analysis?.attempt ?? 1;

/** The run of attempt `attempt` after `node`, or why it cannot be made (with the field path). */
export function buildNodeRun(a: RollAnalysis, node: string, attempt: number): { run: AnalysisRun } | { error: string } {
  const args: Array<{ name: string; value: string }> = [];
  for (const [i, given] of a.args.entries()) {
    const value = given.valueFrom?.nodeName === true ? node : given.value;
    if (value === undefined)
      return {
        error: `spec.healthGate.analysis.args[${i}]: Required value: argument ${JSON.stringify(given.name)} has neither value nor valueFrom.nodeName`,
      };
    args.push({ name: given.name, value });
  }
  return runFromTemplates({
    templates: a.templates,
    args,
    argsField: 'spec.healthGate.analysis.args',
    // The next node waits for it: it must end by itself.
    bounded: true,
    metadata: {
      name: nodeRunName(a.roll.name, node, attempt),
      namespace: a.namespace,
      labels: {
        [RUN_NODEROLL_LABEL]: a.roll.name,
        ...(labelValueErrors(node).length === 0 ? { [RUN_NODE_LABEL]: node } : {}),
        [RUN_ATTEMPT_LABEL]: String(attempt),
      },
      annotations: { [RUN_NODE_ANNOTATION]: node },
      // Deleted with the roll. No blockOwnerDeletion: that would need the right to update the
      // NodeRoll's finalizers, and nothing waits for a run to go before the roll does.
      ownerReferences: [
        { apiVersion: API_VERSION, kind: NODEROLL_KIND, name: a.roll.name, uid: a.roll.uid ?? '', controller: true },
      ],
    },
  });
}

const ENDED_BADLY: Partial<Record<AnalysisPhase, { reason: NodeRollAnalysisReason; words: string }>> = {
  Failed: { reason: 'AnalysisFailed', words: 'failed' },
  Error: { reason: 'AnalysisFailed', words: 'errored' },
  Inconclusive: { reason: 'AnalysisInconclusive', words: 'was inconclusive' },
};

/**
 * The gate's analysis for node `p` (at Deregistered, its workloads healthy or its run already
 * started): passed when skipped or when its run is Successful; the run to make when there is none
 * for its attempt; a pause when the run ended Failed, Error or Inconclusive, or cannot be made.
 */
export function nodeGate(a: RollAnalysis, p: NodeProgress): NodeGate {
  if (p.analysis?.skipped) return { kind: 'passed' };
  const attempt = attemptOf(p);
  const name = nodeRunName(a.roll.name, p.name, attempt);
  const run = a.runs.find((r) => r.metadata.name === name);
  if (!run) {
    if (a.unavailable !== undefined)
      return {
        kind: 'pause',
        reason: 'AnalysisInvalid',
        message: `node ${p.name}: the analysis cannot start: spec.healthGate.analysis: ${a.unavailable}`,
      };
    const built = buildNodeRun(a, p.name, attempt);
    if ('error' in built)
      return {
        kind: 'pause',
        reason: 'AnalysisInvalid',
        message: `node ${p.name}: the analysis cannot start: ${built.error}`,
      };
    return { kind: 'start', run: built.run };
  }
  const phase = run.status?.phase ?? 'Pending';
  if (phase === 'Successful') return { kind: 'passed', run: name };
  const bad = ENDED_BADLY[phase];
  if (bad)
    return {
      kind: 'pause',
      reason: bad.reason,
      run: name,
      message: `node ${p.name}: analysis run ${a.namespace}/${name} ${bad.words}${run.status?.message ? `: ${run.status.message}` : ''}`,
    };
  return { kind: 'measuring', run: name, phase };
}
