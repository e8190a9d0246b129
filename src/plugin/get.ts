// `kubectl pacer get NAME [-w]`: a Deployment as a tree, Argo Rollouts style: a header (status,
// strategy, images, replica counts), then Deployment → revision → ReplicaSet → pods with glyphs.
// `renderTree` is pure (objects and a clock in, lines out); the command follows watches of the
// three kinds and redraws on every change: in place on a terminal, frame after frame otherwise.
// A Deployment under analysis (spec.analysis) also shows its stable revision and, under its new
// revision, the run that judges it (docs/semantics/analysis.md#commands).

import type { AnalysisRun } from '../api/analysis.ts';
import { RUN_DEPLOYMENT_LABEL } from '../api/analysis.ts';
import type { Deployment, Pod, ReplicaSet } from '../api/types.ts';
import { ANALYSIS_RUNS, PODS, REPLICASETS } from '../kube/client.ts';
import { selectorToString } from '../api/selector.ts';
import { strategyTypeOf } from '../api/strategies/index.ts';
import { RETRY_ANNOTATION, currentRun, phaseSummary, revisionOf, strategyNamed } from '../engine/index.ts';
import { RUN_SYMBOL, endedBadly, newRevision, phaseOf, runsOf } from './analysis.ts';
import { PluginError } from './errors.ts';
import { age, tabwrite } from './format.ts';
import { controllerOf } from '../api/owners.ts';
import type { Session } from './options.ts';
import { printData } from './options.ts';
import { SYMBOL, deploymentState, podReadiness, podState, replicaSetState } from './state.ts';
import { follow, intoMap } from './watch.ts';
import { PACER_KIND, deploymentAsEngineReads, replicaSetInPacerKeys } from './target.ts';

export interface TreeObjects {
  deployment: Deployment;
  replicaSets: readonly ReplicaSet[];
  pods: readonly Pod[];
  /** The Deployment's AnalysisRuns (read only when it has spec.analysis). */
  runs?: readonly AnalysisRun[];
  /** Why the runs could not be read (the analysis CRDs not installed). */
  runsUnavailable?: string;
}

const ICON = { deployment: '⟳', revision: '#', replicaSet: '⧉', pod: '□', run: 'α' } as const;

/** Step statuses in the order a rollout moves through them. */
const STEP_ORDER = ['COMPLETE', 'STARTED', 'STARTING', 'PREPARED', 'PENDING', 'WAITING', 'DELAYED', 'ERROR'] as const;

function byName<T extends { metadata: { name?: string } }>(a: T, b: T): number {
  return (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '');
}

function images(template: Deployment['spec']['template']): string[] {
  const spec = template?.spec as
    | { containers?: Array<{ image?: string }>; initContainers?: Array<{ image?: string }> }
    | undefined;
  return [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])].map((c) => c.image ?? '');
}

/**
 * The header and the tree of `o` at `now` (ms), one string per line. An apps/v1 Deployment is drawn
 * as the engine reads it: its revisions under upstream's keys, its annotations' additions as its
 * strategy and plan.
 */
