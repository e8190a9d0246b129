// Validation of the analysis resources (docs/semantics/analysis.md#the-resources): an
// AnalysisTemplate's and a ClusterAnalysisTemplate's spec, an AnalysisRun's, and a Deployment's
// spec.analysis. Field errors in apimachinery's shape, each with the path and the value given, as
// the admission webhook (src/server/webhook.ts) refuses them and a pass reports them. The CRDs say
// what a schema can; this is the whole of it: CEL conditions compiled, durations and URLs parsed,
// every `{{args.NAME}}` reference checked against the arguments declared.

import { ON_FAILURE, PROVIDER_NAMES } from './analysis.ts';
import type { AnalysisRun, AnalysisTemplate } from './analysis.ts';
import { conditionError } from './conditions.ts';
import { parseGoDuration } from './duration.ts';
import { NON_NEGATIVE, jsonTypeName } from './fielderrors.ts';
import type { FieldError } from './fielderrors.ts';
import { scaledValue } from './intstr.ts';
import { dns1123LabelErrors, dns1123SubdomainErrors } from './names.ts';
import { DEFAULT_STRATEGY_TYPE, STRATEGY_RULES, strategyRules } from './strategies/index.ts';

// ---------------------------------------------------------------------------------------------
// Argument references

/**
 * `{{args.NAME}}` as written anywhere in a metric: the name is group 1. Spaces inside the braces are
 * matched too, so that `{{ args.x }}` (which nothing replaces) is reported rather than sent as is.
 */
const REFERENCE = /\{\{\s*args\.([^{}]*?)\s*\}\}/g;
/** A value that is one reference and nothing else (an IntOrString limit given by an argument). */
const WHOLE_REFERENCE = /^\{\{args\.([^{}\s]+)\}\}$/;

/** The argument names `text` refers to, in order, as `{{args.NAME}}` (what the run controller replaces). */
export function argReferences(text: string): string[] {
  return [...text.matchAll(REFERENCE)].filter((m) => m[0] === `{{args.${m[1]}}}`).map((m) => m[1]);
}

const ARG_NAME_FORMAT = '[A-Za-z0-9_]([-A-Za-z0-9_.]*[A-Za-z0-9_])?';
const ARG_NAME = new RegExp(`^${ARG_NAME_FORMAT}$`);
const ARG_NAME_MSG = `must consist of letters, digits, '-', '_' or '.', and start and end with a letter, a digit or '_' (regex used for validation is '${ARG_NAME_FORMAT}')`;

// ---------------------------------------------------------------------------------------------
// Small checks

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const given = (v: unknown): boolean => v !== undefined && v !== null;
const quoted = (names: readonly string[]): string => names.map((n) => `"${n}"`).join(', ');

/** The schema's words for a value of the wrong JSON type. */
function typeError(field: string, v: unknown, want: string): FieldError {
  const t = jsonTypeName(v);
  return { field, type: 'Invalid', value: t, detail: `${field} in body must be of type ${want}: "${t}"` };
}

/** An optional object field: true when it is an object, an error when it is something else. */
function objectField(field: string, v: unknown, errs: FieldError[]): v is Obj {
  if (!given(v)) return false;
  if (!isObject(v)) {
    errs.push(typeError(field, v, 'object'));
    return false;
  }
  return true;
}

/** An optional list field: the list, empty when absent, with an error when it is no list. */
function listField(field: string, v: unknown, errs: FieldError[]): unknown[] {
  if (!given(v)) return [];
  if (!Array.isArray(v)) {
    errs.push(typeError(field, v, 'array'));
    return [];
  }
  return v;
}

/** An optional string field: true when it is a string, an error when it is something else. */
function stringField(field: string, v: unknown, errs: FieldError[]): v is string {
  if (!given(v)) return false;
  if (typeof v !== 'string') {
    errs.push(typeError(field, v, 'string'));
    return false;
  }
  return true;
}

/** A required non-empty string. */
function requiredString(field: string, v: unknown, errs: FieldError[], detail = ''): v is string {
  if (!given(v) || v === '') {
    errs.push({ field, type: 'Required', detail });
    return false;
  }
  return stringField(field, v, errs);
}

