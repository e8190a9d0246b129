// Admission of a custom resource against its version's structural schema, in the apiserver's order:
// prune unknown fields, apply defaults, drop non-nullable nulls, validate (OpenAPI keywords with
// kube-openapi's messages), then run the x-kubernetes-validations CEL rules.

import { isDeepStrictEqual } from 'node:util';
import type { KubeObject, StatusCause } from '../types.ts';
import type { ServedVersion } from './types.ts';
import type { JSONSchemaProps, ValidationRule } from './types.ts';
import { additionalPropertiesSchema, canonical, isPlainObject, itemsSchema } from './types.ts';
import {
  child,
  duplicate,
  forbidden,
  index,
  invalid,
  notSupported,
  required,
  tooLong,
  tooMany,
  typeInvalid,
  OMITTED,
} from './fielderrors.ts';
import { isDNS1123Subdomain } from './names.ts';
import { compileCel, isTransitionRule, runCel, toCel } from './cel.ts';

const BLOCKING = new Set([
  'FieldValueNotSupported',
  'FieldValueRequired',
  'FieldValueTooLong',
  'FieldValueTooMany',
  'FieldValueTypeInvalid',
]);
const RULES_NOT_CHECKED =
  'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';

export interface AdmitResult {
  object: KubeObject;
  causes: StatusCause[];
  /** Paths of the fields pruning dropped ("spec.foo"), for fieldValidation=Strict/Warn. */
  unknownFields: string[];
}

export function admitCustomResource(
  version: ServedVersion,
  obj: KubeObject,
  old: KubeObject | undefined,
  opts: { kind: string; group: string; subresource?: 'status' },
): AdmitResult {
  void opts; // apiVersion/kind mismatches are the HTTP layer's 400, before admission
  const schema = version.schema;
  const object = structuredClone(obj);
  const unknownFields: string[] = [];
  pruneRoot(object, schema, unknownFields);
  applyDefaults(object, schema);
  const causes = validateObjectMeta(object);
  causes.push(...validateValue(object, schema, '', true));
  causes.push(...validateScale(object, version.subresources.scale));
  if (hasRules(schema)) {
    // like the apiserver, rules do not run on an object whose shape is already wrong
    if (causes.some((c) => BLOCKING.has(c.reason ?? ''))) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: '<nil>',
        message: `Invalid value: "null": ${RULES_NOT_CHECKED}`,
      });
    } else {
      causes.push(...celValidate(object, old, schema));
    }
  }
  return { object, causes, unknownFields };
}

/**
 * With a scale subresource, the replicas at its spec and status paths must be non-negative int32s
 * (apiextensions-apiserver's ValidateScaleSpec and ValidateScaleStatus, after the schema's own
 * checks, so a negative spec.replicas is reported twice). Upstream names the field by the path as
 * written, leading dot included: `.spec.replicas: Invalid value: -1: should be a non-negative integer`.
 */
function validateScale(obj: KubeObject, scale: ServedVersion['subresources']['scale']): StatusCause[] {
  if (!scale) return [];
  const out: StatusCause[] = [];
  for (const path of [scale.specReplicasPath, scale.statusReplicasPath]) {
    let v: unknown = obj;
    for (const k of path.replace(/^\./, '').split('.')) v = isPlainObject(v) ? v[k] : undefined;
    if (typeof v !== 'number' || !Number.isInteger(v)) continue; // absent counts as 0; a wrong type is the schema's error
    if (v < 0) out.push(invalid(path, v, 'should be a non-negative integer'));
    else if (v > 2147483647) out.push(invalid(path, v, 'should be less than or equal to 2147483647'));
  }
  return out;
}

/** Apply the schema's defaults to a stored object as it is read (a CRD may have gained defaults). */
export function defaultCustomResource(version: ServedVersion, obj: KubeObject): KubeObject {
  const object = structuredClone(obj);
  applyDefaults(object, version.schema);
  return object;
}