export function renderTree(read: TreeObjects, now: number): string[] {
  const o: TreeObjects = {
    ...read,
    deployment: deploymentAsEngineReads(read.deployment),
    replicaSets: read.replicaSets.map(replicaSetInPacerKeys),
  };
  const d = o.deployment;
  const name = d.metadata.name ?? '';
  const state = deploymentState(d);
  const strategy = strategyTypeOf(d);
  const s = d.status ?? {};

  const header: string[] = [
    `Name:\t${name}`,
    `Namespace:\t${d.metadata.namespace ?? ''}`,
    `Status:\t${SYMBOL[state.phase]} ${state.phase}`,
  ];
  if (state.message) header.push(`Message:\t${state.message}`);
  header.push(`Strategy:\t${strategy}`);
  for (const { name: param, value } of strategyNamed(strategy)?.describe(d) ?? []) header.push(`  ${param}:\t${value}`);
  const imgs = images(d.spec.template);
  header.push(`Images:\t${imgs[0] ?? '<none>'}`, ...imgs.slice(1).map((i) => `\t${i}`));
  header.push(
    'Replicas:\t',
    `  Desired:\t${d.spec.replicas ?? 1}`,
    `  Current:\t${s.replicas ?? 0}`,
    `  Updated:\t${s.updatedReplicas ?? 0}`,
    `  Ready:\t${s.readyReplicas ?? 0}`,
    `  Available:\t${s.availableReplicas ?? 0}`,
  );
  // Its phase of its service's deploy plan (kubectl pacer plan show draws the whole plan).
  const phase = phaseSummary(d, { replicaSets: o.replicaSets, pods: o.pods, now });
  const steps = STEP_ORDER.filter((st) => phase.steps[st]).map((st) => `${phase.steps[st]} ${st}`);
  header.push(
    `Plan:\tdeploy, phase ${name} (${phase.strategy} strategy) (${phase.status})`,
    `  Steps:\t${steps.join(', ') || 'none'}`,
  );
  const analysis = analysisOf(o);
  header.push(...analysis.header);

  // Newest revision first; a ReplicaSet without a parseable revision goes last.
  const owned = o.replicaSets.filter((rs) => controllerOf(rs)?.uid === d.metadata.uid);
  const rss = [...owned].sort((a, b) => (revisionOf(b) ?? -1) - (revisionOf(a) ?? -1) || byName(a, b));
  const newest = rss.length > 0 ? rss[0] : undefined;

  const rows: string[] = ['NAME\tKIND\tSTATUS\tAGE\tINFO'];
  rows.push(
    `${ICON.deployment} ${name}\tDeployment\t${SYMBOL[state.phase]} ${state.phase}\t${age(d.metadata.creationTimestamp, now)}\t`,
  );
  rss.forEach((rs, i) => {
    const lastRs = i === rss.length - 1;
    const revision = revisionOf(rs);
    const stable = analysis.stableRS !== undefined && rs.metadata.labels?.['pod-template-hash'] === analysis.stableRS;
    rows.push(`${lastRs ? '└──' : '├──'}${ICON.revision} revision:${revision ?? '?'}\t\t\t\t${stable ? 'stable' : ''}`);
    const inner = lastRs ? '   ' : '│  ';
    const run = analysis.newRS === rs ? analysis.run : undefined;
    const rst = replicaSetState(rs, rs === newest, state.phase);
    const st = rs.status ?? { replicas: 0 };
    const info = `replicas:${st.replicas ?? 0}/${rs.spec.replicas ?? 1} ready:${st.readyReplicas ?? 0} available:${st.availableReplicas ?? 0}`;
    rows.push(
      `${inner}${run ? '├──' : '└──'}${ICON.replicaSet} ${rs.metadata.name ?? ''}\tReplicaSet\t${rst.symbol} ${rst.word}\t${age(rs.metadata.creationTimestamp, now)}\t${info}`,
    );
    const podInner = `${inner}${run ? '│  ' : '   '}`;
    const pods = o.pods.filter((p) => controllerOf(p)?.uid === rs.metadata.uid).sort(byName);
    pods.forEach((p, j) => {
      const pst = podState(p);
      const r = podReadiness(p);
      const node = (p.spec as { nodeName?: string } | undefined)?.nodeName;
      const podInfo = `ready:${r.ready}/${r.total} restarts:${r.restarts}${node ? ` node:${node}` : ''}`;
      rows.push(
        `${podInner}${j === pods.length - 1 ? '└──' : '├──'}${ICON.pod} ${p.metadata.name ?? ''}\tPod\t${pst.symbol} ${pst.word}\t${age(p.metadata.creationTimestamp, now)}\t${podInfo}`,
      );
    });
    if (run) {
      const phase = phaseOf(run);
      const sum = (k: 'successful' | 'failed' | 'inconclusive' | 'error') =>
        (run.status?.metricResults ?? []).reduce((n, m) => n + (m[k] ?? 0), 0);
      const counts = `successful:${sum('successful')} failed:${sum('failed')} inconclusive:${sum('inconclusive')} error:${sum('error')}`;
      const why = endedBadly(run) && run.status?.message ? ` message:${run.status.message}` : '';
      rows.push(
        `${inner}└──${ICON.run} ${run.metadata.name ?? ''}\tAnalysisRun\t${RUN_SYMBOL[phase]} ${phase}\t${age(run.metadata.creationTimestamp, now)}\t${counts}${why}`,
      );
    }
  });

  const text = `${tabwrite(`${header.join('\n')}\n`, { padding: 2 })}\n${tabwrite(`${rows.join('\n')}\n`, { padding: 2 })}`;
  return text
    .trimEnd()
    .split('\n')
    .map((l) => l.trimEnd());
}

