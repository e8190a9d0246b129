// `kubectl pacer analysis list|show` and `kubectl pacer rollout retry|abort NAME`
// (docs/semantics/analysis.md#commands): the AnalysisRuns that judge a Deployment's revisions, read
// from the API server; retry and abort are the annotations the engine reads on every pass
// (pacer.dev/analysis-retry naming the run retried, pacer.dev/abort naming the revision aborted),
// written with a merge patch guarded by the resourceVersion they were decided on.

import type { AnalysisPhase, AnalysisRun, Measurement, Metric, MetricResult } from '../api/analysis.ts';
import {
  ANALYSIS_RUN_PLURAL,
  RUN_ATTEMPT_LABEL,
  RUN_DEPLOYMENT_LABEL,
  RUN_TEMPLATE_HASH_LABEL,
} from '../api/analysis.ts';
import { controllerOf } from '../api/owners.ts';
import type { Deployment, ReplicaSet } from '../api/types.ts';
import { GROUP } from '../api/types.ts';
import {
  ABORT_ANNOTATION,
  RETRY_ANNOTATION,
  REVISION_ANNOTATION,
  currentRun,
  stepOf,
  isCompleted,
  newReplicaSetOf,
} from '../engine/index.ts';
import { ANALYSIS_RUNS } from '../kube/client.ts';
import { KubeError } from '../kube/errors.ts';
import { PluginError, crdMissing } from './errors.ts';
import { untilNotStale } from './stale.ts';
import { PACER_KIND, deploymentAsEngineReads, kindOf } from './target.ts';
import type { DeploymentKind } from './target.ts';
import { age, tabwrite } from './format.ts';
import { ownedReplicaSets } from './history.ts';
import type { Session } from './options.ts';
import { crdInstalled, printData, printList } from './options.ts';

/** The AnalysisRun resource as kubectl names it in errors: `analysisruns.pacer.dev`. */
export const RUN_RESOURCE = `${ANALYSIS_RUN_PLURAL}.${GROUP}`;

/** Kubernetes' label on a ReplicaSet (and its pods) naming its template's hash. */
const POD_TEMPLATE_HASH = 'pod-template-hash';

/** A run's phase glyph, in the words of `kubectl pacer get` (Argo Rollouts' for analysis). */
export const RUN_SYMBOL: Record<AnalysisPhase, string> = {
  Pending: '◌',
  Running: '◌',
  Successful: '✔',
  Failed: '✖',
  Error: '⚠',
  Inconclusive: '?',
};

export const phaseOf = (r: AnalysisRun): AnalysisPhase => r.status?.phase ?? 'Pending';

/** A run that ended without success: its message is worth showing. */
export const endedBadly = (r: AnalysisRun): boolean => ['Failed', 'Error', 'Inconclusive'].includes(phaseOf(r));

/** The pod-template-hash of the revision the spec asks for (the engine's new ReplicaSet), if it exists yet. */
export function newRevision(d: Deployment, rss: readonly ReplicaSet[]): { rs: ReplicaSet; hash: string } | undefined {
  const rs = newReplicaSetOf(d, { replicaSets: [...rss] });
  const hash = rs?.metadata.labels?.[POD_TEMPLATE_HASH];
  return rs && hash !== undefined ? { rs, hash } : undefined;
}

/** The runs `d` controls, as the engine reads them (labelled with its name, controlled by its uid). */
export async function runsOf(s: Session, d: Deployment): Promise<AnalysisRun[]> {
  let items: AnalysisRun[];
  try {
    items = (
      await s.client.list<AnalysisRun>(ANALYSIS_RUNS, s.namespace, {
        labelSelector: `${RUN_DEPLOYMENT_LABEL}=${d.metadata.name ?? ''}`,
      })
    ).items;
  } catch (err) {
    // A list of a resource the server serves does not answer 404: the analysis CRDs are not installed.
    if (err instanceof KubeError && err.kind === 'NotFound' && !(await crdInstalled(s.client, ANALYSIS_RUN_PLURAL)))
      throw new PluginError(crdMissing(ANALYSIS_RUN_PLURAL));
    throw err;
  }
  return items.filter((r) => controllerOf(r)?.uid === d.metadata.uid);
}

// ---------------------------------------------------------------------------------------------
// rollout retry | abort

const quoted = (name: string, k: DeploymentKind = PACER_KIND) => `${k.resource} "${name}"`;