function validateObjectMeta(obj: KubeObject): StatusCause[] {
  const m = obj.metadata;
  if (!isPlainObject(m)) return [required('metadata')];
  if (!m.name && !m.generateName) return [required('metadata.name', 'name or generateName is required')];
  if (m.name) return isDNS1123Subdomain(m.name).map((msg) => invalid('metadata.name', m.name, msg));
  return [];
}

// ---------------------------------------------------------------------------------------------
// Pruning

function pruneRoot(obj: Record<string, unknown>, s: JSONSchemaProps, dropped: string[]): void {
  pruneObject(obj, s, '', dropped, true);
}

function pruneObject(
  obj: Record<string, unknown>,
  s: JSONSchemaProps,
  path: string,
  dropped: string[],
  resourceRoot: boolean,
): void {
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const add = s.additionalProperties;
  for (const k of Object.keys(obj)) {
    // apiVersion, kind and metadata of a resource are ObjectMeta's business, never pruned here
    if (resourceRoot && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) continue;
    const ps = s.properties?.[k] ?? (typeof add === 'object' ? add : undefined);
    if (ps) {
      pruneValue(obj[k], ps, child(path, k), dropped);
    } else if (!preserve && add !== true) {
      delete obj[k];
      dropped.push(child(path, k));
    }
  }
}

function pruneValue(v: unknown, s: JSONSchemaProps, path: string, dropped: string[]): void {
  if (isPlainObject(v)) {
    if (
      s.type === 'object' ||
      s.properties ||
      s.additionalProperties !== undefined ||
      s['x-kubernetes-preserve-unknown-fields']
    ) {
      pruneObject(v, s, path, dropped, s['x-kubernetes-embedded-resource'] === true);
    }
  } else if (Array.isArray(v)) {
    const items = itemsSchema(s);
    if (items)
      v.forEach((x, i) => {
        pruneValue(x, items, index(path, i), dropped);
      });
  }
}

// ---------------------------------------------------------------------------------------------
// Defaulting (only where the parent exists) and pruning of nulls nobody asked for

