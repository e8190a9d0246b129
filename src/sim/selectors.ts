// Label and field selectors in their query-string forms (`?labelSelector=`, `?fieldSelector=`), as
// the API server parses them: the full label grammar (=, ==, !=, in, notin, exists, !exists, gt, lt)
// and the per-type field labels (docs/simulated-api-server.md#lists-and-selectors). Parse errors become 400 BadRequest.

import { ApiError } from './types.ts';
import type { KubeObject, ResourceRef } from './types.ts';

export type LabelOperator = 'in' | 'notin' | 'exists' | '!' | '=' | '==' | '!=' | 'gt' | 'lt';

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  values: string[];
}

export type LabelSelectorFn = (labels: Record<string, string> | undefined) => boolean;

function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

// ---- label selector lexer and parser -------------------------------------------------------

type Token =
  | { t: 'id'; v: string }
  | { t: 'op'; v: '=' | '==' | '!=' | '!' | '(' | ')' | ',' | '<' | '>' }
  | { t: 'end' };

const SPECIAL = new Set(['=', '!', '(', ')', ',', '<', '>', ' ', '\t', '\n', '\r']);

function lex(s: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    if (c === '=' && s[i + 1] === '=') {
      out.push({ t: 'op', v: '==' });
      i += 2;
      continue;
    }
    if (c === '!' && s[i + 1] === '=') {
      out.push({ t: 'op', v: '!=' });
      i += 2;
      continue;
    }
    if (c === '=' || c === '!' || c === '(' || c === ')' || c === ',' || c === '<' || c === '>') {
      out.push({ t: 'op', v: c });
      i++;
      continue;
    }
    let j = i;
    while (j < s.length && !SPECIAL.has(s[j])) j++;
    out.push({ t: 'id', v: s.slice(i, j) });
    i = j;
  }
  out.push({ t: 'end' });
  return out;
}

function describe(tok: Token): string {
  return tok.t === 'end' ? '' : tok.v;
}

const QUALIFIED_NAME = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Label keys: `[prefix/]name`, name ≤ 63 characters, prefix a DNS subdomain (upstream's IsQualifiedName). */
export function labelKeyError(key: string): string | undefined {
  const parts = key.split('/');
  let name = key;
  if (parts.length === 2) {
    if (parts[0].length === 0 || parts[0].length > 253 || !DNS_SUBDOMAIN.test(parts[0])) {
      return 'prefix part must be a lowercase RFC 1123 subdomain';
    }
    name = parts[1];
  } else if (parts.length > 2) {
    return "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
  }
  if (name.length === 0) return 'name part must be non-empty';
  if (name.length > 63) return 'name part must be no more than 63 characters';
  if (!QUALIFIED_NAME.test(name)) {
    return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  }
  return undefined;
}

export function labelValueError(v: string): string | undefined {
  if (v.length > 63) return 'must be no more than 63 characters';
  if (!LABEL_VALUE.test(v)) {
    return "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
  }
  return undefined;
}

/** Parses `?labelSelector=` text; throws ApiError 400 on bad syntax, keys or values. */
export function parseLabelSelector(text: string): LabelRequirement[] {
  const toks = lex(text);
  let p = 0;
  const peek = (): Token => toks[p];
  const next = (): Token => toks[p++];
  const fail = (found: Token, expected: string): never => {
    throw badRequest(`unable to parse requirement: found '${describe(found)}', expected: ${expected}`);
  };
  const reqs: LabelRequirement[] = [];
  if (peek().t === 'end') return reqs;
  for (;;) {
    let negated = false;
    let tok = next();
    if (tok.t === 'op' && tok.v === '!') {
      negated = true;
      tok = next();
    }
    if (tok.t !== 'id') return fail(tok, 'identifier');
    const key = tok.v;
    const keyErr = labelKeyError(key);
    if (keyErr)
      throw badRequest(`unable to parse requirement: <nil>: Invalid value: ${JSON.stringify(key)}: ${keyErr}`);
    const after = peek();
    if (negated || after.t === 'end' || (after.t === 'op' && after.v === ',')) {
      if (negated && !(after.t === 'end' || (after.t === 'op' && after.v === ','))) {
        return fail(after, "',' or 'end of string'");
      }
      reqs.push({ key, operator: negated ? '!' : 'exists', values: [] });
    } else {
      const opTok = next();
      let operator: LabelOperator;
      if (opTok.t === 'id' && (opTok.v === 'in' || opTok.v === 'notin')) operator = opTok.v;
      else if (opTok.t === 'op' && (opTok.v === '=' || opTok.v === '==' || opTok.v === '!=')) operator = opTok.v;
      else if (opTok.t === 'op' && opTok.v === '>') operator = 'gt';
      else if (opTok.t === 'op' && opTok.v === '<') operator = 'lt';
      else return fail(opTok, "'=', '!=', '==', 'in', notin'");
      const values: string[] = [];
      if (operator === 'in' || operator === 'notin') {
        const open = next();
        if (!(open.t === 'op' && open.v === '(')) return fail(open, "'('");
        for (;;) {
          const v = peek();
          if (v.t === 'id') {
            values.push(v.v);
            next();
          } else if (v.t === 'op' && (v.v === ',' || v.v === ')')) values.push('');
          else return fail(v, "',', ')' or identifier");
          const sep = next();
          if (sep.t === 'op' && sep.v === ')') break;
          if (!(sep.t === 'op' && sep.v === ',')) return fail(sep, "',' or ')'");
        }
      } else {
        const v = peek();
        if (v.t === 'id') {
          values.push(v.v);
          next();
        } else if (v.t === 'end' || (v.t === 'op' && v.v === ',')) values.push('');
        else return fail(v, 'identifier');
        if ((operator === 'gt' || operator === 'lt') && !/^-?\d+$/.test(values[0])) {
          throw badRequest(
            `unable to parse requirement: <nil>: Invalid value: ${JSON.stringify(values[0])}: for 'Gt', 'Lt' operators, the value must be an integer`,
          );
        }
      }
      if (operator !== 'gt' && operator !== 'lt') {
        for (const v of values) {
          const e = labelValueError(v);
          if (e) throw badRequest(`unable to parse requirement: <nil>: Invalid value: ${JSON.stringify(v)}: ${e}`);
        }
      }
      reqs.push({ key, operator, values });
    }
    const sep = next();
    if (sep.t === 'end') break;
    if (!(sep.t === 'op' && sep.v === ',')) return fail(sep, "',' or 'end of string'");
  }
  return reqs;
}

export function requirementMatches(r: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, r.key);
  const v = labels[r.key];
  switch (r.operator) {
    case '=':
    case '==':
    case 'in':
      return has && r.values.includes(v);
    case '!=':
    case 'notin':
      return !has || !r.values.includes(v);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
      return has && /^-?\d+$/.test(v) && Number(v) > Number(r.values[0]);
    case 'lt':
      return has && /^-?\d+$/.test(v) && Number(v) < Number(r.values[0]);
  }
}

