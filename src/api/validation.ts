// Validation of a Deployment spec with upstream's field paths and messages
// (ValidateDeploymentSpec, ValidateDeploymentStrategy, ValidateRollingUpdateDeployment, the label
// selector and label checks they call, and the registry's selector immutability on update). Each
// strategy's own checks (RollingUpdate's maxSurge/maxUnavailable, MinimumHealth's shares with
// Marathon's range message) are in its module under strategies/.
// The CRD schema rejects most of these at apply time; this is the engine's own guard for objects
// that reached it anyway (an older CRD, `pacer plan` input), surfaced as the InvalidSpec condition.

import { validateWindows } from './windows.ts';
import { isDeepStrictEqual } from 'node:util';
import type { Deployment, DeploymentStrategy, LabelSelector, StrategyType } from './types.ts';
import { PLAN_PHASE_STRATEGIES } from './types.ts';
import { isEmptySelector, selectorMatches } from './selector.ts';
import { NON_NEGATIVE, jsonTypeName } from './fielderrors.ts';
import type { FieldError } from './fielderrors.ts';
import { STRATEGY_TYPES, strategyRules } from './strategies/index.ts';
import { recreateRules } from './strategies/recreate.ts';
import { rollingUpdateRules } from './strategies/rollingupdate.ts';
import { dns1123LabelErrors, dns1123SubdomainErrors, labelValueErrors, qualifiedNameErrors } from './names.ts';
import { validateDeploymentAnalysis } from './analysisvalidation.ts';

export type { FieldError, FieldErrorType } from './fielderrors.ts';
export { PERCENT_ERROR } from './strategies/rollingupdate.ts';
export { dns1123LabelErrors, dns1123SubdomainErrors, labelValueErrors, qualifiedNameErrors } from './names.ts';

// ---------------------------------------------------------------------------------------------
// Values as upstream reports them. Go's encoding/json sorts map keys and drops `omitempty` fields.

function sortedMap(m: Record<string, string> | undefined | null): Record<string, string> | null {
  if (m === undefined || m === null) return null;
  const out: Record<string, string> = {};
  for (const k of Object.keys(m).sort()) out[k] = m[k];
  return out;
}

/** A metav1.LabelSelector as encoding/json writes it (struct order, omitempty). */
function selectorValue(s: LabelSelector): unknown {
  const out: Record<string, unknown> = {};
  if (s.matchLabels && Object.keys(s.matchLabels).length > 0) out.matchLabels = sortedMap(s.matchLabels);
  if (s.matchExpressions && s.matchExpressions.length > 0) {
    out.matchExpressions = s.matchExpressions.map((r) => {
      const e: Record<string, unknown> = { key: r.key, operator: r.operator };
      if (r.values && r.values.length > 0) e.values = r.values;
      return e;
    });
  }
  return out;
}

/** The internal apps.DeploymentStrategy has no json tags, so upstream prints Go field names. */
function strategyValue(s: DeploymentStrategy): unknown {
  const ru = s.rollingUpdate;
  return {
    Type: s.type ?? '',
    RollingUpdate: ru ? { MaxUnavailable: ru.maxUnavailable ?? 0, MaxSurge: ru.maxSurge ?? 0 } : null,
  };
}

// ---------------------------------------------------------------------------------------------
// Field checks.

/**
 * ValidateNonnegativeField for an optional integer. A non-integer cannot reach upstream's typed
 * code; it is reported the way the CRD schema would ("... in body must be of type integer").
 */
function nonNegativeInteger(field: string, v: unknown, errs: FieldError[]): v is number {
  if (v === undefined || v === null) return false;
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    const t = jsonTypeName(v);
    errs.push({ field, type: 'Invalid', value: t, detail: `${field} in body must be of type integer: "${t}"` });
    return false;
  }
  if (v < 0) errs.push({ field, type: 'Invalid', value: v, detail: NON_NEGATIVE });
  return true;
}

/** ValidateLabels: every key a qualified name, every value a label value; path is the map's. */
function validateLabels(field: string, labels: Record<string, string> | undefined, errs: FieldError[]): void {
  for (const k of Object.keys(labels ?? {}).sort()) {
    for (const msg of qualifiedNameErrors(k)) errs.push({ field, type: 'Invalid', value: k, detail: msg });
    const v = labels![k];
    if (typeof v !== 'string') {
      errs.push({
        field,
        type: 'Invalid',
        value: jsonTypeName(v),
        detail: `${field}.${k} in body must be of type string: "${jsonTypeName(v)}"`,
      });
      continue;
    }
    for (const msg of labelValueErrors(v)) errs.push({ field, type: 'Invalid', value: v, detail: msg });
  }
}

