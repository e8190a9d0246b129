// An analysis metric's successCondition and failureCondition: CEL expressions over one variable,
// `result` (a provider's answer: a number, a list of numbers, or the JSON a web call returns). Checked
// at apply time (conditionError: the webhook and the run controller report the field path) and
// evaluated for each measurement (evaluateCondition). Kubernetes' own expression language, on the
// same library the simulated API server's CRD rules use (docs/semantics/analysis.md#conditions).

import { Environment } from '@marcbachmann/cel-js';

type Program = (ctx: Record<string, unknown>) => unknown;

function conditionEnvironment(): Environment {
  const env = new Environment({ unlistedVariablesAreDyn: false, homogeneousAggregateLiterals: false });
  env.registerVariable('result', 'dyn');
  // Prometheus answers NaN for 0/0 (no requests yet) and ±Inf for x/0: a condition can test for them.
  env.registerFunction('isNaN(double): bool', (x: number) => Number.isNaN(x));
  env.registerFunction('isInf(double): bool', (x: number) => x === Infinity || x === -Infinity);
  return env;
}

// Built on the first condition, not on import: the kubectl plugin imports this module (through
// the validation it shares) on every command and never evaluates a condition.
let env: Environment | undefined;
const compiled = new Map<string, Program | Error>();

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0].trim();
}

function compile(expr: string): Program | Error {
  let hit = compiled.get(expr);
  if (hit) return hit;
  try {
    env ??= conditionEnvironment();
    const checked = env.check(expr);
    if (!checked.valid) throw checked.error ?? new Error('invalid expression');
    if (checked.type !== 'bool' && checked.type !== 'dyn') throw new Error(`must be a bool, not ${checked.type}`);
    hit = env.parse(expr) as Program;
  } catch (err) {
    hit = new Error(firstLine(err));
  }
  if (compiled.size > 1000) compiled.clear();
  compiled.set(expr, hit);
  return hit;
}

/** Why `expr` is not a condition over `result` (a syntax error, an unknown name, not a bool), or undefined. */
export function conditionError(expr: string): string | undefined {
  if (expr.trim() === '') return 'must not be empty';
  const p = compile(expr);
  return p instanceof Error ? p.message : undefined;
}

/** A JSON number as CEL sees it: whole numbers as well as fractions are doubles, as a provider's values are. */
function celValue(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(celValue);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, celValue(x)]));
  }
  return v;
}

/** Whether `expr` holds for `result`. Throws an Error naming the problem when it cannot be evaluated or is not a bool. */
export function evaluateCondition(expr: string, result: unknown): boolean {
  const p = compile(expr);
  if (p instanceof Error) throw new Error(`invalid condition ${JSON.stringify(expr)}: ${p.message}`);
  let out: unknown;
  try {
    out = p({ result: celValue(result) });
  } catch (err) {
    throw new Error(`condition ${JSON.stringify(expr)} could not be evaluated: ${firstLine(err)}`);
  }
  if (typeof out !== 'boolean')
    throw new Error(`condition ${JSON.stringify(expr)} gave ${JSON.stringify(out)}, not true or false`);
  return out;
}