/**
 * What the tree shows of a Deployment's analysis: header lines (the templates and onFailure, the
 * stable revision, the current run), the stable revision's hash, and the new revision's ReplicaSet
 * with the run that judges it (the engine's currentRun). Nothing without spec.analysis.
 */
function analysisOf(o: TreeObjects): {
  header: string[];
  stableRS?: string;
  newRS?: ReplicaSet;
  run?: AnalysisRun;
} {
  const d = o.deployment;
  const a = d.spec.analysis;
  if (!a) return { header: [] };
  const owned = o.replicaSets.filter((rs) => controllerOf(rs)?.uid === d.metadata.uid);
  const what = [...(a.templates ?? []).map((t) => t.templateName), ...(a.podFailures ? ['pod check'] : [])];
  const header = [`Analysis:\t${what.join(', ') || '<none>'} (onFailure ${a.onFailure ?? 'Abort'})`];
  const stableRS = d.status?.stableRS;
  const stable = owned.find((rs) => rs.metadata.labels?.['pod-template-hash'] === stableRS);
  if (stableRS === undefined) header.push('  Stable:\t<none> (set once a revision completes)');
  else if (!stable) header.push(`  Stable:\tpod-template-hash ${stableRS} (its ReplicaSet is gone)`);
  else header.push(`  Stable:\trevision ${revisionOf(stable) ?? '?'} (${stable.metadata.name ?? ''})`);
  const revision = newRevision(d, owned);
  const run = revision && currentRun(o.runs ?? [], revision.hash, d.metadata.annotations?.[RETRY_ANNOTATION]);
  if (o.runsUnavailable !== undefined) header.push(`  Run:\t<unknown> (${o.runsUnavailable})`);
  else if (run) header.push(`  Run:\t${run.metadata.name ?? ''} ${RUN_SYMBOL[phaseOf(run)]} ${phaseOf(run)}`);
  else if ((a.templates ?? []).length > 0) header.push('  Run:\t<none>');
  return {
    header,
    ...(stableRS !== undefined ? { stableRS } : {}),
    ...(revision ? { newRS: revision.rs } : {}),
    ...(run ? { run } : {}),
  };
}

/** The runs of `d` when it is under analysis; the analysis CRDs missing is said, not fatal. */
async function readRuns(s: Session, d: Deployment): Promise<Pick<TreeObjects, 'runs' | 'runsUnavailable'>> {
  if (!d.spec.analysis) return {};
  try {
    return { runs: await runsOf(s, d) };
  } catch (err) {
    if (err instanceof PluginError) return { runsUnavailable: 'the analysis CRDs are not installed' };
    throw err;
  }
}

export interface GetOptions {
  watch: boolean;
  /** Stop watching after this long (0 = until Ctrl-C). */
  timeoutMs: number;
  output?: string;
  now?: () => number;
}

/** ANSI: cursor up `n` lines, to column 1, and clear to the end of the screen. */
function eraseLines(n: number): string {
  return n > 0 ? `\x1b[${n}A\r\x1b[J` : '\r\x1b[J';
}