export const ANALYSIS_MESSAGES = {
  retried: (name: string, run: string, k: DeploymentKind = PACER_KIND) =>
    `${k.prefix}${name} retried (analysis run ${run})`,
  aborted: (name: string, k: DeploymentKind = PACER_KIND) => `${k.prefix}${name} aborted`,
  noAnalysis: (name: string, verb: 'retry' | 'abort', k: DeploymentKind = PACER_KIND) => {
    const field = k.native ? 'annotation pacer.dev/analysis' : 'spec.analysis';
    return verb === 'retry'
      ? `${quoted(name, k)} has no analysis (${field}): nothing to retry`
      : `${quoted(name, k)} has no analysis (${field}): nothing to abort (kubectl pacer rollout undo changes the spec instead)`;
  },
  noTemplates: (name: string) =>
    `${quoted(name)} runs no analysis templates (spec.analysis.templates is empty): nothing to retry`,
  noRevision: (name: string, verb: 'retry' | 'abort') =>
    `${quoted(name)} has no ReplicaSet for its template yet: nothing to ${verb}`,
  noRun: (name: string, hash: string) =>
    `${quoted(name)} has no analysis run for its new revision (pod-template-hash ${hash}) yet: nothing to retry`,
  alreadyRetried: (name: string, run: string) =>
    `analysis run ${run} of ${quoted(name)} was already retried: the next attempt starts once enough new replicas are available`,
  notEnded: (run: string, phase: AnalysisPhase) =>
    `analysis run ${run} is still ${phase}: nothing to retry (only a run that ended Failed, Error or Inconclusive)`,
  successful: (run: string) => `analysis run ${run} was Successful: nothing to retry`,
  noStable: (name: string, k: DeploymentKind = PACER_KIND) =>
    `${quoted(name, k)} has no stable revision to go back to (${k.native ? 'annotation pacer.dev/stable-rs' : 'status.stableRS'} is unset or is the new revision): kubectl pacer rollout undo changes the spec instead`,
  alreadyAborted: (name: string, k: DeploymentKind = PACER_KIND) => `${quoted(name, k)} is already aborted`,
  stableGone: (hash: string) =>
    `Warning: the stable revision's ReplicaSet (pod-template-hash ${hash}) is gone: the rollout will be paused instead of going back`,
} as const;

/** The merge patch that retries the run judging the new revision, and that run; or why not. Pure. */
export function retryPatch(
  d: Deployment,
  rss: readonly ReplicaSet[],
  runs: readonly AnalysisRun[],
): { patch: unknown; run: string } {
  const name = d.metadata.name ?? '';
  const a = d.spec.analysis;
  if (!a) throw new PluginError(ANALYSIS_MESSAGES.noAnalysis(name, 'retry', kindOf(d)));
  if ((a.templates ?? []).length === 0 && !a.canarySteps) throw new PluginError(ANALYSIS_MESSAGES.noTemplates(name));
  const revision = newRevision(d, rss);
  if (!revision) throw new PluginError(ANALYSIS_MESSAGES.noRevision(name, 'retry'));
  const retried = d.metadata.annotations?.[RETRY_ANNOTATION];
  // The background run, and each canary step's (analysis/canary.ts): the one that ended badly is retried.
  const steps = [
    ...new Set(
      runs
        .filter((r) => r.metadata.labels?.[RUN_TEMPLATE_HASH_LABEL] === revision.hash)
        .flatMap((r) => stepOf(r) ?? []),
    ),
  ].sort((x, y) => x - y);
  const current = [undefined, ...steps].flatMap((step) => currentRun(runs, revision.hash, retried, step) ?? []);
  const bad = current.filter((r) => isCompleted(phaseOf(r)) && phaseOf(r) !== 'Successful');
  const run = bad.at(-1) ?? current.find((r) => stepOf(r) === undefined) ?? current.at(-1);
  if (!run) {
    if (
      retried !== undefined &&
      runs.some((r) => r.metadata.name === retried && r.metadata.labels?.[RUN_TEMPLATE_HASH_LABEL] === revision.hash)
    )
      throw new PluginError(ANALYSIS_MESSAGES.alreadyRetried(name, retried));
    throw new PluginError(ANALYSIS_MESSAGES.noRun(name, revision.hash));
  }
  const runName = run.metadata.name ?? '';
  const phase = phaseOf(run);
  if (!isCompleted(phase)) throw new PluginError(ANALYSIS_MESSAGES.notEnded(runName, phase));
  if (phase === 'Successful') throw new PluginError(ANALYSIS_MESSAGES.successful(runName));
  return {
    patch: { metadata: { resourceVersion: d.metadata.resourceVersion, annotations: { [RETRY_ANNOTATION]: runName } } },
    run: runName,
  };
}

