// A Deployment's analysis runs (docs/semantics/analysis.md#a-rollout-under-analysis): which run
// judges a revision (its background run, or a canary step's: one per step), the attempt the next
// one takes (`kubectl pacer rollout retry` starts a new attempt), and the run built from the
// templates with the Deployment's arguments resolved (build.ts). Pure.

import type { AnalysisRun } from '../../api/analysis.ts';
import {
  RUN_ATTEMPT_LABEL,
  RUN_CANARY_STEP_LABEL,
  RUN_DEPLOYMENT_LABEL,
  RUN_TEMPLATE_HASH_LABEL,
} from '../../api/analysis.ts';
import type { Deployment, ReplicaSet } from '../../api/types.ts';
import { newControllerRef } from '../kubernetes/claim.ts';
import { POD_TEMPLATE_HASH_LABEL } from '../kubernetes/hash.ts';
import { REVISION_ANNOTATION } from '../kubernetes/annotations.ts';
import type { AnalysisInputs } from '../types.ts';
import { runFromTemplates } from './build.ts';

export const hashOf = (rs: ReplicaSet | undefined) => rs?.metadata.labels?.[POD_TEMPLATE_HASH_LABEL];

const attemptOf = (r: AnalysisRun) => Number.parseInt(r.metadata.labels?.[RUN_ATTEMPT_LABEL] ?? '0', 10) || 0;

/** `kubectl pacer rollout retry`: the name of the run retried (that run and the ones before it no longer count). */
export const RETRY_ANNOTATION = 'pacer.dev/analysis-retry';
/** `kubectl pacer rollout abort`: the pod-template-hash of the revision a person aborted. */
export const ABORT_ANNOTATION = 'pacer.dev/abort';

/** The canary step a run judges (undefined: the background run). */
export function stepOf(r: AnalysisRun): number | undefined {
  const v = r.metadata.labels?.[RUN_CANARY_STEP_LABEL];
  return v === undefined ? undefined : Number.parseInt(v, 10);
}

/** The runs that judge the revision with pod-template-hash `hash`: its background run's, or canary step `step`'s. */
function runsFor(runs: readonly AnalysisRun[], hash: string, step?: number): AnalysisRun[] {
  return runs.filter((r) => r.metadata.labels?.[RUN_TEMPLATE_HASH_LABEL] === hash && stepOf(r) === step);
}

/**
 * The run that judges the revision with pod-template-hash `hash` (at canary step `step`, or in the
 * background): the latest attempt, unless it (or a later one) was retried (`retried`: the run named
 * by the retry annotation): then none until the next attempt starts.
 */
export function currentRun(
  runs: readonly AnalysisRun[],
  hash: string | undefined,
  retried?: string,
  step?: number,
): AnalysisRun | undefined {
  if (hash === undefined) return undefined;
  const mine = runsFor(runs, hash, step);
  const gone = mine.find((r) => r.metadata.name === retried);
  let best: AnalysisRun | undefined;
  for (const r of mine) if (!best || attemptOf(r) > attemptOf(best)) best = r;
  return best && gone && attemptOf(best) <= attemptOf(gone) ? undefined : best;
}

/** The attempt the next run of revision `hash` (at `step`) takes: one more than the latest (1 for the first). */
export function nextAttempt(runs: readonly AnalysisRun[], hash: string, step?: number): number {
  return runsFor(runs, hash, step).reduce((n, r) => Math.max(n, attemptOf(r)), 0) + 1;
}

/** A Deployment's field for an argument's fieldRef (validation admits only these paths). */
function fieldValue(d: Deployment, path: string): string | undefined {
  if (path === 'metadata.name') return d.metadata.name;
  if (path === 'metadata.namespace') return d.metadata.namespace ?? 'default';
  const m = /^metadata\.(labels|annotations)\['([^']*)'\]$/.exec(path);
  if (m) return (m[1] === 'labels' ? d.metadata.labels : d.metadata.annotations)?.[m[2]];
  return undefined;
}

/**
 * The run for the new revision `hash` (attempt `attempt`), or why it cannot be built (with field
 * paths): the background run from spec.analysis.templates, or with `step` the run of that canary
 * step from spec.analysis.canarySteps.templates (its metrics must end: each needs a count).
 */
export function buildRun(
  d: Deployment,
  inputs: AnalysisInputs,
  hash: string,
  stable: string | undefined,
  revision: string | undefined,
  attempt: number,
  step?: number,
): { run: AnalysisRun } | { error: string } {
  const a = d.spec.analysis;
  if (!a) return { error: 'spec.analysis: Required value' };
  const args: Array<{ name: string; value: string }> = [];
  for (const [i, given] of (a.args ?? []).entries()) {
    let value = given.value;
    const from = given.valueFrom;
    if (from?.podTemplateHashValue === 'Latest') value = hash;
    else if (from?.podTemplateHashValue === 'Stable') value = stable;
    else if (from?.fieldRef) value = fieldValue(d, from.fieldRef.fieldPath);
    if (value === undefined)
      return {
        error: `spec.analysis.args[${i}].valueFrom: Invalid value: ${JSON.stringify(from)}: gives no value for argument ${JSON.stringify(given.name)}`,
      };
    args.push({ name: given.name, value });
  }
  const list = step === undefined ? 'spec.analysis.templates' : 'spec.analysis.canarySteps.templates';
  const templates = (step === undefined ? inputs.templates : (inputs.stepTemplates ?? [])).map((t, i) => ({
    ...t,
    field: `${list}[${i}].templateName`,
  }));
  const name = d.metadata.name ?? '';
  return runFromTemplates({
    templates,
    args,
    argsField: 'spec.analysis.args',
    bounded: step !== undefined,
    metadata: {
      name: step === undefined ? `${name}-${hash}-${attempt}` : `${name}-${hash}-step${step}-${attempt}`,
      namespace: d.metadata.namespace,
      labels: {
        [RUN_DEPLOYMENT_LABEL]: name,
        [RUN_TEMPLATE_HASH_LABEL]: hash,
        [RUN_ATTEMPT_LABEL]: String(attempt),
        ...(step !== undefined ? { [RUN_CANARY_STEP_LABEL]: String(step) } : {}),
      },
      ...(revision !== undefined ? { annotations: { [REVISION_ANNOTATION]: revision } } : {}),
      ownerReferences: [newControllerRef(d)],
    },
  });
}
