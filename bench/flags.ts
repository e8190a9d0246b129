// The benches' command-line flags, `--name value` anywhere on the line. A value that is missing or
// out of range is an error naming the flag and what it takes (exit 2), never a NaN run.

export class FlagError extends Error {}

export interface NumberRange {
  /** The smallest value taken (default 0). */
  min?: number;
  /** Only whole numbers (default false). */
  integer?: boolean;
  /** The only values taken, when there are few. */
  oneOf?: readonly number[];
}

/** Whether `--name` is on the line at all. */
export function given(argv: readonly string[], name: string): boolean {
  return argv.includes(name);
}

/** The value after `--name`, or undefined when the flag is absent; a flag without a value is an error. */
export function readString(argv: readonly string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  if (i < 0) return undefined;
  const v = argv[i + 1];
  if (v === undefined || v.startsWith('--')) throw new FlagError(`${name}: expected a value`);
  return v;
}

/** The number after `--name`, `fallback` when the flag is absent. */
export function readNumber(argv: readonly string[], name: string, fallback: number, range: NumberRange = {}): number {
  const raw = readString(argv, name);
  if (raw === undefined) return fallback;
  const v = raw.trim() === '' ? NaN : Number(raw);
  const min = range.min ?? 0;
  const ok =
    Number.isFinite(v) &&
    v >= min &&
    (!range.integer || Number.isInteger(v)) &&
    (!range.oneOf || range.oneOf.includes(v));
  if (ok) return v;
  const wanted = range.oneOf
    ? `one of ${range.oneOf.join(', ')}`
    : `${range.integer ? 'an integer' : 'a number'} of at least ${min}`;
  throw new FlagError(`${name}: expected ${wanted}, got ${JSON.stringify(raw)}`);
}

function orExit<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (!(err instanceof FlagError)) throw err;
    process.stderr.write(`error: ${err.message}\n`);
    process.exit(2);
  }
}

/** readNumber on this process's command line; a bad value ends the process with the error. */
export function numberFlag(name: string, fallback: number, range: NumberRange = {}): number {
  return orExit(() => readNumber(process.argv.slice(2), name, fallback, range));
}

/** readString on this process's command line; a flag without a value ends the process with the error. */
export function stringFlag(name: string): string | undefined {
  return orExit(() => readString(process.argv.slice(2), name));
}

/** given() on this process's command line. */
export function flagGiven(name: string): boolean {
  return given(process.argv.slice(2), name);
}
