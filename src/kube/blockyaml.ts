// A reader of the plain block YAML that kubectl, kind, Pacer's simulated cluster and most tools
// write for a kubeconfig: nested maps and lists in block style, plain, single- and double-quoted
// scalars, `{}` and `[]`, whole-line comments. The `yaml` package reads any YAML, but its first
// parse in a process costs the kubectl plugin some 10 to 30 ms of its start (docs/plugin.md,
// "Start-up time"); this reads those files in well under a millisecond. It answers undefined for
// anything else (anchors, tags, block scalars, flow collections with content, trailing comments,
// numbers, several documents, ...), and the caller then parses with `yaml`: a file is read either
// exactly as `yaml` reads it or by `yaml` itself (test/unit/kube/blockyaml.test.ts holds both).

interface Line {
  indent: number;
  text: string;
}

/** Thrown inside the reader when the text leaves the subset; caught by blockYaml. */
class NotSimple extends Error {}

const KEY = /^[A-Za-z0-9_][A-Za-z0-9_./-]*$/;
// Plain scalars that YAML's core schema reads as something else than a string, or might: left to yaml.
const NOT_A_STRING = /^(?:[-+.]?[0-9]|[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN)$|(?:True|TRUE|False|FALSE|Null|NULL|~)$)/;
const INDICATOR = /^[[\]{}&*!|>'"%@`#,?:-]/;

function scalar(v: string): unknown {
  if (v === '' || v === 'null') return null;
  if (v === 'true') return true;
  if (v === 'false') return false;
  if (v === '{}') return {};
  if (v === '[]') return [];
  if (v.startsWith('"')) {
    try {
      const s = JSON.parse(v) as unknown; // YAML's double-quoted escapes include JSON's; others fail here
      if (typeof s === 'string') return s;
    } catch {
      // left to yaml
    }
    throw new NotSimple();
  }
  if (v.startsWith("'")) {
    if (v.length < 2 || !v.endsWith("'")) throw new NotSimple();
    const inner = v.slice(1, -1);
    if (/'(?!')/.test(inner.replaceAll("''", ''))) throw new NotSimple();
    return inner.replaceAll("''", "'");
  }
  if (INDICATOR.test(v) || NOT_A_STRING.test(v) || v.includes(': ') || v.includes(' #') || v.endsWith(':'))
    throw new NotSimple();
  return v;
}

/** The value of a `key: rest` or `- rest` line with its children (lines deeper than `indent`). */
function value(lines: Line[], at: { i: number }, indent: number, rest: string, sameIndentList: boolean): unknown {
  if (rest !== '') {
    const next = lines[at.i];
    if (next !== undefined && next.indent > indent) throw new NotSimple(); // a continued scalar
    return scalar(rest);
  }
  const next = lines[at.i];
  if (next === undefined) return null;
  if (next.indent > indent) return block(lines, at, next.indent);
  // `key:` followed by `- item` at the key's own indentation: a list (kubectl writes these).
  if (sameIndentList && next.indent === indent && isItem(next.text)) return list(lines, at, indent);
  return null;
}

function isItem(text: string): boolean {
  return text === '-' || text.startsWith('- ');
}

function block(lines: Line[], at: { i: number }, indent: number): unknown {
  return isItem(lines[at.i].text) ? list(lines, at, indent) : map(lines, at, indent);
}

function list(lines: Line[], at: { i: number }, indent: number): unknown[] {
  const out: unknown[] = [];
  while (at.i < lines.length && lines[at.i].indent === indent && isItem(lines[at.i].text)) {
    const rest = lines[at.i].text.slice(1).replace(/^ +/, '');
    if (rest === '' || !/^[^'"]*?: |^[^'"]*?:$/.test(rest) || !KEY.test(rest.slice(0, rest.indexOf(':')))) {
      at.i++;
      out.push(value(lines, at, indent, rest, false));
      continue;
    }
    // `- key: value`: a map whose first key sits where the text after the dash starts.
    const inner = indent + lines[at.i].text.length - rest.length;
    lines[at.i] = { indent: inner, text: rest };
    out.push(map(lines, at, inner));
  }
  return out;
}

function map(lines: Line[], at: { i: number }, indent: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  while (at.i < lines.length && lines[at.i].indent === indent && !isItem(lines[at.i].text)) {
    const { text } = lines[at.i];
    const colon = text.indexOf(':');
    if (colon <= 0 || (text.length > colon + 1 && text[colon + 1] !== ' ')) throw new NotSimple();
    const key = text.slice(0, colon);
    if (!KEY.test(key) || key === '__proto__' || Object.hasOwn(out, key)) throw new NotSimple();
    at.i++;
    out[key] = value(lines, at, indent, text.slice(colon + 1).trim(), true);
  }
  if (at.i < lines.length && lines[at.i].indent > indent) throw new NotSimple();
  return out;
}

/** The document in `text` when it is in the subset above, else undefined (parse it with `yaml`). */
export function blockYaml(text: string): unknown {
  const lines: Line[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const body = line.replace(/^ +/, '');
    if (body === '' || body.startsWith('#')) continue;
    if (body.startsWith('\t') || line.endsWith(' ') || body.startsWith('---') || body.startsWith('...'))
      return undefined;
    lines.push({ indent: line.length - body.length, text: body });
  }
  if (lines.length === 0) return undefined;
  try {
    const at = { i: 0 };
    const doc = block(lines, at, lines[0].indent);
    return at.i === lines.length ? doc : undefined;
  } catch (err) {
    if (err instanceof NotSimple) return undefined;
    throw err;
  }
}
