// The JSONPath subset printer columns use: `.a.b`, `['a.b']`, `[0]`, `[*]`, and filters such as
// `[?(@.type=="Ready")]`. Compiled paths are cached: every listed row evaluates every column.

type Step =
  | { kind: 'field'; name: string }
  | { kind: 'index'; at: number }
  | { kind: 'all' }
  | { kind: 'filter'; path: string[]; op: '==' | '!=' | 'exists'; value?: unknown };

const cache = new Map<string, Step[] | null>();

function parseLiteral(s: string): unknown {
  const t = s.trim();
  if ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'"))) return t.slice(1, -1);
  if (t === 'true') return true;
  if (t === 'false') return false;
  if (t === 'null') return null;
  const n = Number(t);
  return Number.isNaN(n) ? t : n;
}

function parse(path: string): Step[] | null {
  let p = path.trim();
  if (p.startsWith('{') && p.endsWith('}')) p = p.slice(1, -1).trim();
  if (p.startsWith('$')) p = p.slice(1);
  const steps: Step[] = [];
  let i = 0;
  while (i < p.length) {
    const c = p[i];
    if (c === '.') {
      const m = /^\.([^.[\]]*)/.exec(p.slice(i));
      if (!m) return null;
      if (m[1] === '*') steps.push({ kind: 'all' });
      else if (m[1] !== '') steps.push({ kind: 'field', name: m[1]! });
      i += m[0].length;
    } else if (c === '[') {
      const end = p.indexOf(']', i);
      if (end < 0) return null;
      const inner = p.slice(i + 1, end).trim();
      if (inner === '*') steps.push({ kind: 'all' });
      else if (/^-?\d+$/.test(inner)) steps.push({ kind: 'index', at: Number(inner) });
      else if (/^'.*'$|^".*"$/.test(inner)) steps.push({ kind: 'field', name: inner.slice(1, -1) });
      else {
        const f = /^\?\(@((?:\.[\w-]+)+)\s*(?:(==|!=)\s*(.+))?\)$/.exec(inner);
        if (!f) return null;
        const fpath = f[1]!.split('.').filter(Boolean);
        steps.push(
          f[2]
            ? { kind: 'filter', path: fpath, op: f[2] as '==' | '!=', value: parseLiteral(f[3]!) }
            : { kind: 'filter', path: fpath, op: 'exists' },
        );
      }
      i = end + 1;
    } else {
      // a bare leading name ("spec.replicas")
      const m = /^([^.[\]]+)/.exec(p.slice(i));
      if (!m) return null;
      steps.push({ kind: 'field', name: m[1]! });
      i += m[0].length;
    }
  }
  return steps;
}

function get(v: unknown, path: string[]): unknown {
  let cur = v;
  for (const k of path) {
    if (typeof cur !== 'object' || cur === null || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}

/** Every value the path selects in `root` (empty when nothing matches or the path does not parse). */
export function findResults(root: unknown, path: string): unknown[] {
  let steps = cache.get(path);
  if (steps === undefined) {
    steps = parse(path);
    cache.set(path, steps);
  }
  if (!steps) return [];
  let current: unknown[] = [root];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of current) {
      if (step.kind === 'field') {
        if (typeof v === 'object' && v !== null && !Array.isArray(v) && step.name in v)
          next.push((v as Record<string, unknown>)[step.name]);
      } else if (step.kind === 'index') {
        if (Array.isArray(v)) {
          const at = step.at < 0 ? v.length + step.at : step.at;
          if (at >= 0 && at < v.length) next.push(v[at]);
        }
      } else if (step.kind === 'all') {
        if (Array.isArray(v)) next.push(...v);
        else if (typeof v === 'object' && v !== null) next.push(...Object.values(v));
      } else {
        const items = Array.isArray(v) ? v : [];
        for (const item of items) {
          const got = get(item, step.path);
          if (
            step.op === 'exists'
              ? got !== undefined
              : step.op === '=='
                ? got === step.value
                : got !== undefined && got !== step.value
          )
            next.push(item);
        }
      }
    }
    current = next;
  }
  return current;
}
