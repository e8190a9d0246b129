// Pacer's additions on an apps/v1 Deployment (native mode: docs/native.md#pacers-additions-by-annotation).
// apps/v1's schema has no room for them (its validation allows only RollingUpdate and Recreate), so
// they are annotations, read into the spec fields of Pacer's own kind that mean the same: the engine
// then sees one Deployment shape. Each annotation's errors name the annotation, with the value given.

import { parse as parseYaml } from 'yaml';
import type { FieldError } from './fielderrors.ts';
import type { Deployment, DeploymentAnalysis, DeploymentSpec, PlanPhaseStrategy } from './types.ts';
import { isAppsDeployment } from './types.ts';
import { minimumHealthRules } from './strategies/minimumhealth.ts';
import { withDefaults } from './defaults.ts';
import { validateDeployment } from './validation.ts';

export const NATIVE_ANNOTATION = {
  minimumHealthCapacity: 'pacer.dev/minimum-health-capacity',
  maximumOverCapacity: 'pacer.dev/maximum-over-capacity',
  dependencies: 'pacer.dev/dependencies',
  planStrategy: 'pacer.dev/plan-strategy',
  planRequiredProceeds: 'pacer.dev/plan-required-proceeds',
  analysis: 'pacer.dev/analysis',
  windows: 'pacer.dev/windows',
  blackouts: 'pacer.dev/blackouts',
} as const;

/** Every annotation of Pacer's additions (the native webhook's match condition names them). */
export const NATIVE_ANNOTATIONS: readonly string[] = Object.values(NATIVE_ANNOTATION);

/** Does `d` carry any of Pacer's additions by annotation? */
export function hasNativeAnnotations(d: { metadata?: { annotations?: Record<string, string> | null } }): boolean {
  const a = d.metadata?.annotations;
  return !!a && NATIVE_ANNOTATIONS.some((k) => a[k] !== undefined);
}

/**
 * Where each annotation lands in Pacer's spec (field errors found there are reported on the
 * annotation). A structured annotation keeps the rest of the path: an error at
 * `spec.analysis.templates[0].templateName` is reported at
 * `metadata.annotations[pacer.dev/analysis].templates[0].templateName`.
 */
const LANDS_IN: ReadonlyArray<[prefix: string, annotation: string, keepsPath?: true]> = [
  ['spec.strategy.minimumHealth.minimumHealthCapacity', NATIVE_ANNOTATION.minimumHealthCapacity],
  ['spec.strategy.minimumHealth.maximumOverCapacity', NATIVE_ANNOTATION.maximumOverCapacity],
  ['spec.dependencies', NATIVE_ANNOTATION.dependencies],
  ['spec.plan.strategy', NATIVE_ANNOTATION.planStrategy],
  ['spec.plan.requiredProceeds', NATIVE_ANNOTATION.planRequiredProceeds],
  ['spec.analysis', NATIVE_ANNOTATION.analysis, true],
  ['spec.windows', NATIVE_ANNOTATION.windows, true],
  ['spec.blackouts', NATIVE_ANNOTATION.blackouts, true],
];

const field = (annotation: string) => `metadata.annotations[${annotation}]`;

/** The references a `pacer.dev/dependencies` value names: comma separated, `name` or `namespace/name`. */
export function nativeDependencies(d: Deployment): string[] | undefined {
  const v = d.metadata.annotations?.[NATIVE_ANNOTATION.dependencies];
  if (v === undefined) return undefined;
  return v
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');
}

/** What a structured annotation's value parsed to, or why it is not that. */
type Parsed<T> = { value: T } | { error: string };

// Parsed once per distinct value (every Deployment of a fleet usually carries one of a few), frozen
// so that no pass can change what the next one reads. Cleared when it grows past a fleet's worth.
const parsedValues = new Map<string, Parsed<unknown>>();
const PARSED_VALUES_MAX = 1024;

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

const kindOf = (v: unknown) =>
  v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'a mapping' : `a ${typeof v}`;

/**
 * A structured annotation's value, YAML (or JSON, which is YAML too): a mapping of a spec field's
 * fields (`shape` "mapping", e.g. pacer.dev/analysis) or a list of its items ("list", e.g.
 * pacer.dev/windows). `what` names them in the error.
 */
function parseStructured<T>(text: string, shape: 'mapping' | 'list', what: string): Parsed<T> {
  const key = `${shape}\u0000${text}`;
  const hit = parsedValues.get(key);
  if (hit) return hit as Parsed<T>;
  let out: Parsed<unknown>;
  try {
    const v: unknown = parseYaml(text);
    const fits = shape === 'list' ? Array.isArray(v) : v !== null && typeof v === 'object' && !Array.isArray(v);
    out = fits ? { value: deepFreeze(v) } : { error: `must be a ${shape} of ${what}, not ${kindOf(v)}` };
  } catch (err) {
    out = { error: `must be YAML or JSON: ${(err as Error).message.split('\n')[0]}` };
  }
  if (parsedValues.size >= PARSED_VALUES_MAX) parsedValues.clear();
  parsedValues.set(key, out);
  return out as Parsed<T>;
}

/** The structured annotations: each one's spec field, shape, and what its error calls its content. */
const STRUCTURED = [
  {
    annotation: NATIVE_ANNOTATION.analysis,
    field: 'analysis',
    shape: 'mapping',
    what: "spec.analysis's fields (templates, args, onFailure, ...)",
  },
  {
    annotation: NATIVE_ANNOTATION.windows,
    field: 'windows',
    shape: 'list',
    what: 'maintenance windows (days, start, duration, timeZone)',
  },
  {
    annotation: NATIVE_ANNOTATION.blackouts,
    field: 'blackouts',
    shape: 'list',
    what: 'blackouts (start, end, timeZone, reason)',
  },
] as const;