/** The merge patch that aborts the new revision (back to status.stableRS), a warning if any; or why not. Pure. */
export function abortPatch(d: Deployment, rss: readonly ReplicaSet[]): { patch: unknown; warning?: string } {
  const name = d.metadata.name ?? '';
  const k = kindOf(d);
  if (!d.spec.analysis) throw new PluginError(ANALYSIS_MESSAGES.noAnalysis(name, 'abort', k));
  const revision = newRevision(d, rss);
  if (!revision) throw new PluginError(ANALYSIS_MESSAGES.noRevision(name, 'abort'));
  const stable = d.status?.stableRS;
  if (stable === undefined || stable === revision.hash) throw new PluginError(ANALYSIS_MESSAGES.noStable(name, k));
  if (d.metadata.annotations?.[ABORT_ANNOTATION] === revision.hash)
    throw new PluginError(ANALYSIS_MESSAGES.alreadyAborted(name, k));
  const gone = !rss.some((rs) => rs.metadata.labels?.[POD_TEMPLATE_HASH] === stable);
  return {
    patch: {
      metadata: { resourceVersion: d.metadata.resourceVersion, annotations: { [ABORT_ANNOTATION]: revision.hash } },
    },
    ...(gone ? { warning: ANALYSIS_MESSAGES.stableGone(stable) } : {}),
  };
}

/**
 * Reads Deployment `name`, decides its patch with `decide`, and sends it. The patch carries the
 * resourceVersion it was decided on, and the controller writes the Deployment all the time (its
 * status too): a patch that lost such a race (409) is decided again from a fresh read
 * (untilNotStale, as rollout undo does).
 */
export async function patchDecided<R extends { patch: unknown }>(
  s: Session,
  name: string,
  decide: (d: Deployment) => Promise<R>,
): Promise<R> {
  return untilNotStale(async () => {
    // An apps/v1 Deployment (native mode) as the engine reads it: its analysis and stable revision are annotations.
    const decided = await decide(deploymentAsEngineReads(await s.client.getDeployment(s.namespace, name), s.kind));
    await s.client.patchDeployment(s.namespace, name, decided.patch);
    return decided;
  });
}

export async function runRolloutRetry(s: Session, name: string): Promise<number> {
  const done = await patchDecided(s, name, async (d) => {
    // Nothing to read when there is no analysis: the error says so without asking for runs.
    if (!d.spec.analysis) return retryPatch(d, [], []);
    return retryPatch(d, await ownedReplicaSets(s, d), await runsOf(s, d));
  });
  s.io.stdout.write(`${ANALYSIS_MESSAGES.retried(name, done.run, s.kind)}\n`);
  return 0;
}

export async function runRolloutAbort(s: Session, name: string): Promise<number> {
  const done = await patchDecided(s, name, async (d) =>
    abortPatch(d, d.spec.analysis ? await ownedReplicaSets(s, d) : []),
  );
  if (done.warning) s.io.stderr.write(`${done.warning}\n`);
  s.io.stdout.write(`${ANALYSIS_MESSAGES.aborted(name, s.kind)}\n`);
  return 0;
}

// ---------------------------------------------------------------------------------------------
// analysis list

/** Measurements a run took: the sum of its metrics' counts (errors are not counted, as in count). */
export function measurementsOf(r: AnalysisRun): number {
  return (r.status?.metricResults ?? []).reduce((n, m) => n + (m.count ?? 0), 0);
}