export async function runGet(s: Session, name: string, o: GetOptions): Promise<number> {
  const now = o.now ?? Date.now;
  const kind = s.kind ?? PACER_KIND;
  // A list's items come without their apiVersion: an apps/v1 Deployment's is stamped back.
  const stamp = (d: Deployment): Deployment => (kind.native ? { ...d, apiVersion: 'apps/v1' } : d);
  const first = await s.client.getDeployment(s.namespace, name);
  const selector = selectorToString(first.spec.selector);
  const rsList = await s.client.list<ReplicaSet>(REPLICASETS, s.namespace, { labelSelector: selector });
  const podList = await s.client.listPods(s.namespace, { labelSelector: selector });
  const analysis = await readRuns(s, first);
  if (o.output) {
    printData(s.io, o.output, {
      apiVersion: 'v1',
      kind: 'List',
      metadata: {},
      items: [first, ...rsList.items, ...podList.items, ...(analysis.runs ?? [])],
    });
    return 0;
  }
  if (!o.watch) {
    s.io.stdout.write(
      `${renderTree({ deployment: first, replicaSets: rsList.items, pods: podList.items, ...analysis }, now()).join('\n')}\n`,
    );
    return 0;
  }

  const tty = s.io.stdout.isTTY === true;
  let deployment: Deployment | undefined = first;
  const rss = new Map<string, ReplicaSet>();
  const pods = new Map<string, Pod>();
  const runs = new Map<string, AnalysisRun>();
  for (const r of analysis.runs ?? []) runs.set(r.metadata.name ?? '', r);
  for (const rs of rsList.items) rss.set(rs.metadata.name ?? '', rs);
  for (const p of podList.items) pods.set(p.metadata.name ?? '', p);
  let lastFrame: string[] = [];
  let pending: NodeJS.Timeout | undefined;
  const draw = (): void => {
    pending = undefined;
    if (!deployment) return;
    const frame = renderTree(
      {
        deployment,
        replicaSets: [...rss.values()],
        pods: [...pods.values()],
        ...(analysis.runs ? { runs: [...runs.values()] } : {}),
        ...(analysis.runsUnavailable !== undefined ? { runsUnavailable: analysis.runsUnavailable } : {}),
      },
      now(),
    );
    if (frame.join('\n') === lastFrame.join('\n')) return;
    if (tty) s.io.stdout.write(`${(lastFrame.length > 0 ? eraseLines(lastFrame.length) : '') + frame.join('\n')}\n`);
    else s.io.stdout.write(`${(lastFrame.length > 0 ? '\n' : '') + frame.join('\n')}\n`);
    lastFrame = frame;
  };
  // Events come in bursts (a scale touches a ReplicaSet and several pods): draw once per burst.
  const schedule = (): void => {
    if (!pending) pending = setTimeout(draw, 50);
  };

  const stop = new AbortController();
  const signal = AbortSignal.any([stop.signal, ...(s.signal ? [s.signal] : [])]);
  const timer = o.timeoutMs > 0 ? setTimeout(() => stop.abort(), o.timeoutMs) : undefined;
  // On a terminal the ages tick: redraw every second.
  const ticker = tty ? setInterval(schedule, 1000) : undefined;
  draw();
  try {
    await Promise.all([
      follow<Deployment>(
        s.client,
        kind.type,
        s.namespace,
        { fieldSelector: `metadata.name=${name}` },
        {
          onList(items) {
            const found = items.find((i) => i.metadata.name === name);
            if (found) deployment = stamp(found);
            schedule();
          },
          onEvent(type, d) {
            if (type !== 'DELETED') deployment = stamp(d);
            schedule();
          },
        },
        signal,
      ),
      follow<ReplicaSet>(
        s.client,
        REPLICASETS,
        s.namespace,
        { labelSelector: selector },
        intoMap(rss, schedule),
        signal,
      ),
      follow<Pod>(s.client, PODS, s.namespace, { labelSelector: selector }, intoMap(pods, schedule), signal),
      ...(analysis.runs
        ? [
            follow<AnalysisRun>(
              s.client,
              ANALYSIS_RUNS,
              s.namespace,
              { labelSelector: `${RUN_DEPLOYMENT_LABEL}=${name}` },
              intoMap(runs, schedule),
              signal,
            ),
          ]
        : []),
    ]);
  } finally {
    stop.abort();
    if (timer) clearTimeout(timer);
    if (ticker) clearInterval(ticker);
    if (pending) {
      clearTimeout(pending);
      draw();
    }
  }
  return 0;
}