function applyDefaults(v: unknown, s: JSONSchemaProps): void {
  if (isPlainObject(v)) {
    const props = s.properties;
    if (props) {
      for (const k of Object.keys(props)) {
        const ps = props[k]!;
        if (ps.default === undefined) continue;
        if (!(k in v) || (v[k] === null && !ps.nullable)) v[k] = structuredClone(ps.default);
      }
    }
    const add = additionalPropertiesSchema(s);
    for (const k of Object.keys(v)) {
      const ps = props?.[k] ?? add;
      if (!ps) continue;
      if (v[k] === null && !ps.nullable && ps.default === undefined) {
        delete v[k];
        continue;
      }
      applyDefaults(v[k], ps);
    }
  } else if (Array.isArray(v)) {
    const items = itemsSchema(s);
    if (!items) return;
    for (let i = 0; i < v.length; i++) {
      if (v[i] === null && items.default !== undefined && !items.nullable) v[i] = structuredClone(items.default);
      applyDefaults(v[i], items);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// OpenAPI value validation

/** kube-openapi's name for a JSON value's type, as printed in type errors. */
export function jsonTypeName(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'string') return 'string';
  return 'object';
}

function typeMatches(type: string, v: unknown): boolean {
  switch (type) {
    case 'object':
      return isPlainObject(v);
    case 'array':
      return Array.isArray(v);
    case 'string':
      return typeof v === 'string';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number';
    case 'boolean':
      return typeof v === 'boolean';
    default:
      return true;
  }
}

function inBody(path: string): string {
  return path === '' ? 'body' : `${path} in body`;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const GO_DURATION = /^[-+]?(\d+(\.\d*)?(ns|us|µs|ms|s|m|h))+$|^0$/;
const formatChecks: Record<string, (s: string) => boolean> = {
  'date-time': (s) => RFC3339.test(s) && !Number.isNaN(Date.parse(s)),
  datetime: (s) => RFC3339.test(s) && !Number.isNaN(Date.parse(s)),
  date: (s) => /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(s)),
  byte: (s) => /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s),
  uuid: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  ipv4: (s) => /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/.test(s),
  ipv6: (s) => s.includes(':') && /^[0-9a-fA-F:.]+$/.test(s),
  hostname: (s) =>
    s.length <= 255 &&
    /^[a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?(\.[a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?)*$/.test(s),
  email: (s) => /^[^@\s]+@[^@\s]+$/.test(s),
  duration: (s) => GO_DURATION.test(s),
};

/** Every schema violation of `v` at `path`, in schema order (also used for CRD default values). */
export function validateValue(v: unknown, s: JSONSchemaProps, path: string, resourceRoot = false): StatusCause[] {
  const errs: StatusCause[] = [];
  validateNode(v, s, path, errs, resourceRoot);
  return errs;
}

function validateIntOrString(v: unknown, path: string, errs: StatusCause[]): boolean {
  if (typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v))) return true;
  const t = jsonTypeName(v);
  errs.push(typeInvalid(path, t, `${inBody(path)} must be of type integer: ${JSON.stringify(t)}`));
  errs.push(typeInvalid(path, t, `${inBody(path)} must be of type string: ${JSON.stringify(t)}`));
  errs.push(invalid(path, '', `${JSON.stringify(path)} must validate at least one schema (anyOf)`));
  return false;
}

function validateNode(v: unknown, s: JSONSchemaProps, path: string, errs: StatusCause[], resourceRoot: boolean): void {
  if (v === null && s.nullable) return;
  if (s['x-kubernetes-int-or-string']) {
    if (!validateIntOrString(v, path, errs)) return;
  } else if (s.type) {
    if (!typeMatches(s.type, v)) {
      const t = jsonTypeName(v);
      errs.push(typeInvalid(path, t, `${inBody(path)} must be of type ${s.type}: ${JSON.stringify(t)}`));
      return;
    }
  }
  if (v === null || v === undefined) return;

  if (s.enum && s.enum.length > 0 && !s.enum.some((e) => isDeepStrictEqual(e, v))) {
    errs.push(notSupported(path, v, s.enum));
  }

  if (typeof v === 'number') validateNumber(v, s, path, errs);
  else if (typeof v === 'string') validateString(v, s, path, errs);
  else if (Array.isArray(v)) validateArray(v, s, path, errs);
  else if (isPlainObject(v)) validateObject(v, s, path, errs, resourceRoot);

  validateJunctions(v, s, path, errs);
}

function validateNumber(v: number, s: JSONSchemaProps, path: string, errs: StatusCause[]): void {
  if (s.minimum !== undefined) {
    if (s.exclusiveMinimum ? v <= s.minimum : v < s.minimum) {
      errs.push(
        invalid(
          path,
          v,
          `${inBody(path)} should be greater than ${s.exclusiveMinimum ? '' : 'or equal to '}${s.minimum}`,
        ),
      );
    }
  }
  if (s.maximum !== undefined) {
    if (s.exclusiveMaximum ? v >= s.maximum : v > s.maximum) {
      errs.push(
        invalid(path, v, `${inBody(path)} should be less than ${s.exclusiveMaximum ? '' : 'or equal to '}${s.maximum}`),
      );
    }
  }
  if (s.multipleOf !== undefined && s.multipleOf > 0) {
    const q = v / s.multipleOf;
    if (Math.abs(q - Math.round(q)) > 1e-9)
      errs.push(invalid(path, v, `${inBody(path)} should be a multiple of ${s.multipleOf}`));
  }
}

const patternCache = new Map<string, RegExp | null>();
function compilePattern(p: string): RegExp | null {
  let re = patternCache.get(p);
  if (re === undefined) {
    try {
      re = new RegExp(p, 'u');
    } catch {
      re = null;
    }
    patternCache.set(p, re);
  }
  return re;
}

function validateString(v: string, s: JSONSchemaProps, path: string, errs: StatusCause[]): void {
  const length = s.maxLength !== undefined || s.minLength !== undefined ? [...v].length : 0;
  if (s.maxLength !== undefined && length > s.maxLength) errs.push(tooLong(path, s.maxLength));
  if (s.minLength !== undefined && length < s.minLength) {
    errs.push(invalid(path, v, `${inBody(path)} should be at least ${s.minLength} chars long`));
  }
  if (s.pattern !== undefined) {
    const re = compilePattern(s.pattern);
    if (re && !re.test(v)) errs.push(invalid(path, v, `${inBody(path)} should match '${s.pattern}'`));
  }
  if (s.format && !s['x-kubernetes-int-or-string']) {
    const check = formatChecks[s.format];
    if (check && !check(v))
      errs.push(typeInvalid(path, v, `${inBody(path)} must be of type ${s.format}: ${JSON.stringify(v)}`));
  }
}

function validateArray(v: unknown[], s: JSONSchemaProps, path: string, errs: StatusCause[]): void {
  if (s.maxItems !== undefined && v.length > s.maxItems) errs.push(tooMany(path, v.length, s.maxItems));
  if (s.minItems !== undefined && v.length < s.minItems) {
    errs.push(invalid(path, v.length, `${inBody(path)} should have at least ${s.minItems} items`));
  }
  const listType = s['x-kubernetes-list-type'];
  if (listType === 'set') {
    const seen = new Set<string>();
    v.forEach((x, i) => {
      const k = canonical(x);
      if (seen.has(k)) errs.push(duplicate(index(path, i), x));
      seen.add(k);
    });
  } else if (listType === 'map') {
    const keys = s['x-kubernetes-list-map-keys'] ?? [];
    const seen = new Set<string>();
    v.forEach((x, i) => {
      if (!isPlainObject(x)) return;
      const keyValue: Record<string, unknown> = {};
      for (const k of keys) if (x[k] !== undefined) keyValue[k] = x[k];
      const k = canonical(keyValue);
      if (seen.has(k)) errs.push(duplicate(index(path, i), keyValue));
      seen.add(k);
    });
  }
  const items = itemsSchema(s);
  if (items)
    v.forEach((x, i) => {
      validateNode(x, items, index(path, i), errs, false);
    });
}

function validateObject(
  v: Record<string, unknown>,
  s: JSONSchemaProps,
  path: string,
  errs: StatusCause[],
  resourceRoot: boolean,
): void {
  const n = Object.keys(v).length;
  if (s.maxProperties !== undefined && n > s.maxProperties) errs.push(tooMany(path, n, s.maxProperties));
  if (s.minProperties !== undefined && n < s.minProperties) {
    errs.push(invalid(path, n, `${inBody(path)} should have at least ${s.minProperties} properties`));
  }
  for (const r of s.required ?? []) {
    if (!(r in v) || v[r] === undefined) errs.push(required(child(path, r)));
  }
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (embedded) {
    for (const k of ['apiVersion', 'kind']) {
      if (typeof v[k] !== 'string' || v[k] === '') errs.push(required(child(path, k)));
    }
  }
  const add = additionalPropertiesSchema(s);
  for (const k of Object.keys(v)) {
    // the root's metadata is ObjectMeta, validated on its own (name and generateName below)
    if ((resourceRoot || embedded) && (k === 'metadata' || k === 'apiVersion' || k === 'kind')) {
      if (k === 'metadata' && resourceRoot) validateRootMetadata(v[k], s.properties?.metadata, child(path, k), errs);
      continue;
    }
    const ps = s.properties?.[k] ?? add;
    if (ps) validateNode(v[k], ps, child(path, k), errs, false);
  }
  if (s.additionalProperties === false && s.properties) {
    for (const k of Object.keys(v)) if (!(k in s.properties)) errs.push(forbidden(child(path, k)));
  }
}

// A CRD may constrain metadata.name and metadata.generateName only.
function validateRootMetadata(m: unknown, s: JSONSchemaProps | undefined, path: string, errs: StatusCause[]): void {
  if (!s?.properties || !isPlainObject(m)) return;
  for (const k of ['name', 'generateName']) {
    const ps = s.properties[k];
    if (ps && m[k] !== undefined) validateNode(m[k], ps, child(path, k), errs, false);
  }
}

function isIntOrStringPattern(branches: JSONSchemaProps[] | undefined): boolean {
  return branches?.length === 2 && branches[0]?.type === 'integer' && branches[1]?.type === 'string';
}

function validateJunctions(v: unknown, s: JSONSchemaProps, path: string, errs: StatusCause[]): void {
  for (const sub of s.allOf ?? []) {
    if (sub.anyOf && s['x-kubernetes-int-or-string'] && isIntOrStringPattern(sub.anyOf)) continue;
    validateJunctions(v, sub, path, errs);
    validateNode(
      v,
      { ...sub, allOf: undefined, anyOf: undefined, oneOf: undefined, not: undefined },
      path,
      errs,
      false,
    );
  }
  if (s.anyOf && !(s['x-kubernetes-int-or-string'] && isIntOrStringPattern(s.anyOf))) {
    const results = s.anyOf.map((sub) => validateValue(v, sub, path));
    if (!results.some((r) => r.length === 0)) {
      for (const r of results) errs.push(...r);
      errs.push(invalid(path, '', `${JSON.stringify(path)} must validate at least one schema (anyOf)`));
    }
  }
  if (s.oneOf) {
    const results = s.oneOf.map((sub) => validateValue(v, sub, path));
    const ok = results.filter((r) => r.length === 0).length;
    if (ok === 0) {
      for (const r of results) errs.push(...r);
      errs.push(invalid(path, '', `${JSON.stringify(path)} must validate one and only one schema (oneOf)`));
    } else if (ok > 1) {
      errs.push(
        invalid(
          path,
          '',
          `${JSON.stringify(path)} must validate one and only one schema (oneOf). Found ${ok} valid alternatives`,
        ),
      );
    }
  }
  if (s.not && validateValue(v, s.not, path).length === 0) {
    errs.push(invalid(path, '', `${JSON.stringify(path)} must not validate the schema (not)`));
  }
}

// ---------------------------------------------------------------------------------------------
// CEL rules (x-kubernetes-validations)

const rulesIn = new WeakMap<JSONSchemaProps, boolean>();

/** Whether any node of the schema carries x-kubernetes-validations (memoised per schema object). */
export function hasRules(s: JSONSchemaProps): boolean {
  let r = rulesIn.get(s);
  if (r !== undefined) return r;
  r =
    (s['x-kubernetes-validations']?.length ?? 0) > 0 ||
    Object.values(s.properties ?? {}).some(hasRules) ||
    (itemsSchema(s) !== undefined && hasRules(itemsSchema(s)!)) ||
    (additionalPropertiesSchema(s) !== undefined && hasRules(additionalPropertiesSchema(s)!));
  rulesIn.set(s, r);
  return r;
}

function celValidate(obj: KubeObject, old: KubeObject | undefined, s: JSONSchemaProps): StatusCause[] {
  const errs: StatusCause[] = [];
  const self = toCel(obj, s, true);
  const oldSelf = old === undefined ? undefined : toCel(old, s, true);
  celNode(obj, old, self, oldSelf, s, '', errs);
  return errs;
}

/** `.spec.replicas`, `['a.b']`, `[0]` relative to the node, as a field path. */
function joinFieldPath(base: string, fieldPath: string): string {
  let out = base;
  const re = /\.([A-Za-z_$][\w$-]*)|\['((?:[^'\\]|\\.)*)'\]|\[(\d+)\]/gy;
  let m: RegExpExecArray | null;
  while ((m = re.exec(fieldPath)) !== null) {
    if (m[1] !== undefined) out = child(out, m[1]);
    else if (m[2] !== undefined) out = `${out}[${m[2]}]`;
    else out = `${out}[${m[3]}]`;
  }
  return out;
}