/** An optional whole number of at least `min`. */
function integerAtLeast(field: string, v: unknown, min: number, errs: FieldError[]): void {
  if (!given(v)) return;
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    errs.push(typeError(field, v, 'integer'));
    return;
  }
  if (v < min)
    errs.push({
      field,
      type: 'Invalid',
      value: v,
      detail: min === 0 ? NON_NEGATIVE : `must be greater than or equal to ${min}`,
    });
}

/**
 * An IntOrString count or limit: a whole number of at least `min`, or a string that is exactly one
 * `{{args.NAME}}` reference (the argument's value is checked when the run measures).
 */
function intOrArg(field: string, v: unknown, min: number, errs: FieldError[]): void {
  if (!given(v)) return;
  if (typeof v === 'string') {
    if (!WHOLE_REFERENCE.test(v))
      errs.push({
        field,
        type: 'Invalid',
        value: v,
        detail: 'must be an integer, or one {{args.NAME}} reference and nothing else',
      });
    return;
  }
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    errs.push({
      field,
      type: 'Invalid',
      value: jsonTypeName(v),
      detail: 'must be an integer, or one {{args.NAME}} reference and nothing else',
    });
    return;
  }
  integerAtLeast(field, v, min, errs);
}

/**
 * A Go duration ("30s", "5m"), at least 0 (`positive`: above 0); in a metric (`args`) also one
 * `{{args.NAME}}` reference.
 */
function duration(field: string, v: unknown, positive: boolean, args: boolean, errs: FieldError[]): void {
  if (!stringField(field, v, errs) || (args && WHOLE_REFERENCE.test(v))) return;
  let ms: number;
  try {
    ms = parseGoDuration(v);
  } catch (e) {
    errs.push({ field, type: 'Invalid', value: v, detail: (e as Error).message });
    return;
  }
  if (positive ? ms <= 0 : ms < 0)
    errs.push({
      field,
      type: 'Invalid',
      value: v,
      detail: positive ? 'must be greater than 0' : 'must not be negative',
    });
}

/**
 * An http or https URL. A value that starts with a reference takes its scheme from an argument and
 * is left to the run; references elsewhere (a host, a path) are read as a plain word.
 */