/** The table for `runs` (sorted by namespace, then name); `allNamespaces` adds NAMESPACE. Pure. */
export function runsTable(runs: readonly AnalysisRun[], allNamespaces: boolean, now: number): string {
  const sorted = [...runs].sort(
    (a, b) =>
      (a.metadata.namespace ?? '').localeCompare(b.metadata.namespace ?? '') ||
      (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''),
  );
  const head = ['NAME', 'DEPLOYMENT', 'REVISION', 'PHASE', 'MEASUREMENTS', 'AGE'];
  const lines = [(allNamespaces ? ['NAMESPACE', ...head] : head).join('\t')];
  for (const r of sorted) {
    const cells = [
      r.metadata.name ?? '',
      r.metadata.labels?.[RUN_DEPLOYMENT_LABEL] ?? '<none>',
      r.metadata.annotations?.[REVISION_ANNOTATION] ?? '<none>',
      phaseOf(r),
      String(measurementsOf(r)),
      age(r.metadata.creationTimestamp, now),
    ];
    lines.push((allNamespaces ? [r.metadata.namespace ?? '', ...cells] : cells).join('\t'));
  }
  return tabwrite(`${lines.join('\n')}\n`, { minwidth: 6, padding: 3 });
}

export async function runAnalysisList(
  s: Session,
  o: { allNamespaces: boolean; output?: string; now?: () => number },
): Promise<number> {
  const list = await s.client.list<AnalysisRun>(ANALYSIS_RUNS, o.allNamespaces ? undefined : s.namespace);
  return printList(s, list, o, (items) => runsTable(items, o.allNamespaces, (o.now ?? Date.now)()));
}

// ---------------------------------------------------------------------------------------------
// analysis show

/** The provider of `m` and what it asks, one line each. */
function providerLines(m: Metric): Array<[string, string]> {
  const p = m.provider ?? {};
  if (p.prometheus)
    return [
      ['Provider', `prometheus ${p.prometheus.address}`],
      ['Query', p.prometheus.query],
    ];
  if (p.web) {
    const lines: Array<[string, string]> = [['Provider', `web ${p.web.method ?? 'GET'} ${p.web.url}`]];
    if (p.web.jsonPath) lines.push(['JSONPath', p.web.jsonPath]);
    return lines;
  }
  if (p.job) {
    const spec = p.job.spec as { template?: { spec?: { containers?: Array<{ image?: string }> } } };
    const images = (spec.template?.spec?.containers ?? []).map((c) => c.image ?? '').filter(Boolean);
    return [['Provider', `job${images.length > 0 ? ` (${images.join(', ')})` : ''}`]];
  }
  return [['Provider', '<none>']];
}

const text = (v: unknown) => String(v);

/** The metric's schedule and limits as set, with the limits' defaults (docs/semantics/analysis.md#a-metric). */
function limitLines(m: Metric): Array<[string, string]> {
  const schedule: string[] = [];
  if (m.interval !== undefined) schedule.push(`interval ${m.interval}`);
  if (m.count !== undefined) schedule.push(`count ${text(m.count)}`);
  if (m.initialDelay !== undefined) schedule.push(`initialDelay ${m.initialDelay}`);
  const limits = [
    `failureLimit ${text(m.failureLimit ?? 0)}`,
    `inconclusiveLimit ${text(m.inconclusiveLimit ?? 0)}`,
    `consecutiveErrorLimit ${text(m.consecutiveErrorLimit ?? 4)}`,
  ];
  if (m.consecutiveSuccessLimit !== undefined)
    limits.push(`consecutiveSuccessLimit ${text(m.consecutiveSuccessLimit)}`);
  return [
    ['Schedule', schedule.length > 0 ? schedule.join(', ') : 'one measurement'],
    ['Limits', limits.join(', ')],
  ];
}

function conditionLines(m: Metric): Array<[string, string]> {
  if (m.successCondition === undefined && m.failureCondition === undefined)
    return [['Conditions', '<none> (every measurement is Successful)']];
  const lines: Array<[string, string]> = [];
  if (m.successCondition !== undefined) lines.push(['Success', m.successCondition]);
  if (m.failureCondition !== undefined) lines.push(['Failure', m.failureCondition]);
  return lines;
}

function measurementLine(x: Measurement): string {
  return [x.finishedAt ?? x.startedAt ?? '<pending>', x.phase, x.value ?? '', x.message ?? ''].join('\t');
}