function ruleCause(rule: ValidationRule, path: string, bad: unknown, message: string): StatusCause {
  const field = rule.fieldPath ? joinFieldPath(path, rule.fieldPath) : path;
  switch (rule.reason) {
    case 'FieldValueForbidden':
      return forbidden(field, message);
    case 'FieldValueRequired':
      return required(field, message);
    case 'FieldValueDuplicate':
      return duplicate(field, bad);
    default:
      return invalid(field, bad, message);
  }
}

function ruleMessage(rule: ValidationRule, ctx: Record<string, unknown>): string {
  if (rule.messageExpression) {
    const c = compileCel(rule.messageExpression);
    if (c.ok) {
      const r = runCel(c.program, ctx);
      if (typeof r.value === 'string' && r.value.trim() !== '' && !r.value.includes('\n')) return r.value;
    }
  }
  if (rule.message) return rule.message;
  return `failed rule: ${rule.rule.trim()}`;
}

function celNode(
  v: unknown,
  old: unknown,
  self: unknown,
  oldSelf: unknown,
  s: JSONSchemaProps,
  path: string,
  errs: StatusCause[],
): void {
  if (v === null || v === undefined || !hasRules(s)) return;
  if (s.type && !typeMatches(s.type, v)) return; // already a type error; rules would only misfire
  // The value a failed rule reports: a scalar as given, an object's or a list's left out (as
  // kube-apiserver 1.36 prints them: `spec.s: Invalid value: "bad": ...`, `spec.obj: Invalid value: ...`).
  const bad = isPlainObject(v) || Array.isArray(v) ? OMITTED : v;
  for (const rule of s['x-kubernetes-validations'] ?? []) {
    const transition = isTransitionRule(rule.rule);
    if (transition && (old === undefined || old === null)) continue;
    const c = compileCel(rule.rule);
    if (!c.ok) continue; // rejected when the CRD was written
    const ctx = transition ? { self, oldSelf } : { self };
    const r = runCel(c.program, ctx);
    if (r.error !== undefined) {
      errs.push(invalid(path, bad, `${r.error} evaluating rule: ${rule.rule}`));
    } else if (r.value !== true) {
      errs.push(ruleCause(rule, path, bad, ruleMessage(rule, ctx)));
    }
  }
  if (isPlainObject(v)) {
    const add = additionalPropertiesSchema(s);
    const o = isPlainObject(old) ? old : undefined;
    const cs = self as Record<string, unknown>;
    const co = isPlainObject(oldSelf) ? oldSelf : undefined;
    for (const k of Object.keys(v)) {
      if (path === '' && (k === 'metadata' || k === 'apiVersion' || k === 'kind')) continue;
      const ps = s.properties?.[k] ?? add;
      if (ps) celNode(v[k], o?.[k], cs[k], co?.[k], ps, child(path, k), errs);
    }
  } else if (Array.isArray(v)) {
    const items = itemsSchema(s);
    if (!items || !hasRules(items)) return;
    const cs = self as unknown[];
    // old elements correlate only through the keys of a map list
    const keys = s['x-kubernetes-list-type'] === 'map' ? (s['x-kubernetes-list-map-keys'] ?? []) : undefined;
    const oldByKey = new Map<string, { raw: unknown; cel: unknown }>();
    if (keys && Array.isArray(old) && Array.isArray(oldSelf)) {
      old.forEach((x, i) => {
        if (isPlainObject(x)) oldByKey.set(canonical(keys.map((k) => x[k])), { raw: x, cel: oldSelf[i] });
      });
    }
    v.forEach((x, i) => {
      const prev = keys && isPlainObject(x) ? oldByKey.get(canonical(keys.map((k) => x[k]))) : undefined;
      celNode(x, prev?.raw, cs[i], prev?.cel, items, index(path, i), errs);
    });
  }
}
