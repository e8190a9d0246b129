// Pacer's additions on an apps/v1 Deployment (native mode: docs/native.md#pacers-additions-by-annotation).
// apps/v1's schema has no room for them (its validation allows only RollingUpdate and Recreate), so
// they are annotations, read into the spec fields of Pacer's own kind that mean the same: the engine
// then sees one Deployment shape. Each annotation's errors name the annotation, with the value given.

import type { FieldError } from './fielderrors.ts';
import type { Deployment, DeploymentSpec, PlanPhaseStrategy } from './types.ts';
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
} as const;

/** Every annotation of Pacer's additions (the native webhook's match condition names them). */
export const NATIVE_ANNOTATIONS: readonly string[] = Object.values(NATIVE_ANNOTATION);

/** Does `d` carry any of Pacer's additions by annotation? */
export function hasNativeAnnotations(d: { metadata?: { annotations?: Record<string, string> | null } }): boolean {
  const a = d.metadata?.annotations;
  return !!a && NATIVE_ANNOTATIONS.some((k) => a[k] !== undefined);
}

/** Where each annotation lands in Pacer's spec (field errors found there are reported on the annotation). */
const LANDS_IN: ReadonlyArray<[prefix: string, annotation: string]> = [
  ['spec.strategy.minimumHealth.minimumHealthCapacity', NATIVE_ANNOTATION.minimumHealthCapacity],
  ['spec.strategy.minimumHealth.maximumOverCapacity', NATIVE_ANNOTATION.maximumOverCapacity],
  ['spec.dependencies', NATIVE_ANNOTATION.dependencies],
  ['spec.plan.strategy', NATIVE_ANNOTATION.planStrategy],
  ['spec.plan.requiredProceeds', NATIVE_ANNOTATION.planRequiredProceeds],
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
  return { d: changed ? { ...d, spec } : d, errors };
}

/** `errors` of the spec withNativeAdditions returned, those of an annotation's field moved onto the annotation. */
export function onAnnotations(errors: readonly FieldError[]): FieldError[] {
  return errors.map((e) => {
    const hit = LANDS_IN.find(([prefix]) => e.field === prefix || e.field.startsWith(`${prefix}[`));
    return hit ? { ...e, field: field(hit[1]) } : e;
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
  const onTheirs = onAnnotations(validateDeployment(withDefaults(native.d))).filter((e) =>
    NATIVE_ANNOTATIONS.some((k) => e.field === field(k)),
  );
  return [...native.errors, ...onTheirs];
}