/** A `pacer.dev/analysis` value: spec.analysis's fields as a YAML (or JSON) mapping. */
export function parseNativeAnalysis(text: string): Parsed<DeploymentAnalysis> {
  return parseStructured(text, STRUCTURED[0].shape, STRUCTURED[0].what);
}

/** spec.analysis as the engine reads it: Pacer's field, or an apps/v1 Deployment's annotation (if it parses). */
export function analysisOf(d: Deployment): DeploymentAnalysis | undefined {
  if (!isAppsDeployment(d)) return d.spec?.analysis;
  const text = d.metadata.annotations?.[NATIVE_ANNOTATION.analysis];
  if (text === undefined) return undefined;
  const parsed = parseNativeAnalysis(text);
  return 'value' in parsed ? parsed.value : undefined;
}

const DECIMAL = /^\s*\d+(\.\d+)?\s*$/;
const WHOLE = /^\s*\d+\s*$/;

/**
 * The Deployment as Pacer's engine reads it: an apps/v1 one with its annotations' additions in
 * the spec (`d` itself when it has none, or is Pacer's own kind), and the annotations' own errors
 * (a value that is not a number). Range and name checks are validation's, on the spec it returns;
 * `onAnnotations` moves their field paths to the annotations.
 */
export function withNativeAdditions(d: Deployment): { d: Deployment; errors: FieldError[] } {
  const a = d.metadata.annotations;
  if (!isAppsDeployment(d) || !a) return { d, errors: [] };
  const errors: FieldError[] = [];
  const spec: DeploymentSpec = { ...d.spec };
  let changed = false;
  const number = (annotation: string, pattern: RegExp, detail: string): number | undefined => {
    const v = a[annotation];
    if (v === undefined) return undefined;
    if (!pattern.test(v)) {
      errors.push({ field: field(annotation), type: 'Invalid', value: v, detail });
      return undefined;
    }
    return Number(v);
  };
  const mhc = number(NATIVE_ANNOTATION.minimumHealthCapacity, DECIMAL, 'must be a number between 0.0 and 1.0');
  const moc = number(NATIVE_ANNOTATION.maximumOverCapacity, DECIMAL, 'must be a number between 0.0 and 1.0');
  if (
    a[NATIVE_ANNOTATION.minimumHealthCapacity] !== undefined ||
    a[NATIVE_ANNOTATION.maximumOverCapacity] !== undefined
  ) {
    // Marathon's upgrade strategy in place of the rolling update (its maxSurge/maxUnavailable are then unused).
    spec.strategy = {
      type: minimumHealthRules.name,
      minimumHealth: {
        ...(mhc !== undefined ? { minimumHealthCapacity: mhc } : {}),
        ...(moc !== undefined ? { maximumOverCapacity: moc } : {}),
      },
    };
    changed = true;
  }
  const deps = nativeDependencies(d);
  if (deps !== undefined) {
    spec.dependencies = deps;
    changed = true;
  }
  const strategy = a[NATIVE_ANNOTATION.planStrategy];
  const proceeds = number(NATIVE_ANNOTATION.planRequiredProceeds, WHOLE, 'must be a whole number of at least 1');
  if (strategy !== undefined || a[NATIVE_ANNOTATION.planRequiredProceeds] !== undefined) {
    spec.plan = {
      ...(strategy !== undefined ? { strategy: strategy.trim() as PlanPhaseStrategy } : {}),
      ...(proceeds !== undefined ? { requiredProceeds: proceeds } : {}),
    };
    changed = true;
  }
  for (const { annotation, field: to, shape, what } of STRUCTURED) {
    const text = a[annotation];
    if (text === undefined) continue;
    const parsed = parseStructured<never>(text, shape, what);
    if ('error' in parsed)
      errors.push({ field: field(annotation), type: 'Invalid', value: text, detail: parsed.error });
    else {
      spec[to] = parsed.value;
      changed = true;
    }
  }
  return { d: changed ? { ...d, spec } : d, errors };
}

/** `errors` of the spec withNativeAdditions returned, those of an annotation's field moved onto the annotation. */
export function onAnnotations(errors: readonly FieldError[]): FieldError[] {
  return errors.map((e) => {
    const hit = LANDS_IN.find(
      ([prefix, , keepsPath]) =>
        e.field === prefix || e.field.startsWith(`${prefix}[`) || (keepsPath && e.field.startsWith(`${prefix}.`)),
    );
    if (!hit) return e;
    const [prefix, annotation, keepsPath] = hit;
    return { ...e, field: field(annotation) + (keepsPath ? e.field.slice(prefix.length) : '') };
  });
}

/**
 * The errors of an apps/v1 Deployment's pacer.dev annotations alone, as its InvalidSpec condition
 * reports them (decide() validates the same spec, then moves these onto the annotations): what the
 * native admission webhook refuses at apply time. Errors of apps/v1's own fields are not among
 * them (those are the API server's to refuse); none for Pacer's own kind or without the annotations.
 */
export function nativeAnnotationErrors(d: Deployment): FieldError[] {
  const native = withNativeAdditions(d);
  if (native.d === d) return native.errors;
  // An error of a structured annotation keeps its path under it: metadata.annotations[pacer.dev/windows][0].start.
  const onTheirs = onAnnotations(validateDeployment(withDefaults(native.d))).filter((e) =>
    NATIVE_ANNOTATIONS.some(
      (k) => e.field === field(k) || e.field.startsWith(`${field(k)}.`) || e.field.startsWith(`${field(k)}[`),
    ),
  );
  return [...native.errors, ...onTheirs];
}
