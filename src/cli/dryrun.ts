// `pacer plan`: what would Pacer do with these objects? Reads a Deployment with its ReplicaSets
// and Pods from YAML or JSON, runs the engine once, and prints the decision. Same code path as
// the controller, without the I/O; `objects` in the output feed the next run, pass after pass.
// Further pacer.dev Deployments in the input are the states of its dependencies (and dependents):
// the one decided is the first, or the one `--name` picks; the others are printed back, with the
// stamps that force or a cancel request of the one decided put on them (`patch` actions).
// With a single Deployment its dependents are unknown, so its finalizers are left alone.
// A NodeRoll in the input is decided instead (dryrun-noderoll.ts): the roller's next step, with the
// input's Nodes, Pods, Deployments and ReplicaSets as the cluster it acts on.

import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { parseAllDocuments, stringify } from 'yaml';
import type { Deployment, PlanResource, Pod, ReplicaSet } from '../api/types.ts';
import { API_VERSION, APPS_API_VERSION, KIND, PLAN_KIND } from '../api/types.ts';
import {
  buildSnapshot,
  decide,
  generatedUid,
  planJson,
  planTree,
  serviceMembers,
  servicePlans,
  viewPlan,
  withAnnotations,
  DEFAULT_WINDOWS_CONFIGMAP,
  defaultWindowsOf,
} from '../engine/index.ts';
import type {
  Action,
  Decision,
  DefaultWindows,
  PlanJson,
  PlanView,
  SizedNode,
  SnapshotSource,
  WindowsConfigMap,
} from '../engine/index.ts';
import type { NodeRoll } from '../api/noderoll.ts';
import type { AnalysisRun, AnalysisTemplate } from '../api/analysis.ts';
import { ANALYSIS_RUN_KIND, ANALYSIS_TEMPLATE_KIND, CLUSTER_ANALYSIS_TEMPLATE_KIND } from '../api/analysis.ts';
import { NODEROLL_KIND } from '../api/noderoll.ts';
import { rollPlanDocument } from './dryrun-noderoll.ts';
import { dependencyKeys, deploymentKey } from '../api/dependencies.ts';

export type PlanOutput = 'json' | 'yaml' | 'text';

export interface PlanOptions {
  /** RFC 3339; the clock of this pass. */
  now?: string;
  output?: PlanOutput;
  /** Which Deployment to decide when the input holds several: `name` or `namespace/name` (default: the first). */
  name?: string;
}

export interface PlanResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** One action as printed: no embedded objects. */
export interface PrintedAction {
  verb: Action['verb'];
  kind: Action['kind'];
  name: string;
  replicas?: number;
  from?: number;
  /** A patch: the Deployment's namespace (it may be another Deployment's) and the annotations it sets (null removes). */
  namespace?: string;
  annotations?: Record<string, string | null>;
}

export interface PlanDocument {
  deployment: string;
  actions: PrintedAction[];
  status: Decision['status'];
  requeueAfterSeconds: number | null;
  objects: Array<Deployment | ReplicaSet>;
  /** The deploy plan of its service (the input's Deployments joined to it), as the input stands: the SDK's JSON. */
  plans?: Array<{ name: string; plan: PlanJson }>;
}

/** Input that cannot be used: reported as one line, exit 2. */
class InputError extends Error {}

type KubeObject = { apiVersion?: unknown; kind?: unknown; metadata?: unknown; [k: string]: unknown };