/** A matcher for `?labelSelector=` text; empty text matches everything. */
export function labelSelectorFn(text: string | undefined): LabelSelectorFn {
  const reqs = text ? parseLabelSelector(text) : [];
  if (reqs.length === 0) return () => true;
  return (labels) => {
    const l = labels ?? {};
    for (const r of reqs) if (!requirementMatches(r, l)) return false;
    return true;
  };
}

// ---- field selectors -----------------------------------------------------------------------

export interface FieldRequirement {
  field: string;
  operator: '=' | '==' | '!=';
  value: string;
}

/** Splits on unescaped `sep`, keeping escapes for a second pass. */
function splitUnescaped(s: string, sep: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\' && i + 1 < s.length) {
      cur += c + s[i + 1];
      i++;
      continue;
    }
    if (c === sep) {
      out.push(cur);
      cur = '';
      continue;
    }
    cur += c;
  }
  out.push(cur);
  return out;
}

function unescapeFieldValue(v: string): string {
  let out = '';
  for (let i = 0; i < v.length; i++) {
    const c = v[i];
    if (c === '\\') {
      const n = v[i + 1];
      if (n === '\\' || n === ',' || n === '=') {
        out += n;
        i++;
        continue;
      }
      throw badRequest(`invalid field selector: invalid escape sequence: \\${n ?? ''}`);
    }
    out += c;
  }
  return out;
}

/** Parses `?fieldSelector=` text (`a=b,c!=d`, with `\,` `\=` `\\` escapes). */
export function parseFieldSelector(text: string): FieldRequirement[] {
  const out: FieldRequirement[] = [];
  if (text.trim() === '') return out;
  for (const term of splitUnescaped(text, ',')) {
    // Find the first unescaped operator.
    let idx = -1;
    let op: FieldRequirement['operator'] = '=';
    for (let i = 0; i < term.length; i++) {
      if (term[i] === '\\') {
        i++;
        continue;
      }
      if (term.startsWith('!=', i)) {
        idx = i;
        op = '!=';
        break;
      }
      if (term.startsWith('==', i)) {
        idx = i;
        op = '==';
        break;
      }
      if (term[i] === '=') {
        idx = i;
        op = '=';
        break;
      }
    }
    if (idx < 0) throw badRequest(`invalid selector: '${text}'; can't understand '${term}'`);
    const field = term.slice(0, idx).trim();
    const value = unescapeFieldValue(term.slice(idx + op.length));
    out.push({ field, operator: op, value });
  }
  return out;
}