/** The run as text: its phase and message, its arguments, then each metric as a branch of a tree. Pure. */
export function describeRun(r: AnalysisRun): string {
  const labels = r.metadata.labels ?? {};
  const header: string[] = [`Name:\t${r.metadata.name ?? ''}`, `Namespace:\t${r.metadata.namespace ?? ''}`];
  if (labels[RUN_DEPLOYMENT_LABEL] !== undefined) {
    const about = [
      r.metadata.annotations?.[REVISION_ANNOTATION] !== undefined
        ? `revision ${r.metadata.annotations[REVISION_ANNOTATION]}`
        : undefined,
      labels[RUN_TEMPLATE_HASH_LABEL] !== undefined
        ? `pod-template-hash ${labels[RUN_TEMPLATE_HASH_LABEL]}`
        : undefined,
      labels[RUN_ATTEMPT_LABEL] !== undefined ? `attempt ${labels[RUN_ATTEMPT_LABEL]}` : undefined,
    ].filter(Boolean);
    header.push(`Deployment:\t${labels[RUN_DEPLOYMENT_LABEL]}${about.length > 0 ? ` (${about.join(', ')})` : ''}`);
  }
  const phase = phaseOf(r);
  header.push(`Phase:\t${RUN_SYMBOL[phase]} ${phase}${r.spec.terminate ? ' (terminated)' : ''}`);
  if (r.status?.message) header.push(`Message:\t${r.status.message}`);
  if (r.status?.startedAt) header.push(`Started:\t${r.status.startedAt}`);
  const args = (r.spec.args ?? []).map((a) =>
    a.value !== undefined
      ? `${a.name}=${a.value}`
      : `${a.name}=<secret ${a.valueFrom?.secretKeyRef.name}/${a.valueFrom?.secretKeyRef.key}>`,
  );
  if (args.length > 0) header.push(`Args:\t${args[0]}`, ...args.slice(1).map((a) => `\t${a}`));

  const results = new Map<string, MetricResult>((r.status?.metricResults ?? []).map((m) => [m.name, m]));
  const dryRun = new Set((r.spec.dryRun ?? []).map((x) => x.metricName));
  const metrics = r.spec.metrics ?? [];
  const tree: string[] = [`Metrics:`];
  metrics.forEach((m, i) => {
    const last = i === metrics.length - 1;
    const res = results.get(m.name);
    const inner = last ? '   ' : '│  ';
    const mphase = res?.phase ?? 'Pending';
    const dry = res?.dryRun || dryRun.has(m.name) ? ' (dry run)' : '';
    tree.push(`${last ? '└─' : '├─'} ${m.name} (${mphase})${dry}`);
    const fields: Array<[string, string]> = [...providerLines(m), ...conditionLines(m), ...limitLines(m)];
    if (res?.message) fields.push(['Message', res.message]);
    fields.push([
      'Counts',
      `count ${res?.count ?? 0}, successful ${res?.successful ?? 0}, failed ${res?.failed ?? 0}, inconclusive ${res?.inconclusive ?? 0}, error ${res?.error ?? 0}`,
    ]);
    for (const [k, v] of fields) tree.push(`${inner}${k}:\t${v}`);
    const kept = res?.measurements ?? [];
    const taken = (res?.count ?? 0) + (res?.error ?? 0);
    if (kept.length === 0) {
      tree.push(`${inner}Measurements:\t<none>`);
      return;
    }
    tree.push(`${inner}Measurements:${taken > kept.length ? ` (the latest ${kept.length} of ${taken})` : ''}`);
    kept.forEach((x, j) => {
      tree.push(`${inner}${j === kept.length - 1 ? '└─' : '├─'} ${measurementLine(x)}`);
    });
  });
  if (metrics.length === 0) tree.push('<none>');
  const out = `${tabwrite(`${header.join('\n')}\n`, { padding: 2 })}\n${tabwrite(`${tree.join('\n')}\n`, { padding: 2 })}`;
  return `${out
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n')
    .trimEnd()}\n`;
}

export async function runAnalysisShow(s: Session, name: string, o: { output?: string }): Promise<number> {
  let run: AnalysisRun;
  try {
    run = await s.client.get<AnalysisRun>(ANALYSIS_RUNS, s.namespace, name);
  } catch (err) {
    // kubectl's words for a missing run, whatever the server's 404 said.
    if (err instanceof KubeError && err.kind === 'NotFound' && (await crdInstalled(s.client, ANALYSIS_RUN_PLURAL)))
      throw new PluginError(`Error from server (NotFound): ${RUN_RESOURCE} "${name}" not found`, { raw: true });
    throw err;
  }
  if (o.output) printData(s.io, o.output, run);
  else s.io.stdout.write(describeRun(run));
  return 0;
}