interface Parsed {
  /** The Deployment decided (absent when the input is a node roll's). */
  deployment?: Deployment;
  /** The other pacer.dev Deployments of the input (dependencies and dependents). */
  others: Deployment[];
  replicaSets: ReplicaSet[];
  pods: Pod[];
  /** The input's Plan resources (custom plans) of the Deployment's namespace. */
  plans: PlanResource[];
  /** The input's AnalysisRuns, AnalysisTemplates and ClusterAnalysisTemplates (docs/semantics/analysis.md). */
  analysisRuns?: AnalysisRun[];
  analysisTemplates?: AnalysisTemplate[];
  clusterAnalysisTemplates?: AnalysisTemplate[];
  /** The NodeRoll decided, when the input holds one (the rest is what it acts on). */
  roll?: NodeRoll;
  /** For a roll: every Node, pod, Deployment and ReplicaSet of the input, and the analysis resources (its health gate's). */
  all?: {
    nodes: SizedNode[];
    pods: Pod[];
    deployments: Deployment[];
    replicaSets: ReplicaSet[];
    analysis: { runs: AnalysisRun[]; templates: AnalysisTemplate[]; clusterTemplates: AnalysisTemplate[] };
    /** The cluster's default maintenance windows, when the input holds their ConfigMap. */
    defaultWindows?: DefaultWindows;
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function firstLine(s: string): string {
  return s.split('\n')[0].trim();
}

/** Fills what a hand-written object may leave out, as the API server would have. */
function withMetadataDefaults<T extends { kind?: string; metadata: Deployment['metadata'] }>(obj: T, now: string): T {
  const metadata = { ...obj.metadata };
  metadata.namespace ??= 'default';
  metadata.uid ??= generatedUid(obj.kind ?? '', metadata.namespace, metadata.name ?? '');
  metadata.creationTimestamp ??= now;
  metadata.generation ??= 1;
  return { ...obj, metadata };
}

function parseInput(input: string, source: string, now: string, pick?: string): Parsed {
  const docs = parseAllDocuments(input);
  const list = Array.isArray(docs) ? docs : [];
  const deployments: Deployment[] = [];
  const replicaSets: ReplicaSet[] = [];
  const pods: Pod[] = [];
  const plans: PlanResource[] = [];
  const rolls: NodeRoll[] = [];
  let windowsConfigMap: WindowsConfigMap | undefined;
  const nodes: SizedNode[] = [];
  const runs: AnalysisRun[] = [];
  const templates: AnalysisTemplate[] = [];
  const clusterTemplates: AnalysisTemplate[] = [];
  list.forEach((doc, i) => {
    const where = `${source}: document ${i + 1}`;
    if (doc.errors.length > 0) throw new InputError(`${where}: ${firstLine(doc.errors[0].message)}`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) return; // an empty document
    if (!isObject(value))
      throw new InputError(
        `${where}: expected a Kubernetes object, got ${Array.isArray(value) ? 'a list' : typeof value}`,
      );
    const items: unknown[] =
      value.kind === 'List' ||
      (typeof value.kind === 'string' && value.kind.endsWith('List') && Array.isArray(value.items))
        ? Array.isArray(value.items)
          ? value.items
          : []
        : [value];
    items.forEach((item, j) => {
      const at = items.length > 1 || item !== value ? `${where}: item ${j + 1}` : where;
      if (!isObject(item)) throw new InputError(`${at}: expected a Kubernetes object`);
      const obj = item as KubeObject;
      const kind = typeof obj.kind === 'string' ? obj.kind : '';
      const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
      if (!kind || !apiVersion) throw new InputError(`${at}: apiVersion and kind are required`);
      if (!isObject(obj.metadata) || typeof obj.metadata.name !== 'string' || obj.metadata.name === '') {
        throw new InputError(`${at}: ${apiVersion} ${kind}: metadata.name is required`);
      }
      const name = obj.metadata.name;
      // Pacer's own kind, or an apps/v1 Deployment as Pacer controls it in native mode (docs/native.md).
      if ((apiVersion === API_VERSION || apiVersion === APPS_API_VERSION) && kind === KIND) {
        if (!isObject(obj.spec)) throw new InputError(`${at}: Deployment "${name}": spec is required`);
        const d = withMetadataDefaults(obj as unknown as Deployment, now);
        const key = deploymentKey(d.metadata.namespace, name);
        if (deployments.some((x) => deploymentKey(x.metadata.namespace, x.metadata.name) === key)) {
          throw new InputError(`${at}: more than one Deployment named ${key}`);
        }
        deployments.push(d);
      } else if (apiVersion === 'apps/v1' && kind === 'ReplicaSet') {
        if (!isObject(obj.spec)) throw new InputError(`${at}: ReplicaSet "${name}": spec is required`);
        const rs = withMetadataDefaults(obj as unknown as ReplicaSet, now);
        rs.status ??= { replicas: 0 };
        replicaSets.push(rs);
      } else if (apiVersion === 'v1' && kind === 'Pod') {
        pods.push(withMetadataDefaults(obj as unknown as Pod, now));
      } else if (apiVersion === API_VERSION && kind === PLAN_KIND) {
        if (!isObject(obj.spec) || !Array.isArray(obj.spec.phases))
          throw new InputError(`${at}: Plan "${name}": spec.phases is required`);
        plans.push(withMetadataDefaults(obj as unknown as PlanResource, now));
      } else if (apiVersion === API_VERSION && kind === NODEROLL_KIND) {
        if (!isObject(obj.spec)) throw new InputError(`${at}: NodeRoll "${name}": spec is required`);
        const r = withMetadataDefaults(obj as unknown as NodeRoll, now);
        delete r.metadata.namespace; // cluster-scoped
        rolls.push(r);
      } else if (apiVersion === 'v1' && kind === 'Node') {
        nodes.push(obj as unknown as SizedNode);
      } else if (apiVersion === 'v1' && kind === 'ConfigMap' && name === DEFAULT_WINDOWS_CONFIGMAP) {
        // The cluster's default maintenance windows, for a roll (docs/semantics/windows.md#the-clusters-default).
        windowsConfigMap = obj as unknown as WindowsConfigMap;
      } else if (apiVersion === API_VERSION && kind === ANALYSIS_RUN_KIND) {
        if (!isObject(obj.spec)) throw new InputError(`${at}: AnalysisRun "${name}": spec is required`);
        runs.push(withMetadataDefaults(obj as unknown as AnalysisRun, now));
      } else if (apiVersion === API_VERSION && kind === ANALYSIS_TEMPLATE_KIND) {
        templates.push(withMetadataDefaults(obj as unknown as AnalysisTemplate, now));
      } else if (apiVersion === API_VERSION && kind === CLUSTER_ANALYSIS_TEMPLATE_KIND) {
        clusterTemplates.push(obj as unknown as AnalysisTemplate);
      } else {
        throw new InputError(
          `${at}: unsupported object ${apiVersion} ${kind} "${name}": expected ${API_VERSION} Deployment, Plan, NodeRoll, AnalysisRun, AnalysisTemplate or ClusterAnalysisTemplate, apps/v1 Deployment or ReplicaSet, v1 Pod or Node, or the v1 ConfigMap ${DEFAULT_WINDOWS_CONFIGMAP}`,
        );
      }
    });
  });
  if (rolls.length > 0) {
    // A node roll: the one decided is the first, or the one --name picks; the rest is what it acts on.
    const roll = pick === undefined ? rolls[0] : rolls.find((r) => r.metadata.name === pick);
    if (!roll)
      throw new InputError(
        `${source}: no ${API_VERSION} NodeRoll "${pick}" (found ${rolls.map((r) => r.metadata.name).join(', ')})`,
      );
    return {
      others: [],
      replicaSets: [],
      pods: [],
      plans: [],
      roll,
      all: {
        nodes,
        pods,
        deployments,
        replicaSets,
        analysis: { runs, templates, clusterTemplates: clusterTemplates },
        ...(defaultWindowsOf(windowsConfigMap) ? { defaultWindows: defaultWindowsOf(windowsConfigMap)! } : {}),
      },
    };
  }
  if (deployments.length === 0)
    throw new InputError(`${source}: no Deployment (${API_VERSION} or ${APPS_API_VERSION}) or NodeRoll found`);
  let deployment = deployments[0];
  if (pick !== undefined) {
    const found = deployments.find(
      (d) => d.metadata.name === pick || deploymentKey(d.metadata.namespace, d.metadata.name) === pick,
    );
    if (!found)
      throw new InputError(
        `${source}: no Deployment "${pick}" (found ${deployments.map((d) => deploymentKey(d.metadata.namespace, d.metadata.name)).join(', ')})`,
      );
    deployment = found;
  }
  const ns = deployment.metadata.namespace;
  return {
    deployment,
    others: deployments.filter((d) => d !== deployment),
    replicaSets: replicaSets.filter((rs) => rs.metadata.namespace === ns),
    pods: pods.filter((p) => p.metadata.namespace === ns),
    plans: plans.filter((p) => p.metadata.namespace === ns),
    analysisRuns: runs.filter((r) => r.metadata.namespace === ns),
    analysisTemplates: templates.filter((t) => t.metadata.namespace === ns),
    clusterAnalysisTemplates: clusterTemplates,
  };
}

function printedAction(a: Action): PrintedAction {
  const out: PrintedAction = { verb: a.verb, kind: a.kind, name: a.name };
  if (a.verb === 'create' || a.verb === 'scale') out.replicas = a.replicas;
  if (a.verb === 'scale') out.from = a.from;
  if (a.verb === 'patch') {
    out.namespace = a.namespace;
    out.annotations = a.annotations;
  }
  return out;
}

/** `others` with the annotation patches of `actions` applied (force and cancel stamp other apps). */
function patched(others: readonly Deployment[], actions: readonly Action[]): Deployment[] {
  return others.map((x) =>
    actions.reduce(
      (out, a) =>
        a.verb === 'patch' && a.namespace === (x.metadata.namespace ?? 'default') && a.name === x.metadata.name
          ? withAnnotations(out, a.annotations)
          : out,
      x,
    ),
  );
}

/** The printed form of a decision; `others` (further Deployments of the input) are printed back, with the stamps it puts on them. */
export function planDocument(decision: Decision, others: readonly Deployment[] = []): PlanDocument {
  return {
    deployment: decision.deployment,
    actions: decision.actions.map(printedAction),
    status: decision.status,
    requeueAfterSeconds: decision.requeueAfterSeconds,
    objects: [decision.objects.deployment, ...decision.objects.replicaSets, ...patched(others, decision.actions)],
  };
}

/**
 * The input as the engine's snapshot source: its ReplicaSets and pods, its Deployments by key and,
 * when it holds more than one Deployment, the dependents among them.
 */
function inputSource(parsed: Parsed): SnapshotSource {
  const all = [parsed.deployment!, ...parsed.others];
  const byKey = new Map(all.map((x) => [deploymentKey(x.metadata.namespace, x.metadata.name), x]));
  return {
    replicaSets: () => parsed.replicaSets,
    pods: () => parsed.pods,
    deployment: (key) => byKey.get(key),
    deployments: () => all,
    plans: () => parsed.plans,
    analysisRuns: () => parsed.analysisRuns ?? [],
    analysisTemplate: (_ns, ref) =>
      (ref.clusterScope ? parsed.clusterAnalysisTemplates : parsed.analysisTemplates)?.find(
        (t) => t.metadata.name === ref.templateName,
      ),
    ...(parsed.others.length > 0
      ? { dependents: (key: string) => parsed.others.filter((x) => dependencyKeys(x).includes(key)) }
      : {}),
  };
}

function describeAction(a: Action): string {
  switch (a.verb) {
    case 'create':
      return `create ReplicaSet ${a.name} with ${a.replicas} replicas`;
    case 'scale':
      return `scale ReplicaSet ${a.name} from ${a.from} to ${a.replicas}`;
    case 'delete':
      return `delete ReplicaSet ${a.name}`;
    case 'updateStatus':
      return `update status of Deployment ${a.name}`;
    case 'update':
      return `update ${a.kind} ${a.name}`;
    case 'createAnalysisRun':
      return `create AnalysisRun ${a.name}`;
    case 'terminateAnalysisRun':
      return `terminate AnalysisRun ${a.name}`;
    case 'patch':
      return `annotate Deployment ${a.namespace}/${a.name}: ${Object.entries(a.annotations)
        .map(([k, v]) => (v === null ? `${k}-` : `${k}=${v}`))
        .join(' ')}`;
  }
}

function text(decision: Decision): string {
  const lines = [`Deployment ${decision.deployment}`];
  if (decision.actions.length === 0) lines.push('  no changes');
  for (const a of decision.actions) {
    lines.push(`  ${describeAction(a)}`);
    if (a.event) lines.push(`    event ${a.event.type} ${a.event.reason}: ${a.event.message}`);
    if (a.verb === 'updateStatus')
      for (const e of a.events ?? []) lines.push(`    event ${e.type} ${e.reason}: ${e.message}`);
  }
  for (const e of decision.events) lines.push(`  event ${e.type} ${e.reason}: ${e.message}`);
  const s = decision.status;
  lines.push(
    `Status: ready ${s.ready ?? '-'}, up-to-date ${s.updatedReplicas ?? 0}, available ${s.availableReplicas ?? 0}`,
  );
  for (const c of s.conditions ?? [])
    lines.push(`  ${c.type}=${c.status} ${c.reason ?? ''}${c.message ? `: ${c.message}` : ''}`);
  lines.push(
    `Requeue: ${decision.requeueAfterSeconds === null ? 'not needed' : `after ${decision.requeueAfterSeconds}s`}`,
  );
  return `${lines.join('\n')}\n`;
}

/** The deploy plan of the decided Deployment's service, and its custom plans, among the input's objects as they stand. */
function servicePlanViews(parsed: Parsed, now: number): PlanView[] {
  const d = parsed.deployment!;
  const all = [d, ...parsed.others];
  const members = serviceMembers(all, d.metadata.namespace ?? 'default', d.metadata.name ?? '');
  const plans = servicePlans({
    deployments: members,
    namespaceDeployments: all,
    replicaSets: parsed.replicaSets,
    pods: parsed.pods,
    plans: parsed.plans,
    now,
  });
  // The recovery plan tells what the ReplicaSets and the kubelet do: nothing a file shows.
  return plans.filter((p) => p.name !== 'recovery').map((p) => viewPlan(p));
}

function servicePlanScope(parsed: Parsed): string {
  return `${parsed.deployment!.metadata.namespace ?? 'default'}/${parsed.deployment!.metadata.name ?? ''}`;
}

/** RFC 3339 (with optional fraction and offset) → ms; NaN when malformed. */
function parseRfc3339(s: string): number {
  if (!/^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(s)) return Number.NaN;
  return Date.parse(s);
}

/** Runs one plan pass over `input` (named `source` in messages). Pure apart from `Date.now()` without --now. */
export function runPlan(input: string, source: string, opts: PlanOptions = {}): PlanResult {
  let nowMs: number;
  if (opts.now !== undefined) {
    nowMs = parseRfc3339(opts.now);
    if (Number.isNaN(nowMs))
      return { code: 2, stdout: '', stderr: `error: --now: not an RFC 3339 time: "${opts.now}"\n` };
  } else {
    nowMs = Date.now();
  }
  const output = opts.output ?? 'json';
  let parsed: Parsed;
  try {
    parsed = parseInput(input, source, new Date(nowMs).toISOString(), opts.name);
  } catch (e) {
    if (e instanceof InputError) return { code: 2, stdout: '', stderr: `error: ${e.message}\n` };
    throw e;
  }
  if (parsed.roll) {
    const { doc, text: words } = rollPlanDocument({ roll: parsed.roll, ...parsed.all!, now: nowMs });
    return {
      code: 0,
      stdout: output === 'text' ? words : output === 'yaml' ? stringify(doc) : `${JSON.stringify(doc, null, 2)}\n`,
      stderr: '',
    };
  }
  const decision = decide(buildSnapshot(parsed.deployment!, inputSource(parsed), nowMs));
  const views = servicePlanViews(parsed, nowMs);
  const doc = {
    ...planDocument(decision, parsed.others),
    plans: views.map((v) => ({ name: v.name, plan: planJson(v, servicePlanScope(parsed)) })),
  };
  let stdout: string;
  if (output === 'text') {
    stdout = `${text(decision)}${views
      .map(
        (v, i) =>
          `${i === 0 ? 'Plan of its service' : 'Custom plan'}:\n${planTree(v)
            .map((l) => `  ${l}\n`)
            .join('')}`,
      )
      .join('')}`;
  } else if (output === 'yaml') stdout = stringify(doc);
  else stdout = `${JSON.stringify(doc, null, 2)}\n`;
  return { code: 0, stdout, stderr: '' };
}

/** `pacer plan [-f FILE | -f -] [--name NAME] [--now RFC3339] [-o json|yaml|text]` */
export function planCommand(): Command {
  return new Command('plan')
    .description(
      'Show what Pacer would do with a Deployment and its ReplicaSets and Pods, given the Deployments it depends on, or with a NodeRoll and the Nodes, Pods and workloads it acts on (one reconcile pass, no cluster)',
    )
    .option('-f, --filename <file>', 'YAML or JSON input; "-" reads stdin', '-')
    .option(
      '--name <name>',
      'the Deployment to decide (name or namespace/name) when the input holds several; the others are its dependencies and dependents; or the NodeRoll, when the input holds NodeRolls. Default: the first',
    )
    .option('--now <time>', 'the clock of this pass (RFC 3339); default: the current time')
    .addOption(
      new Option('-o, --output <format>', 'output format (default: json, or text on a terminal)').choices([
        'json',
        'yaml',
        'text',
      ]),
    )
    .action((opts: { filename: string; name?: string; now?: string; output?: PlanOutput }) => {
      const output = opts.output ?? (process.stdout.isTTY ? 'text' : 'json');
      runOnFile(opts.filename, (input, source) =>
        runPlan(input, source, {
          ...(opts.now !== undefined ? { now: opts.now } : {}),
          ...(opts.name !== undefined ? { name: opts.name } : {}),
          output,
        }),
      );
    });
}

/**
 * A `-f FILE` command ("-" reads stdin): `run` turns the text into what to print and the exit code;
 * an unreadable file is one line naming it, exit 2.
 */
export function runOnFile(filename: string, run: (input: string, source: string) => PlanResult): void {
  const source = filename === '-' ? 'stdin' : filename;
  let input: string;
  try {
    input = readFileSync(filename === '-' ? 0 : filename, 'utf8');
  } catch (e) {
    process.stderr.write(`error: ${source}: ${(e as Error).message}\n`);
    process.exitCode = 2;
    return;
  }
  const result = run(input, source);
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  process.exitCode = result.code;
}