/**
 * ValidateLabelSelector (strict: label values in expressions must be valid too). Returns whether the
 * selector can be turned into a selector at all (LabelSelectorAsSelector succeeds).
 */
export function validateSelector(field: string, s: LabelSelector, errs: FieldError[]): boolean {
  let convertible = true;
  const before = errs.length;
  validateLabels(`${field}.matchLabels`, s.matchLabels, errs);
  if (errs.length > before) convertible = false;
  (s.matchExpressions ?? []).forEach((r, i) => {
    const path = `${field}.matchExpressions[${i}]`;
    const values = r.values ?? [];
    switch (r.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) {
          errs.push({
            field: `${path}.values`,
            type: 'Required',
            detail: "must be specified when `operator` is 'In' or 'NotIn'",
          });
          convertible = false;
        }
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) {
          errs.push({
            field: `${path}.values`,
            type: 'Forbidden',
            detail: "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
          });
          convertible = false;
        }
        break;
      default:
        errs.push({
          field: `${path}.operator`,
          type: 'Invalid',
          value: r.operator,
          detail: 'not a valid selector operator',
        });
        convertible = false;
    }
    for (const msg of qualifiedNameErrors(String(r.key ?? ''))) {
      errs.push({ field: `${path}.key`, type: 'Invalid', value: r.key, detail: msg });
      convertible = false;
    }
    values.forEach((v, j) => {
      for (const msg of labelValueErrors(String(v))) {
        errs.push({ field: `${path}.values[${j}]`, type: 'Invalid', value: v, detail: msg });
        convertible = false;
      }
    });
  });
  return convertible;
}

/**
 * ValidateDeploymentStrategy: the type must be one a strategy module implements (strategies/);
 * another strategy's parameters are Forbidden under it (upstream's rule for rollingUpdate under
 * Recreate, which Pacer applies to every strategy's field, in the order of the supported types);
 * then the type's own checks.
 */
function validateStrategy(
  strategy: DeploymentStrategy | undefined,
  types: readonly StrategyType[],
  errs: FieldError[],
): void {
  const field = 'spec.strategy';
  const s = strategy ?? {};
  const rules = types.includes(s.type as StrategyType) ? strategyRules(s.type) : undefined;
  if (!rules) {
    errs.push({
      field,
      type: 'NotSupported',
      value: strategyValue(s),
      detail: `supported values: ${types.map((t) => `"${t}"`).join(', ')}`,
    });
    return;
  }
  for (const other of types) {
    const parameters = strategyRules(other)?.parametersField;
    if (other === rules.name || parameters === undefined) continue;
    const v = s[parameters];
    if (v !== undefined && v !== null) {
      errs.push({
        field: `${field}.${parameters}`,
        type: 'Forbidden',
        detail: `may not be specified when strategy \`type\` is '${rules.name}'`,
      });
    }
  }
  rules.validate(s, field, errs);
}

/** Go's semantic equality for selectors: nil and empty maps/lists are the same. */
function sameSelector(a: LabelSelector | undefined, b: LabelSelector | undefined): boolean {
  if (!a || !b) return !a === !b;
  return isDeepStrictEqual(selectorValue(a), selectorValue(b));
}

/**
 * spec.dependencies: a list of strings, each a DNS-1123 subdomain (a Deployment name), optionally
 * prefixed by a DNS-1123 label (a namespace) and '/'. Messages are apimachinery's.
 */
export function validateDependencies(refs: unknown): FieldError[] {
  const field = 'spec.dependencies';
  if (refs === undefined || refs === null) return [];
  if (!Array.isArray(refs)) {
    return [
      {
        field,
        type: 'Invalid',
        value: typeof refs,
        detail: `${field} in body must be of type array: "${typeof refs}"`,
      },
    ];
  }
  const errs: FieldError[] = [];
  refs.forEach((ref: unknown, i) => {
    const at = `${field}[${i}]`;
    if (typeof ref !== 'string') {
      errs.push({ field: at, type: 'Invalid', value: ref ?? null, detail: `${at} in body must be of type string` });
      return;
    }
    const parts = ref.split('/');
    if (parts.length > 2) {
      errs.push({ field: at, type: 'Invalid', value: ref, detail: 'must be a name or namespace/name' });
      return;
    }
    const problems =
      parts.length === 2
        ? [
            ...dns1123LabelErrors(parts[0]).map((m) => `namespace part ${m}`),
            ...dns1123SubdomainErrors(parts[1]).map((m) => `name part ${m}`),
          ]
        : dns1123SubdomainErrors(ref);
    for (const detail of problems) errs.push({ field: at, type: 'Invalid', value: ref, detail });
  });
  return errs;
}

