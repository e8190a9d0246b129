// `pacer plans simulate -f PLAN.yaml`: the DC/OS SDK's plan semantics with no cluster. The input
// (docs/plans-simulate.md) holds one or more plan trees and a list of operations and step
// progress; the output shows, first and after each entry, the answer the plans API would give,
// every element's status and the steps the coordinator would work on. It is how a user learns
// what serial-canary does before applying it, and the rules' tests drive it too.

import { Command, Option } from 'commander';
import { parse, stringify } from 'yaml';
import { runOnFile } from './dryrun.ts';
import type { PlanResult } from './dryrun.ts';
import type { FieldError } from '../api/fielderrors.ts';
import { jsonTypeName } from '../api/fielderrors.ts';
import {
  OPERATIONS,
  PHASE_STRATEGIES,
  PLAN_STRATEGIES,
  STEP_STATUSES,
  applyOperation,
  buildPhase,
  buildPlan,
  coordinate,
  planTree,
  viewPlan,
} from '../engine/index.ts';
import type {
  Operation,
  OperationName,
  Phase,
  Plan,
  PlanView,
  PodRequirement,
  Step,
  StepStatus,
} from '../engine/index.ts';

export type SimulateOutput = 'text' | 'json' | 'yaml';

/** One entry of the input's `operations`. */
type Entry =
  | { kind: 'operation'; plan: string; op: Operation }
  | { kind: 'step'; plan: string; phase: string; step: string; status: StepStatus }
  | { kind: 'advance'; times: number };

export interface SimulateFrame {
  /** What happened: "initial", the operation or the step progress as written. */
  event: string;
  /** The plans API's answer to an operation. */
  answer?: { code: number; message: string };
  plans: Array<PlanView & { candidates: string[] }>;
}

export type SimulateResult = PlanResult;