function str(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'boolean' || typeof v === 'number') return String(v);
  if (typeof v === 'string') return v;
  return '';
}

function at(o: unknown, path: string[]): unknown {
  let cur: unknown = o;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

type FieldGetter = (o: KubeObject) => string;
const byPath = (path: string): FieldGetter => {
  const parts = path.split('.');
  return (o) => str(at(o, parts));
};

const COMMON: Record<string, FieldGetter> = {
  'metadata.name': (o) => o.metadata.name ?? '',
  'metadata.namespace': (o) => o.metadata.namespace ?? '',
};

/** Field labels each built-in type supports (upstream's per-type field label conversion functions). */
const FIELDS: Record<string, Record<string, FieldGetter>> = {
  '/pods': {
    'spec.nodeName': byPath('spec.nodeName'),
    'spec.restartPolicy': byPath('spec.restartPolicy'),
    'spec.schedulerName': byPath('spec.schedulerName'),
    'spec.serviceAccountName': byPath('spec.serviceAccountName'),
    'spec.hostNetwork': (o) => str(at(o, ['spec', 'hostNetwork']) ?? false),
    'status.phase': byPath('status.phase'),
    'status.podIP': byPath('status.podIP'),
    'status.podIPs': (o) => {
      const ips = at(o, ['status', 'podIPs']);
      return Array.isArray(ips) && ips.length > 0 ? str((ips[0] as { ip?: string }).ip) : '';
    },
    'status.nominatedNodeName': byPath('status.nominatedNodeName'),
  },
  '/events': {
    'involvedObject.kind': byPath('involvedObject.kind'),
    'involvedObject.namespace': byPath('involvedObject.namespace'),
    'involvedObject.name': byPath('involvedObject.name'),
    'involvedObject.uid': byPath('involvedObject.uid'),
    'involvedObject.apiVersion': byPath('involvedObject.apiVersion'),
    'involvedObject.resourceVersion': byPath('involvedObject.resourceVersion'),
    'involvedObject.fieldPath': byPath('involvedObject.fieldPath'),
    reason: byPath('reason'),
    reportingComponent: byPath('reportingComponent'),
    source: byPath('source.component'),
    type: byPath('type'),
  },
  '/nodes': { 'spec.unschedulable': (o) => str(at(o, ['spec', 'unschedulable']) ?? false) },
  '/namespaces': { 'status.phase': byPath('status.phase') },
  'apps/replicasets': { 'status.replicas': (o) => str(at(o, ['status', 'replicas']) ?? 0) },
};

export type FieldSelectorFn = (o: KubeObject) => boolean;

export interface ParsedFieldSelector {
  requirements: FieldRequirement[];
  matches: FieldSelectorFn;
  /** Set when the selector pins one name (`metadata.name=x`): lets a list skip the scan. */
  name?: string;
}

/**
 * Compiles `?fieldSelector=` for one resource type. An unsupported field label → 400 with
 * upstream's message (it names the group-version-resource and both selectors).
 */
export function fieldSelectorFor(ref: ResourceRef, text: string | undefined, labelText = ''): ParsedFieldSelector {
  const requirements = text ? parseFieldSelector(text) : [];
  if (requirements.length === 0) return { requirements, matches: () => true };
  const specific = FIELDS[`${ref.group}/${ref.resource}`] ?? {};
  const getters: Array<{ get: FieldGetter; r: FieldRequirement }> = [];
  let name: string | undefined;
  for (const r of requirements) {
    const get = COMMON[r.field] ?? specific[r.field];
    if (!get) {
      const gv = ref.group === '' ? `/${ref.version}` : `${ref.group}/${ref.version}`;
      throw badRequest(
        `Unable to find "${gv}, Resource=${ref.resource}" that match label selector "${labelText}", field selector "${text}": field label not supported: ${r.field}`,
      );
    }
    if (r.field === 'metadata.name' && r.operator !== '!=') name = r.value;
    getters.push({ get, r });
  }
  return {
    requirements,
    name,
    matches: (o) => {
      for (const { get, r } of getters) {
        const v = get(o);
        if (r.operator === '!=' ? v === r.value : v !== r.value) return false;
      }
      return true;
    },
  };
}