function httpURL(field: string, v: unknown, example: string, errs: FieldError[]): void {
  if (!requiredString(field, v, errs)) return;
  if (/^\{\{args\./.test(v)) return;
  let ok = false;
  try {
    const u = new URL(v.replace(REFERENCE, 'arg'));
    ok = (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    ok = false;
  }
  if (!ok) errs.push({ field, type: 'Invalid', value: v, detail: `must be an http or https URL, such as ${example}` });
}

/** A secretKeyRef: the Secret's name and the key in it, both required. */
function secretKeyRef(field: string, v: unknown, errs: FieldError[]): void {
  if (!given(v)) {
    errs.push({ field, type: 'Required', detail: "the Secret's name and key" });
    return;
  }
  if (!objectField(field, v, errs)) return;
  if (requiredString(`${field}.name`, v.name, errs))
    for (const detail of dns1123SubdomainErrors(v.name))
      errs.push({ field: `${field}.name`, type: 'Invalid', value: v.name, detail });
  requiredString(`${field}.key`, v.key, errs);
}

// ---------------------------------------------------------------------------------------------
// Arguments

const HASH_VALUES = ['Latest', 'Stable'] as const;
const FIELD_PATH = /^metadata\.(name|namespace|(labels|annotations)\['[^']+'\])$/;
const FIELD_PATHS = "metadata.name, metadata.namespace, metadata.labels['KEY'] or metadata.annotations['KEY']";

/** The names of a list of arguments: each required, well formed and given once. */
function argNames(field: string, args: unknown[], errs: FieldError[]): Set<string> {
  const names = new Set<string>();
  args.forEach((a, i) => {
    const at = `${field}[${i}]`;
    if (!isObject(a)) {
      errs.push(typeError(at, a, 'object'));
      return;
    }
    if (!requiredString(`${at}.name`, a.name, errs)) return;
    if (!ARG_NAME.test(a.name))
      errs.push({ field: `${at}.name`, type: 'Invalid', value: a.name, detail: ARG_NAME_MSG });
    if (names.has(a.name)) errs.push({ field: `${at}.name`, type: 'Duplicate', value: a.name, detail: '' });
    names.add(a.name);
  });
  return names;
}

/** A value, when given, that must be one of `values` (NotSupported, listing them). */
function oneOfValues(field: string, v: unknown, values: readonly string[], errs: FieldError[]): void {
  if (given(v) && !(values as readonly unknown[]).includes(v))
    errs.push({ field, type: 'NotSupported', value: v, detail: `supported values: ${quoted(values)}` });
}

/** valueFrom.podTemplateHashValue and valueFrom.fieldRef, the values a Deployment gives. */
function deploymentValueFrom(field: string, from: Obj, errs: FieldError[]): void {
  const hash = from.podTemplateHashValue;
  oneOfValues(`${field}.podTemplateHashValue`, hash, HASH_VALUES, errs);
  if (objectField(`${field}.fieldRef`, from.fieldRef, errs)) {
    const path = from.fieldRef.fieldPath;
    if (requiredString(`${field}.fieldRef.fieldPath`, path, errs, FIELD_PATHS) && !FIELD_PATH.test(path))
      errs.push({
        field: `${field}.fieldRef.fieldPath`,
        type: 'Invalid',
        value: path,
        detail: `must be one of ${FIELD_PATHS}`,
      });
  }
}

/** Which of `keys` are set in `o`. */
const present = (o: Obj, keys: readonly string[]): string[] => keys.filter((k) => given(o[k]));

/** At most one of `keys` (the second is Forbidden); `required`: exactly one (none is Required). */
function oneOf(field: string, o: Obj, keys: readonly string[], required: boolean, errs: FieldError[]): void {
  const set = present(o, keys);
  if (set.length === 0 && required) errs.push({ field, type: 'Required', detail: `one of ${keys.join(', ')}` });
  for (const extra of set.slice(1))
    errs.push({ field: `${field}.${extra}`, type: 'Forbidden', detail: `may not be set with ${set[0]}: give one` });
}

/**
 * A template's arguments: a default value, a Secret's key, or a value the Deployment's own objects
 * give (the pod-template hash, a field), or none (the Deployment must give one); at most one.
 */
function templateArgs(field: string, v: unknown, errs: FieldError[]): Set<string> {
  const args = listField(field, v, errs);
  const names = argNames(field, args, errs);
  args.forEach((a, i) => {
    if (!isObject(a)) return;
    const at = `${field}[${i}]`;
    stringField(`${at}.value`, a.value, errs);
    if (!objectField(`${at}.valueFrom`, a.valueFrom, errs)) return;
    if (given(a.value))
      errs.push({ field: `${at}.valueFrom`, type: 'Forbidden', detail: 'may not be set with value: give one' });
    const from = a.valueFrom;
    oneOf(`${at}.valueFrom`, from, ['secretKeyRef', 'podTemplateHashValue', 'fieldRef'], true, errs);
    if (given(from.secretKeyRef)) secretKeyRef(`${at}.valueFrom.secretKeyRef`, from.secretKeyRef, errs);
    deploymentValueFrom(`${at}.valueFrom`, from, errs);
  });
  return names;
}

/** A run's arguments: each resolved to a value when the run was made, or a Secret's key. */
function runArgs(field: string, v: unknown, errs: FieldError[]): Set<string> {
  const args = listField(field, v, errs);
  const names = argNames(field, args, errs);
  args.forEach((a, i) => {
    if (!isObject(a)) return;
    const at = `${field}[${i}]`;
    stringField(`${at}.value`, a.value, errs);
    if (!given(a.value) && !given(a.valueFrom)) {
      errs.push({ field: `${at}.value`, type: 'Required', detail: 'a run needs a value or valueFrom.secretKeyRef' });
      return;
    }
    if (!objectField(`${at}.valueFrom`, a.valueFrom, errs)) return;
    if (given(a.value))
      errs.push({ field: `${at}.valueFrom`, type: 'Forbidden', detail: 'may not be set with value: give one' });
    const others = Object.keys(a.valueFrom).filter((k) => k !== 'secretKeyRef');
    for (const k of others)
      errs.push({
        field: `${at}.valueFrom.${k}`,
        type: 'Forbidden',
        detail: "a run's argument is resolved when the run is made: value or valueFrom.secretKeyRef",
      });
    if (others.length === 0 || given(a.valueFrom.secretKeyRef))
      secretKeyRef(`${at}.valueFrom.secretKeyRef`, a.valueFrom.secretKeyRef, errs);
  });
  return names;
}

/** Every string in `v` (a metric, a Job's spec), with its field path. */
function* strings(v: unknown, field: string): Generator<[string, string]> {
  if (typeof v === 'string') yield [field, v];
  else if (Array.isArray(v)) for (let i = 0; i < v.length; i++) yield* strings(v[i], `${field}[${i}]`);
  else if (isObject(v)) for (const [k, x] of Object.entries(v)) yield* strings(x, `${field}.${k}`);
}

/** Each `{{args.NAME}}` in the metric names a declared argument, and is written without spaces. */
function references(field: string, metric: Obj, declared: ReadonlySet<string>, errs: FieldError[]): void {
  const list = declared.size > 0 ? [...declared].join(', ') : 'none';
  for (const [at, text] of strings(metric, field)) {
    const reported = new Set<string>();
    for (const m of text.matchAll(REFERENCE)) {
      const name = m[1];
      if (reported.has(m[0])) continue;
      reported.add(m[0]);
      if (m[0] !== `{{args.${name}}}`) {
        errs.push({
          field: at,
          type: 'Invalid',
          value: text,
          detail: `write ${m[0]} as {{args.${name}}}, without spaces`,
        });
      } else if (!declared.has(name)) {
        errs.push({
          field: at,
          type: 'Invalid',
          value: text,
          detail: `${m[0]} names no argument (arguments declared: ${list})`,
        });
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Metrics and their providers

function prometheus(field: string, p: Obj, errs: FieldError[]): void {
  httpURL(`${field}.address`, p.address, 'http://prometheus.monitoring:9090', errs);
  if (requiredString(`${field}.query`, p.query, errs, 'a PromQL query') && p.query.trim() === '')
    errs.push({ field: `${field}.query`, type: 'Required', detail: 'a PromQL query' });
  integerAtLeast(`${field}.timeout`, p.timeout, 1, errs);
}

const METHODS = ['GET', 'POST', 'PUT'] as const;

function web(field: string, w: Obj, errs: FieldError[]): void {
  httpURL(`${field}.url`, w.url, 'https://status.example.com/api/health', errs);
  oneOfValues(`${field}.method`, w.method, METHODS, errs);
  listField(`${field}.headers`, w.headers, errs).forEach((h, i) => {
    const at = `${field}.headers[${i}]`;
    if (!isObject(h)) {
      errs.push(typeError(at, h, 'object'));
      return;
    }
    requiredString(`${at}.key`, h.key, errs, "the header's name");
    stringField(`${at}.value`, h.value, errs);
    if (!given(h.value) && !given(h.valueFrom)) {
      errs.push({ field: `${at}.value`, type: 'Required', detail: 'a value or valueFrom.secretKeyRef' });
    } else if (given(h.valueFrom)) {
      if (given(h.value))
        errs.push({ field: `${at}.valueFrom`, type: 'Forbidden', detail: 'may not be set with value: give one' });
      if (objectField(`${at}.valueFrom`, h.valueFrom, errs))
        secretKeyRef(`${at}.valueFrom.secretKeyRef`, h.valueFrom.secretKeyRef, errs);
    }
  });
  stringField(`${field}.body`, w.body, errs);
  if (stringField(`${field}.jsonPath`, w.jsonPath, errs) && !/^[{$]/.test(w.jsonPath))
    errs.push({
      field: `${field}.jsonPath`,
      type: 'Invalid',
      value: w.jsonPath,
      detail: 'must be a JSONPath starting with { or $, such as {$.data.ok}',
    });
  integerAtLeast(`${field}.timeoutSeconds`, w.timeoutSeconds, 1, errs);
}

function job(field: string, j: Obj, errs: FieldError[]): void {
  objectField(`${field}.metadata`, j.metadata, errs);
  if (!given(j.spec)) errs.push({ field: `${field}.spec`, type: 'Required', detail: 'a batch/v1 JobSpec' });
  else objectField(`${field}.spec`, j.spec, errs);
}

/** Exactly one provider, and that provider's fields. */
function provider(field: string, v: unknown, errs: FieldError[]): void {
  if (!given(v)) {
    errs.push({ field, type: 'Required', detail: `one of ${PROVIDER_NAMES.join(', ')}` });
    return;
  }
  if (!objectField(field, v, errs)) return;
  const unknown = Object.keys(v).filter((k) => given(v[k]) && !(PROVIDER_NAMES as readonly string[]).includes(k));
  for (const k of unknown)
    errs.push({ field, type: 'NotSupported', value: k, detail: `supported values: ${quoted(PROVIDER_NAMES)}` });
  const set = present(v, PROVIDER_NAMES);
  if (set.length === 0 && unknown.length === 0)
    errs.push({ field, type: 'Required', detail: `one of ${PROVIDER_NAMES.join(', ')}` });
  for (const extra of set.slice(1))
    errs.push({
      field: `${field}.${extra}`,
      type: 'Forbidden',
      detail: `may not be set with ${set[0]}: a metric has exactly one provider`,
    });
  if (objectField(`${field}.prometheus`, v.prometheus, errs)) prometheus(`${field}.prometheus`, v.prometheus, errs);
  if (objectField(`${field}.web`, v.web, errs)) web(`${field}.web`, v.web, errs);
  if (objectField(`${field}.job`, v.job, errs)) job(`${field}.job`, v.job, errs);
}

/** A condition as the run will evaluate it: each reference stands for a value of any type here. */
function condition(field: string, v: unknown, errs: FieldError[]): void {
  if (!stringField(field, v, errs)) return;
  const why = conditionError(v.replace(REFERENCE, 'dyn(0)'));
  if (why !== undefined) errs.push({ field, type: 'Invalid', value: v, detail: why });
}

const LIMITS = ['failureLimit', 'inconclusiveLimit', 'consecutiveErrorLimit', 'consecutiveSuccessLimit'] as const;

/** spec.metrics: at least one, each named once, with one provider and its pace, limits and conditions. */
function metrics(field: string, v: unknown, declared: ReadonlySet<string>, errs: FieldError[]): string[] {
  if (!given(v) || (Array.isArray(v) && v.length === 0)) {
    errs.push({ field, type: 'Required', detail: 'at least one metric' });
    return [];
  }
  const names: string[] = [];
  listField(field, v, errs).forEach((m, i) => {
    const at = `${field}[${i}]`;
    if (!isObject(m)) {
      errs.push(typeError(at, m, 'object'));
      return;
    }
    if (requiredString(`${at}.name`, m.name, errs)) {
      for (const detail of dns1123LabelErrors(m.name))
        errs.push({ field: `${at}.name`, type: 'Invalid', value: m.name, detail });
      if (names.includes(m.name)) errs.push({ field: `${at}.name`, type: 'Duplicate', value: m.name, detail: '' });
      names.push(m.name);
    }
    duration(`${at}.interval`, m.interval, true, true, errs);
    duration(`${at}.initialDelay`, m.initialDelay, false, true, errs);
    intOrArg(`${at}.count`, m.count, 1, errs);
    if (typeof m.count === 'number' && m.count > 1 && !given(m.interval))
      errs.push({
        field: `${at}.interval`,
        type: 'Required',
        detail: `count is ${m.count}: the time between measurements is needed`,
      });
    for (const limit of LIMITS) intOrArg(`${at}.${limit}`, m[limit], 0, errs);
    // A metric that ends after `count` measurements can never reach a larger limit (Argo's rule).
    for (const limit of ['failureLimit', 'inconclusiveLimit'] as const) {
      const v = m[limit];
      if (typeof m.count === 'number' && m.count > 0 && typeof v === 'number' && v > m.count)
        errs.push({
          field: `${at}.${limit}`,
          type: 'Invalid',
          value: v,
          detail: `must be no more than count (${m.count}): the metric ends before it could reach it`,
        });
    }
    condition(`${at}.successCondition`, m.successCondition, errs);
    condition(`${at}.failureCondition`, m.failureCondition, errs);
    provider(`${at}.provider`, m.provider, errs);
    references(at, m, declared, errs);
  });
  return names;
}

/** dryRun[] and measurementRetention[]: each names a metric (retention: a limit of at least 1). */
function metricOptions(field: string, spec: Obj, metricNames: string[], errs: FieldError[]): void {
  // Without a list of metrics (reported already) there is nothing to name.
  const known = Array.isArray(spec.metrics) && spec.metrics.length > 0;
  const names = (at: string, o: Obj): void => {
    if (requiredString(`${at}.metricName`, o.metricName, errs) && known && !metricNames.includes(o.metricName))
      errs.push({
        field: `${at}.metricName`,
        type: 'NotSupported',
        value: o.metricName,
        detail: `supported values: ${quoted(metricNames)}`,
      });
  };
  listField(`${field}.dryRun`, spec.dryRun, errs).forEach((d, i) => {
    if (!isObject(d)) errs.push(typeError(`${field}.dryRun[${i}]`, d, 'object'));
    else names(`${field}.dryRun[${i}]`, d);
  });
  listField(`${field}.measurementRetention`, spec.measurementRetention, errs).forEach((r, i) => {
    const at = `${field}.measurementRetention[${i}]`;
    if (!isObject(r)) {
      errs.push(typeError(at, r, 'object'));
      return;
    }
    names(at, r);
    if (!given(r.limit)) errs.push({ field: `${at}.limit`, type: 'Required', detail: 'measurements to keep' });
    else integerAtLeast(`${at}.limit`, r.limit, 1, errs);
  });
}

/** The spec itself: required, an object. */
function specOf(o: { spec?: unknown } | undefined, errs: FieldError[]): Obj | undefined {
  const spec = o?.spec;
  if (!given(spec)) {
    errs.push({ field: 'spec', type: 'Required', detail: '' });
    return undefined;
  }
  return objectField('spec', spec, errs) ? spec : undefined;
}

// ---------------------------------------------------------------------------------------------
// The resources

/** Every problem with an AnalysisTemplate's spec. */
export function validateAnalysisTemplate(t: AnalysisTemplate): FieldError[] {
  const errs: FieldError[] = [];
  const spec = specOf(t, errs);
  if (!spec) return errs;
  const declared = templateArgs('spec.args', spec.args, errs);
  const names = metrics('spec.metrics', spec.metrics, declared, errs);
  metricOptions('spec', spec, names, errs);
  return errs;
}

/** A ClusterAnalysisTemplate has the spec of an AnalysisTemplate, under the same rules. */
export function validateClusterAnalysisTemplate(t: AnalysisTemplate): FieldError[] {
  return validateAnalysisTemplate(t);
}

/** Every problem with an AnalysisRun's spec (its status is the controller's). */
export function validateAnalysisRun(r: AnalysisRun): FieldError[] {
  const errs: FieldError[] = [];
  const spec = specOf(r, errs);
  if (!spec) return errs;
  const declared = runArgs('spec.args', spec.args, errs);
  const names = metrics('spec.metrics', spec.metrics, declared, errs);
  metricOptions('spec', spec, names, errs);
  if (given(spec.terminate) && typeof spec.terminate !== 'boolean')
    errs.push(typeError('spec.terminate', spec.terminate, 'boolean'));
  return errs;
}

// ---------------------------------------------------------------------------------------------
// A Deployment's spec.analysis

/** Strategies that replace pods a few at a time, so that a run can judge the first new ones. */
const GRADUAL = `analysis needs a strategy that replaces pods gradually (${Object.values(STRATEGY_RULES)
  .filter((r) => r.gradual)
  .map((r) => r.name)
  .join(' or ')})`;

/** startAfterAvailable: a whole number of new replicas (≥ 0), or a percentage of spec.replicas up to 100%. */
function startAfterAvailable(field: string, v: unknown, errs: FieldError[]): void {
  if (!given(v)) return;
  if (typeof v === 'number') {
    integerAtLeast(field, v, 0, errs);
    return;
  }
  if (typeof v !== 'string') {
    errs.push({
      field,
      type: 'Invalid',
      value: jsonTypeName(v),
      detail: "must be an integer or percentage (e.g '50%')",
    });
    return;
  }
  let percent: number;
  try {
    percent = scaledValue(v, 100, false);
  } catch (e) {
    errs.push({ field, type: 'Invalid', value: v, detail: (e as Error).message });
    return;
  }
  if (percent < 0 || percent > 100)
    errs.push({ field, type: 'Invalid', value: v, detail: 'must be between 0% and 100%' });
}

/** templateRefs of a list that must name at least one template. */
function requiredTemplateRefs(field: string, list: unknown, errs: FieldError[]): void {
  if (!given(list) || (Array.isArray(list) && list.length === 0))
    errs.push({ field, type: 'Required', detail: 'at least one AnalysisTemplate' });
  templateRefs(field, list, errs);
}

/** A list of template references: each an object with a templateName (a DNS subdomain), none twice. */
function templateRefs(field: string, list: unknown, errs: FieldError[]): void {
  const seen = new Set<string>();
  listField(field, list, errs).forEach((t, i) => {
    const at = `${field}[${i}]`;
    if (!isObject(t)) {
      errs.push(typeError(at, t, 'object'));
      return;
    }
    if (given(t.clusterScope) && typeof t.clusterScope !== 'boolean')
      errs.push(typeError(`${at}.clusterScope`, t.clusterScope, 'boolean'));
    if (!requiredString(`${at}.templateName`, t.templateName, errs)) return;
    for (const detail of dns1123SubdomainErrors(t.templateName))
      errs.push({ field: `${at}.templateName`, type: 'Invalid', value: t.templateName, detail });
    const key = `${t.clusterScope === true}/${t.templateName}`;
    if (seen.has(key)) errs.push({ field: `${at}.templateName`, type: 'Duplicate', value: t.templateName, detail: '' });
    seen.add(key);
  });
}

/** spec.analysis of a Deployment whose strategy is `strategyType` (defaults applied): what validateDeployment calls. */
export function validateDeploymentAnalysis(
  analysis: unknown,
  strategyType: unknown,
  planStrategy?: unknown,
): FieldError[] {
  const field = 'spec.analysis';
  const errs: FieldError[] = [];
  if (!objectField(field, analysis, errs)) return errs;
  // An unknown type is spec.strategy's error, not this one's.
  if (strategyRules(strategyType ?? DEFAULT_STRATEGY_TYPE)?.gradual === false)
    errs.push({ field, type: 'Forbidden', detail: GRADUAL });

  // The pod check alone is an analysis too (no metrics), as are the canary steps' runs alone;
  // without either, a template is needed.
  const templates = analysis.templates;
  if (
    !given(analysis.podFailures) &&
    !given(analysis.canarySteps) &&
    (!given(templates) || (Array.isArray(templates) && templates.length === 0))
  )
    errs.push({
      field: `${field}.templates`,
      type: 'Required',
      detail: 'at least one AnalysisTemplate, unless podFailures or canarySteps is set',
    });
  templateRefs(`${field}.templates`, templates, errs);
  if (objectField(`${field}.canarySteps`, analysis.canarySteps, errs)) {
    requiredTemplateRefs(`${field}.canarySteps.templates`, analysis.canarySteps.templates, errs);
    if (typeof planStrategy !== 'string' || !planStrategy.endsWith('-canary'))
      errs.push({
        field: `${field}.canarySteps`,
        type: 'Forbidden',
        detail: `only with a canary phase strategy (spec.plan.strategy serial-canary or parallel-canary), not ${JSON.stringify(planStrategy ?? 'parallel')}`,
      });
  }

  const args = listField(`${field}.args`, analysis.args, errs);
  argNames(`${field}.args`, args, errs);
  args.forEach((a, i) => {
    if (!isObject(a)) return;
    const at = `${field}.args[${i}]`;
    stringField(`${at}.value`, a.value, errs);
    oneOf(at, a, ['value', 'valueFrom'], true, errs);
    if (!objectField(`${at}.valueFrom`, a.valueFrom, errs)) return;
    const from = a.valueFrom;
    const others = Object.keys(from).filter((k) => k !== 'podTemplateHashValue' && k !== 'fieldRef');
    for (const k of others)
      errs.push({
        field: `${at}.valueFrom.${k}`,
        type: 'Forbidden',
        detail: "a Deployment gives podTemplateHashValue or fieldRef (a Secret's key is the template's to name)",
      });
    oneOf(`${at}.valueFrom`, from, ['podTemplateHashValue', 'fieldRef'], others.length === 0, errs);
    deploymentValueFrom(`${at}.valueFrom`, from, errs);
  });

  if (objectField(`${field}.podFailures`, analysis.podFailures, errs)) {
    duration(`${field}.podFailures.window`, analysis.podFailures.window, true, false, errs);
    integerAtLeast(`${field}.podFailures.restarts`, analysis.podFailures.restarts, 0, errs);
  }
  startAfterAvailable(`${field}.startAfterAvailable`, analysis.startAfterAvailable, errs);
  duration(`${field}.postRollout`, analysis.postRollout, false, false, errs);
  oneOfValues(`${field}.onFailure`, analysis.onFailure, ON_FAILURE, errs);
  return errs;
}

/**
 * spec.healthGate.analysis of a NodeRoll (docs/semantics/node-roll.md#analysis-at-the-health-gate):
 * what validateNodeRoll calls. At least one template; each argument a literal `value` or
 * `valueFrom.nodeName: true` (the node just replaced); the runs' namespace a namespace name.
 */
export function validateNodeRollAnalysis(analysis: unknown): FieldError[] {
  const field = 'spec.healthGate.analysis';
  const errs: FieldError[] = [];
  if (!objectField(field, analysis, errs)) return errs;
  requiredTemplateRefs(`${field}.templates`, analysis.templates, errs);
  const args = listField(`${field}.args`, analysis.args, errs);
  argNames(`${field}.args`, args, errs);
  args.forEach((a, i) => {
    if (!isObject(a)) return;
    const at = `${field}.args[${i}]`;
    stringField(`${at}.value`, a.value, errs);
    oneOf(at, a, ['value', 'valueFrom'], true, errs);
    if (!objectField(`${at}.valueFrom`, a.valueFrom, errs)) return;
    const from = a.valueFrom;
    for (const k of Object.keys(from).filter((x) => x !== 'nodeName'))
      errs.push({
        field: `${at}.valueFrom.${k}`,
        type: 'Forbidden',
        detail: "a NodeRoll gives nodeName (a Secret's key is the template's to name)",
      });
    if (!given(from.nodeName))
      errs.push({
        field: `${at}.valueFrom.nodeName`,
        type: 'Required',
        detail: 'true: the name of the node just replaced',
      });
    else if (from.nodeName !== true)
      errs.push({
        field: `${at}.valueFrom.nodeName`,
        type: 'Invalid',
        value: from.nodeName,
        detail: 'must be true: the name of the node just replaced',
      });
  });
  if (given(analysis.namespace) && stringField(`${field}.namespace`, analysis.namespace, errs))
    for (const detail of dns1123LabelErrors(analysis.namespace))
      errs.push({ field: `${field}.namespace`, type: 'Invalid', value: analysis.namespace, detail });
  return errs;
}