/**
 * spec.plan: a strategy among the four phase strategies; requiredProceeds a whole number ≥ 1, only
 * with a canary strategy. Messages in the CRD schema's words where the schema says the same.
 */
export function validatePlanSpec(plan: unknown): FieldError[] {
  const field = 'spec.plan';
  if (plan === undefined || plan === null) return [];
  if (typeof plan !== 'object' || Array.isArray(plan)) {
    return [
      {
        field,
        type: 'Invalid',
        value: jsonTypeName(plan),
        detail: `${field} in body must be of type object: "${jsonTypeName(plan)}"`,
      },
    ];
  }
  const errs: FieldError[] = [];
  const { strategy, requiredProceeds } = plan as { strategy?: unknown; requiredProceeds?: unknown };
  if (strategy !== undefined && !(PLAN_PHASE_STRATEGIES as readonly unknown[]).includes(strategy)) {
    errs.push({
      field: `${field}.strategy`,
      type: 'NotSupported',
      value: strategy,
      detail: `supported values: ${PLAN_PHASE_STRATEGIES.map((s) => `"${s}"`).join(', ')}`,
    });
  }
  if (requiredProceeds !== undefined) {
    if (!Number.isInteger(requiredProceeds) || (requiredProceeds as number) < 1) {
      errs.push({
        field: `${field}.requiredProceeds`,
        type: 'Invalid',
        value: requiredProceeds,
        detail: 'must be greater than or equal to 1',
      });
    } else if (typeof strategy !== 'string' || !strategy.endsWith('-canary')) {
      errs.push({
        field: `${field}.requiredProceeds`,
        type: 'Forbidden',
        detail: 'may not be set when `strategy` is not serial-canary or parallel-canary',
      });
    }
  }
  return errs;
}

/** apps/v1's strategy types, sorted as apimachinery lists supported values. */
export const APPS_STRATEGY_TYPES: readonly StrategyType[] = [recreateRules.name, rollingUpdateRules.name];

export interface DeploymentValidationOptions {
  /**
   * The built-in apps/v1 kind's rules, as kube-apiserver applies them (the simulated cluster serves
   * that kind with them): only RollingUpdate and Recreate; none of Pacer's fields (the API server
   * prunes them before validation); spec.template is a value, not a pointer, so a missing one is an
   * empty one; and the pod template's containers get the pod spec's basic checks.
   */
  apps?: boolean;
}

/**
 * The pod spec's checks on a template's containers that apps/v1 validation reaches first
 * (validateContainers): at least one, each named with a DNS-1123 label unique in the pod, each
 * with an image.
 */
function validateTemplateContainers(containers: unknown, errs: FieldError[]): void {
  const field = 'spec.template.spec.containers';
  if (!Array.isArray(containers) || containers.length === 0) {
    errs.push({ field, type: 'Required', detail: '' });
    return;
  }
  const names = new Set<string>();
  containers.forEach((c: unknown, i) => {
    const at = `${field}[${i}]`;
    const { name, image } = (c ?? {}) as { name?: unknown; image?: unknown };
    if (typeof name !== 'string' || name === '') {
      errs.push({ field: `${at}.name`, type: 'Required', detail: '' });
    } else {
      for (const msg of dns1123LabelErrors(name))
        errs.push({ field: `${at}.name`, type: 'Invalid', value: name, detail: msg });
      if (names.has(name)) errs.push({ field: `${at}.name`, type: 'Duplicate', value: name, detail: '' });
      names.add(name);
    }
    if (typeof image !== 'string' || image.trim() === '')
      errs.push({ field: `${at}.image`, type: 'Required', detail: '' });
  });
}

/**
 * Every problem with `d` (defaults already applied), in upstream's order. `old` is the stored object
 * on update, for immutable fields (spec.selector). With `apps`, the rules of the built-in kind.
 */