class InputError extends Error {
  readonly errors: FieldError[];
  constructor(errors: FieldError[]) {
    super(errors.map((e) => `${e.field}: ${e.detail}`).join('\n'));
    this.errors = errors;
  }
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Field checks in Kubernetes' words, collected rather than thrown one at a time. */
class Checker {
  readonly errors: FieldError[] = [];
  required(path: string): void {
    this.errors.push({ field: path, type: 'Required', detail: 'Required value' });
  }
  typed(path: string, v: unknown, want: 'string' | 'boolean' | 'integer' | 'object' | 'array'): boolean {
    const ok =
      want === 'integer'
        ? Number.isInteger(v)
        : want === 'array'
          ? Array.isArray(v)
          : want === 'object'
            ? isObj(v)
            : typeof v === want;
    if (!ok)
      this.errors.push({
        field: path,
        type: 'Invalid',
        value: v,
        detail: `Invalid value: "${jsonTypeName(v)}": ${path} in body must be of type ${want}`,
      });
    return ok;
  }
  string(o: Obj, key: string, path: string): string | undefined {
    if (o[key] === undefined || o[key] === '') {
      this.required(`${path}.${key}`);
      return undefined;
    }
    return this.typed(`${path}.${key}`, o[key], 'string') ? (o[key] as string) : undefined;
  }
  oneOf<T extends string>(o: Obj, key: string, path: string, values: readonly T[], dflt?: T): T | undefined {
    if (o[key] === undefined && dflt !== undefined) return dflt;
    const v = this.string(o, key, path);
    if (v === undefined) return undefined;
    if (!(values as readonly string[]).includes(v)) {
      this.errors.push({
        field: `${path}.${key}`,
        type: 'NotSupported',
        value: v,
        detail: `Unsupported value: "${v}": supported values: ${values.map((x) => `"${x}"`).join(', ')}`,
      });
      return undefined;
    }
    return v as T;
  }
  flag(o: Obj, key: string, path: string): boolean {
    return o[key] === undefined ? false : this.typed(`${path}.${key}`, o[key], 'boolean') && (o[key] as boolean);
  }
  strings(o: Obj, key: string, path: string): string[] {
    if (o[key] === undefined) return [];
    if (!this.typed(`${path}.${key}`, o[key], 'array')) return [];
    return (o[key] as unknown[]).filter((v, i) => this.typed(`${path}.${key}[${i}]`, v, 'string')) as string[];
  }
  unknown(o: Obj, path: string, known: readonly string[]): void {
    for (const k of Object.keys(o)) {
      if (!known.includes(k))
        this.errors.push({ field: `${path}.${k}`, type: 'Invalid', detail: `unknown field "${k}"` });
    }
  }
}

/** `<pod>-<index>:[<task>, <task>]`: the pod instance a step works on (the SDK's step names). */
export function requirementOf(name: string): PodRequirement | undefined {
  const m = /^(.+)-(\d+):\[(.*)\]$/.exec(name);
  if (!m) return undefined;
  return {
    pod: m[1],
    index: Number(m[2]),
    tasks: m[3]
      .split(',')
      .map((t) => t.trim())
      .filter((t) => t !== ''),
  };
}

function parseStep(c: Checker, v: unknown, path: string): Step | undefined {
  if (!c.typed(path, v, 'object')) return undefined;
  const o = v as Obj;
  c.unknown(o, path, ['name', 'status', 'interrupted', 'errors']);
  const name = c.string(o, 'name', path);
  const status = c.oneOf(o, 'status', path, STEP_STATUSES, 'PENDING');
  const interrupted = c.flag(o, 'interrupted', path);
  const errors = c.strings(o, 'errors', path);
  if (name === undefined || status === undefined) return undefined;
  const requirement = requirementOf(name);
  return {
    name,
    status,
    ...(interrupted ? { interrupted } : {}),
    ...(errors.length ? { errors } : {}),
    ...(requirement ? { requirement } : {}),
  };
}

function parsePhase(c: Checker, v: unknown, path: string): Phase | undefined {
  if (!c.typed(path, v, 'object')) return undefined;
  const o = v as Obj;
  c.unknown(o, path, ['name', 'strategy', 'requiredProceeds', 'interrupted', 'errors', 'steps']);
  const name = c.string(o, 'name', path);
  // The SDK's YAML takes "canary" for serial-canary.
  const strategy = o.strategy === 'canary' ? 'serial-canary' : c.oneOf(o, 'strategy', path, PHASE_STRATEGIES, 'serial');
  let requiredProceeds: number | undefined;
  if (o.requiredProceeds !== undefined && c.typed(`${path}.requiredProceeds`, o.requiredProceeds, 'integer')) {
    requiredProceeds = o.requiredProceeds as number;
    if (requiredProceeds < 1)
      c.errors.push({
        field: `${path}.requiredProceeds`,
        type: 'Invalid',
        value: requiredProceeds,
        detail: `Invalid value: ${requiredProceeds}: must be greater than or equal to 1`,
      });
    else if (strategy !== undefined && !strategy.endsWith('-canary'))
      c.errors.push({
        field: `${path}.requiredProceeds`,
        type: 'Forbidden',
        detail: `Forbidden: only for a canary strategy (serial-canary or parallel-canary), not ${strategy}`,
      });
  }
  const interrupted = c.flag(o, 'interrupted', path);
  const errors = c.strings(o, 'errors', path);
  const steps =
    o.steps === undefined
      ? []
      : c.typed(`${path}.steps`, o.steps, 'array')
        ? (o.steps as unknown[]).map((s, i) => parseStep(c, s, `${path}.steps[${i}]`))
        : [];
  if (name === undefined || strategy === undefined || steps.some((s) => s === undefined)) return undefined;
  const phase = buildPhase(name, strategy, steps as Step[], {
    ...(requiredProceeds !== undefined ? { requiredProceeds } : {}),
    errors,
  });
  return interrupted ? { ...phase, state: { ...phase.state, interrupted: true } } : phase;
}

function parsePlan(c: Checker, v: unknown, path: string): Plan | undefined {
  if (!c.typed(path, v, 'object')) return undefined;
  const o = v as Obj;
  c.unknown(o, path, ['name', 'strategy', 'interrupted', 'errors', 'phases']);
  const name = c.string(o, 'name', path);
  const strategy = c.oneOf(o, 'strategy', path, PLAN_STRATEGIES, 'serial');
  const interrupted = c.flag(o, 'interrupted', path);
  const errors = c.strings(o, 'errors', path);
  const phases =
    o.phases === undefined
      ? []
      : c.typed(`${path}.phases`, o.phases, 'array')
        ? (o.phases as unknown[]).map((p, i) => parsePhase(c, p, `${path}.phases[${i}]`))
        : [];
  if (name === undefined || strategy === undefined || phases.some((p) => p === undefined)) return undefined;
  return buildPlan(name, strategy, phases as Phase[], { errors, interrupted });
}

const STEP_KEYS = ['plan', 'phase', 'step', 'status'];

function parseEntry(c: Checker, v: unknown, path: string, plans: readonly Plan[]): Entry | undefined {
  if (!c.typed(path, v, 'object')) return undefined;
  const o = v as Obj;
  const keys = Object.keys(o);
  if (keys.length !== 1) {
    c.errors.push({
      field: path,
      type: 'Invalid',
      detail: `expected exactly one of ${[...OPERATIONS, 'step', 'advance'].map((k) => `"${k}"`).join(', ')}, got ${keys.length === 0 ? 'none' : keys.map((k) => `"${k}"`).join(', ')}`,
    });
    return undefined;
  }
  const key = keys[0];
  const at = `${path}.${key}`;
  if (key === 'advance') {
    if (!c.typed(at, o.advance, 'integer')) return undefined;
    const times = o.advance as number;
    if (times < 1) {
      c.errors.push({
        field: at,
        type: 'Invalid',
        value: times,
        detail: `Invalid value: ${times}: must be greater than or equal to 1`,
      });
      return undefined;
    }
    return { kind: 'advance', times };
  }
  if (!(OPERATIONS as readonly string[]).includes(key) && key !== 'step') {
    c.errors.push({
      field: at,
      type: 'NotSupported',
      detail: `Unsupported value: "${key}": supported values: ${[...OPERATIONS, 'step', 'advance'].map((k) => `"${k}"`).join(', ')}`,
    });
    return undefined;
  }
  const body = o[key] ?? {};
  if (!c.typed(at, body, 'object')) return undefined;
  const b = body as Obj;
  const plan = b.plan === undefined ? plans[0]?.name : c.string(b, 'plan', at);
  if (plan !== undefined && !plans.some((p) => p.name === plan))
    c.errors.push({ field: `${at}.plan`, type: 'Invalid', value: plan, detail: `Plan ${plan} not found` });
  if (key === 'step') {
    c.unknown(b, at, STEP_KEYS);
    const phase = c.string(b, 'phase', at);
    const step = c.string(b, 'step', at);
    const status = c.oneOf(b, 'status', at, STEP_STATUSES);
    if (plan === undefined || phase === undefined || step === undefined || status === undefined) return undefined;
    return { kind: 'step', plan, phase, step, status };
  }
  c.unknown(b, at, ['plan', 'phase', 'step', 'parameters']);
  const op: { op: OperationName; phase?: string; step?: string; parameters?: Record<string, string> } = {
    op: key as OperationName,
  };
  if (b.phase !== undefined) op.phase = c.string(b, 'phase', at);
  if (b.step !== undefined) op.step = c.string(b, 'step', at);
  if (b.parameters !== undefined && c.typed(`${at}.parameters`, b.parameters, 'object')) {
    op.parameters = {};
    for (const [k, val] of Object.entries(b.parameters as Obj)) {
      if (c.typed(`${at}.parameters.${k}`, val, 'string')) op.parameters[k] = val as string;
    }
  }
  if (plan === undefined) return undefined;
  return { kind: 'operation', plan, op };
}

export function parseSimulation(input: string): { plans: Plan[]; entries: Entry[] } {
  let doc: unknown;
  try {
    doc = parse(input);
  } catch (e) {
    throw new InputError([{ field: '', type: 'Invalid', detail: (e as Error).message.split('\n')[0] }]);
  }
  const c = new Checker();
  if (!c.typed('<root>', doc, 'object')) throw new InputError(c.errors);
  const o = doc as Obj;
  c.unknown(o, '<root>', ['plan', 'plans', 'operations']);
  let rawPlans: unknown[] = [];
  if (o.plan !== undefined && o.plans !== undefined)
    c.errors.push({ field: 'plans', type: 'Forbidden', detail: 'Forbidden: give either plan or plans, not both' });
  else if (o.plan !== undefined) rawPlans = [o.plan];
  else if (o.plans !== undefined && c.typed('plans', o.plans, 'array')) rawPlans = o.plans as unknown[];
  else if (o.plans === undefined) c.required('plans');
  const where = o.plan !== undefined ? (i: number) => (i === 0 ? 'plan' : `plans[${i}]`) : (i: number) => `plans[${i}]`;
  const plans = rawPlans.map((p, i) => parsePlan(c, p, where(i)));
  const seen = new Set<string>();
  plans.forEach((p, i) => {
    if (p && seen.has(p.name))
      c.errors.push({
        field: `${where(i)}.name`,
        type: 'Invalid',
        value: p.name,
        detail: `Duplicate value: "${p.name}"`,
      });
    if (p) seen.add(p.name);
  });
  const ok = plans.filter((p): p is Plan => p !== undefined);
  const raw =
    o.operations === undefined ? [] : c.typed('operations', o.operations, 'array') ? (o.operations as unknown[]) : [];
  const entries = raw.map((e, i) => parseEntry(c, e, `operations[${i}]`, ok));
  if (c.errors.length > 0) throw new InputError(c.errors);
  return { plans: ok, entries: entries as Entry[] };
}

/** The next status of a step being worked on: offers evaluated, launched, running, ready. */
const NEXT: Partial<Record<StepStatus, StepStatus>> = {
  PENDING: 'PREPARED',
  PREPARED: 'STARTING',
  STARTING: 'STARTED',
  STARTED: 'COMPLETE',
};

/**
 * One tick of work: the steps the coordinator hands out move one status on, and launched steps
 * (STARTING, STARTED) carry on even where no plan picks them any more (interrupting does not stop
 * work already launched).
 */
function advance(plans: readonly Plan[]): Plan[] {
  const picked = new Set(coordinate(plans).flatMap((x) => x.steps));
  return plans.map((plan) => ({
    ...plan,
    phases: plan.phases.map((ph) => ({
      ...ph,
      steps: ph.steps.map((s) => {
        const moves = picked.has(s) || s.status === 'STARTING' || s.status === 'STARTED';
        const next = moves && !(s.errors && s.errors.length > 0) ? NEXT[s.status] : undefined;
        return next ? { ...s, status: next } : s;
      }),
    })),
  }));
}

function frame(event: string, plans: readonly Plan[], answer?: { code: number; message: string }): SimulateFrame {
  const picked = new Map(coordinate(plans).map((x) => [x.plan, x.steps]));
  return {
    event,
    ...(answer ? { answer } : {}),
    plans: plans.map((p) => ({
      ...viewPlan(p, picked.get(p.name) ?? []),
      candidates: (picked.get(p.name) ?? []).map((s) => `${phaseOf(p, s)}/${s.name}`),
    })),
  };
}

function phaseOf(plan: Plan, step: Step): string {
  return plan.phases.find((ph) => ph.steps.includes(step))?.name ?? '';
}

function describe(e: Entry): string {
  if (e.kind === 'advance') return `advance ${e.times}`;
  if (e.kind === 'step') return `step ${e.plan}/${e.phase}/${e.step} ${e.status}`;
  const params = e.op.parameters
    ? ` ${Object.entries(e.op.parameters)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}`
    : '';
  return [e.op.op, e.plan, e.op.phase, e.op.step].filter((x) => x !== undefined).join(' ') + params;
}

export function simulate(plans: Plan[], entries: readonly Entry[]): SimulateFrame[] {
  const frames = [frame('initial', plans)];
  for (const e of entries) {
    if (e.kind === 'advance') {
      for (let i = 0; i < e.times; i++) plans = advance(plans);
      frames.push(frame(describe(e), plans));
    } else if (e.kind === 'step') {
      let answer: { code: number; message: string } | undefined;
      plans = plans.map((p) => {
        if (p.name !== e.plan) return p;
        const phase = p.phases.find((ph) => ph.name === e.phase);
        if (!phase) {
          answer = { code: 404, message: `Phase ${e.phase} not found` };
          return p;
        }
        if (!phase.steps.some((s) => s.name === e.step)) {
          answer = { code: 404, message: `Step ${e.step} not found` };
          return p;
        }
        return {
          ...p,
          phases: p.phases.map((ph) =>
            ph === phase
              ? { ...ph, steps: ph.steps.map((s) => (s.name === e.step ? { ...s, status: e.status } : s)) }
              : ph,
          ),
        };
      });
      frames.push(frame(describe(e), plans, answer));
    } else {
      let answer = { code: 404, message: `Plan ${e.plan} not found` };
      plans = plans.map((p) => {
        if (p.name !== e.plan) return p;
        const out = applyOperation(p, e.op);
        answer = { code: out.code, message: out.message };
        return out.plan;
      });
      frames.push(frame(describe(e), plans, answer));
    }
  }
  return frames;
}

function text(frames: readonly SimulateFrame[]): string {
  const out: string[] = [];
  for (const f of frames) {
    out.push(`== ${f.event}${f.answer ? `: ${f.answer.code} ${f.answer.message}` : ''}`);
    for (const p of f.plans) {
      out.push(...planTree(p));
      out.push(`candidates: ${p.candidates.length ? p.candidates.join(', ') : '(none)'}`);
    }
    out.push('');
  }
  return out.join('\n');
}

export function runSimulate(input: string, source: string, output: SimulateOutput): SimulateResult {
  try {
    const { plans, entries } = parseSimulation(input);
    const frames = simulate(plans, entries);
    const stdout =
      output === 'text' ? text(frames) : output === 'yaml' ? stringify(frames) : `${JSON.stringify(frames, null, 2)}\n`;
    return { code: 0, stdout, stderr: '' };
  } catch (e) {
    if (e instanceof InputError)
      return {
        code: 2,
        stdout: '',
        stderr: e.errors.map((x) => `error: ${source}: ${x.field ? `${x.field}: ` : ''}${x.detail}\n`).join(''),
      };
    throw e;
  }
}

/** `pacer plans simulate -f FILE [-o text|json|yaml]` */
export function plansCommand(): Command {
  const simulateCmd = new Command('simulate')
    .description(
      'Show what a DC/OS-style plan does, step by step, under operations and step progress (no cluster): docs/plans-simulate.md',
    )
    .option('-f, --filename <file>', 'YAML or JSON input; "-" reads stdin', '-')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json', 'yaml']).default('text'))
    .action((opts: { filename: string; output: SimulateOutput }) =>
      runOnFile(opts.filename, (input, source) => runSimulate(input, source, opts.output)),
    );
  return new Command('plans').description('DC/OS SDK plans: plan → phases → steps').addCommand(simulateCmd);
}
