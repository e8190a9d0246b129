// The JSONPath a web metric reads its value with: one value of the body, found by fields and indexes,
// written as kubectl writes it (`{.data.ok}`, `{$.data.ok}`) or bare (`$.data.ok`, `.data.ok`):
// dotted fields, `[n]` indexes (negative from the end), and `['key']` / `["key"]` for a key with dots
// or other characters. No wildcards or filters: a metric's result is one value.

export type PathStep = { field: string } | { index: number };

/** The steps of `path`, or an Error saying where it cannot be read. */
export function parseJsonPath(path: string): PathStep[] | Error {
  let p = path.trim();
  if (p.startsWith('{') && p.endsWith('}')) p = p.slice(1, -1).trim();
  if (p.startsWith('$')) p = p.slice(1);
  const steps: PathStep[] = [];
  let i = 0;
  while (i < p.length) {
    const rest = p.slice(i);
    let m: RegExpExecArray | null;
    if ((m = /^\.?([A-Za-z0-9_\-/:@]+)/.exec(rest)) && (rest[0] === '.' || i === 0)) {
      steps.push({ field: m[1] });
    } else if ((m = /^\[\s*(-?\d+)\s*\]/.exec(rest))) {
      steps.push({ index: Number(m[1]) });
    } else if ((m = /^\[\s*'((?:[^'\\]|\\.)*)'\s*\]/.exec(rest)) || (m = /^\[\s*"((?:[^"\\]|\\.)*)"\s*\]/.exec(rest))) {
      steps.push({ field: m[1].replace(/\\(.)/g, '$1') });
    } else {
      return new Error(`cannot read ${JSON.stringify(path)} at ${JSON.stringify(rest)}`);
    }
    i += m[0].length;
  }
  return steps;
}

/** The value `steps` lead to in `root`, or `{ missing }` naming the first step that found nothing. */
export function walk(root: unknown, steps: PathStep[]): { value: unknown } | { missing: string } {
  let cur = root;
  let at = '$';
  for (const step of steps) {
    if ('index' in step) {
      at += `[${step.index}]`;
      if (!Array.isArray(cur)) return { missing: at };
      const n = step.index < 0 ? cur.length + step.index : step.index;
      if (n < 0 || n >= cur.length) return { missing: at };
      cur = cur[n];
    } else {
      at += /^[A-Za-z_][A-Za-z0-9_]*$/.test(step.field) ? `.${step.field}` : `[${JSON.stringify(step.field)}]`;
      if (cur === null || typeof cur !== 'object' || Array.isArray(cur) || !Object.hasOwn(cur, step.field))
        return { missing: at };
      cur = (cur as Record<string, unknown>)[step.field];
    }
  }
  return { value: cur };
}