export function validateDeployment(
  d: Deployment,
  old?: Deployment,
  opts: DeploymentValidationOptions = {},
): FieldError[] {
  const errs: FieldError[] = [];
  const spec = opts.apps ? { ...(d.spec ?? {}), template: d.spec?.template ?? {} } : (d.spec ?? {});

  nonNegativeInteger('spec.replicas', spec.replicas, errs);

  // The selector: required, well formed, and not empty (an empty one would select every pod).
  const selector = spec.selector ?? undefined;
  let convertible = true;
  if (!selector) {
    errs.push({ field: 'spec.selector', type: 'Required', detail: '' });
  } else {
    convertible = validateSelector('spec.selector', selector, errs);
    if (isEmptySelector(selector)) {
      errs.push({
        field: 'spec.selector',
        type: 'Invalid',
        value: selectorValue(selector),
        detail: 'empty selector is invalid for deployment',
      });
    }
  }

  // The template, checked only when the selector could be built (as upstream does).
  if (!convertible) {
    errs.push({
      field: 'spec.selector',
      type: 'Invalid',
      value: selectorValue(selector!),
      detail: 'invalid label selector',
    });
  } else if (!spec.template) {
    errs.push({ field: 'spec.template', type: 'Required', detail: '' });
  } else {
    const labels = spec.template.metadata?.labels;
    // A missing selector selects nothing and so matches no labels; an empty one is not compared.
    if ((!selector || !isEmptySelector(selector)) && !selectorMatches(selector, labels)) {
      errs.push({
        field: 'spec.template.metadata.labels',
        type: 'Invalid',
        value: sortedMap(labels),
        detail: '`selector` does not match template `labels`',
      });
    }
    validateLabels('spec.template.metadata.labels', labels, errs);
    const podSpec = spec.template.spec ?? {};
    if (opts.apps) validateTemplateContainers(podSpec.containers, errs);
    const restartPolicy = podSpec.restartPolicy;
    if (restartPolicy !== undefined && restartPolicy !== 'Always') {
      errs.push({
        field: 'spec.template.spec.restartPolicy',
        type: 'NotSupported',
        value: restartPolicy,
        detail: 'supported values: "Always"',
      });
    }
    if (podSpec.activeDeadlineSeconds !== undefined && podSpec.activeDeadlineSeconds !== null) {
      errs.push({
        field: 'spec.template.spec.activeDeadlineSeconds',
        type: 'Forbidden',
        detail: 'activeDeadlineSeconds in ReplicaSet is not Supported',
      });
    }
  }

  validateStrategy(spec.strategy, opts.apps ? APPS_STRATEGY_TYPES : STRATEGY_TYPES, errs);
  nonNegativeInteger('spec.minReadySeconds', spec.minReadySeconds, errs);
  nonNegativeInteger('spec.revisionHistoryLimit', spec.revisionHistoryLimit, errs);
  if (nonNegativeInteger('spec.progressDeadlineSeconds', spec.progressDeadlineSeconds, errs)) {
    const minReady = typeof spec.minReadySeconds === 'number' ? spec.minReadySeconds : 0;
    if (spec.progressDeadlineSeconds! <= minReady) {
      errs.push({
        field: 'spec.progressDeadlineSeconds',
        type: 'Invalid',
        value: spec.progressDeadlineSeconds,
        detail: 'must be greater than minReadySeconds',
      });
    }
  }

  if (!opts.apps) {
    errs.push(...validateDependencies(spec.dependencies));
    errs.push(...validatePlanSpec(spec.plan));
    if (spec.analysis !== undefined && spec.analysis !== null)
      errs.push(...validateDeploymentAnalysis(spec.analysis, spec.strategy?.type, spec.plan?.strategy));
    errs.push(...validateWindows(spec));
  }

  // Update only: apps/v1 freezes the selector once the Deployment exists.
  if (old && !sameSelector(selector, old.spec?.selector ?? undefined)) {
    errs.push({
      field: 'spec.selector',
      type: 'Invalid',
      value: selector ? selectorValue(selector) : null,
      detail: 'field is immutable',
    });
  }
  return errs;
}

/** A bad value as apimachinery prints it: numbers and booleans bare, strings quoted, the rest as JSON. */
function formatValue(v: unknown): string {
  if (v === undefined || v === null) return 'null';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return JSON.stringify(v);
  // encoding/json escapes these for safe embedding in HTML.
  return JSON.stringify(v).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

/** One error as upstream prints it: `spec.replicas: Invalid value: -1: must be greater than or equal to 0`. */
export function formatFieldError(e: FieldError): string {
  const detail = e.detail ? `: ${e.detail}` : '';
  switch (e.type) {
    case 'Required':
      return `${e.field}: Required value${detail}`;
    case 'Forbidden':
      return `${e.field}: Forbidden${detail}`;
    case 'NotSupported':
      return `${e.field}: Unsupported value: ${formatValue(e.value)}${detail}`;
    case 'Duplicate':
      return `${e.field}: Duplicate value: ${formatValue(e.value)}`;
    default:
      return `${e.field}: Invalid value: ${formatValue(e.value)}${detail}`;
  }
}
