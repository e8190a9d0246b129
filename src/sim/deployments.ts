// apps/v1 Deployments as kube-apiserver serves them (docs/simulated-api-server.md#appsv1-deployments),
// the parts the store's generic rules do not cover: decoding into the typed struct (a field of the
// wrong JSON type is a 400 naming the Go field), dropping the fields apps/v1 does not have (or, with
// fieldValidation=Strict, refusing them), apps/v1's defaults, and its validation, which is Pacer's
// own (src/api/validation.ts, the built-in kind's rules) turned into the Status causes of a 422.
//
// The store calls these in the API server's order: decode and prune, default, validate. Nothing here
// runs a Deployment controller: in the simulated cluster, as in a cluster in native mode, that is
// Pacer's job.

import { DEFAULT_STRATEGY_TYPE, strategyRules } from '../api/strategies/index.ts';
import type { Deployment } from '../api/types.ts';
import { APPS_STRATEGY_TYPES, formatFieldError, validateDeployment } from '../api/validation.ts';
import type { FieldError } from '../api/validation.ts';
import type { KubeObject, StatusCause } from './types.ts';

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

// ---------------------------------------------------------------------------------------------
// Decoding: what encoding/json says when a field of the typed struct gets a value of another type.

type GoType = 'int32' | 'bool' | 'string' | { struct: string };

/** The typed fields checked, per object path: Go struct name and each field's Go type. */
const TYPED: Record<string, { struct: string; fields: Record<string, GoType> }> = {
  '': { struct: 'Deployment', fields: { spec: { struct: 'v1.DeploymentSpec' } } },
  spec: {
    struct: 'DeploymentSpec',
    fields: {
      replicas: 'int32',
      selector: { struct: 'v1.LabelSelector' },
      template: { struct: 'v1.PodTemplateSpec' },
      strategy: { struct: 'v1.DeploymentStrategy' },
      minReadySeconds: 'int32',
      revisionHistoryLimit: 'int32',
      paused: 'bool',
      progressDeadlineSeconds: 'int32',
    },
  },
  'spec.strategy': {
    struct: 'DeploymentStrategy',
    fields: { type: 'string', rollingUpdate: { struct: 'v1.RollingUpdateDeployment' } },
  },
};

/**
 * How encoding/json names a JSON value it could not store: `string`, `bool`, `object`, `array`, and
 * `number`, with its text when the field is a number too (1.5 or an overflow for an int32).
 */
function jsonValueName(v: unknown, t: GoType): string {
  if (typeof v === 'number') return t === 'int32' ? `number ${v}` : 'number';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'object' ? 'object' : typeof v;
}

function fits(v: unknown, t: GoType): boolean {
  if (v === null) return true; // null leaves a field at its zero value
  if (t === 'int32') return typeof v === 'number' && Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31;
  if (t === 'bool') return typeof v === 'boolean';
  if (t === 'string') return typeof v === 'string';
  return isRecord(v);
}

/**
 * Why a body does not decode, as kube-apiserver words it after its 400's prefix (cannotDecode): the
 * first field (in the body's order, as the decoder meets them) whose JSON type does not fit apps/v1's
 * struct, else a rollback annotation that is not an int64; undefined when the body decodes.
 */
export function decodeFailure(o: unknown): string | undefined {
  const walk = (v: Record<string, unknown>, path: string): string | undefined => {
    const typed = TYPED[path];
    if (!typed) return undefined;
    for (const [k, x] of Object.entries(v)) {
      const t = typed.fields[k];
      if (t === undefined) continue;
      const at = path ? `${path}.${k}` : k;
      if (!fits(x, t)) {
        const goType = typeof t === 'string' ? (k === 'type' ? 'v1.DeploymentStrategyType' : t) : t.struct;
        return `json: cannot unmarshal ${jsonValueName(x, t)} into Go struct field ${typed.struct}.${at} of type ${goType}`;
      }
      if (isRecord(x)) {
        const inner = walk(x, at);
        if (inner) return inner;
      }
    }
    return undefined;
  };
  if (!isRecord(o)) return undefined;
  return walk(o, '') ?? rollbackToFailure(o);
}

/** kube-apiserver's 400 message for a Deployment body it could not decode, for `reason` (decodeFailure's). */
export function cannotDecode(reason: string): string {
  return `Deployment in version "v1" cannot be handled as a Deployment: ${reason}`;
}

// ---------------------------------------------------------------------------------------------
// The rollback annotation: apps/v1's stand-in for the internal type's spec.rollbackTo.

/**
 * apps/v1 has no spec.rollbackTo; its conversion to the internal type (Convert_v1_Deployment_To_apps_Deployment
 * in k8s.io/kubernetes pkg/apis/apps/v1) moves this annotation there and back. What a client sees:
 * a value that is not a base-10 int64 cannot be decoded, "" is no rollback and is dropped, any other
 * value comes back as its number ("+7" and "07" are stored as "7"), and, being spec, a /status write
 * can neither set, change nor remove it (the status strategy keeps the stored spec).
 */
export const ROLLBACK_TO_ANNOTATION = 'deprecated.deployment.rollback.to';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** The annotation as conversion reads it: undefined (none or ""), its number, or the ParseInt error. */
function parseRollbackTo(o: Record<string, unknown>): bigint | { error: string } | undefined {
  const a = isRecord(o.metadata) && isRecord(o.metadata.annotations) ? o.metadata.annotations : undefined;
  const v = a?.[ROLLBACK_TO_ANNOTATION];
  if (typeof v !== 'string' || v === '') return undefined;
  const n = /^[+-]?[0-9]+$/.test(v) ? BigInt(v) : undefined;
  if (n !== undefined && n >= INT64_MIN && n <= INT64_MAX) return n;
  const why = n === undefined ? 'invalid syntax' : 'value out of range';
  return {
    error: `failed to parse annotation[${ROLLBACK_TO_ANNOTATION}]=${v} as int64: strconv.ParseInt: parsing ${JSON.stringify(v)}: ${why}`,
  };
}

function rollbackToFailure(o: Record<string, unknown>): string | undefined {
  const r = parseRollbackTo(o);
  return typeof r === 'object' ? r.error : undefined;
}

/**
 * The annotation after the round trip through spec.rollbackTo, in place on a body that decoded: ""
 * dropped, a number in its canonical form. With `stored` (a /status write), the stored Deployment's
 * value instead of the body's, whatever the body says.
 */
export function roundTripRollbackTo(o: KubeObject, stored?: KubeObject): void {
  const from = stored ?? o;
  const r = parseRollbackTo(from as Record<string, unknown>);
  const value = typeof r === 'bigint' ? r.toString() : undefined;
  if (o.metadata.annotations?.[ROLLBACK_TO_ANNOTATION] === value) return;
  const annotations = { ...(o.metadata.annotations ?? {}) };
  if (value === undefined) delete annotations[ROLLBACK_TO_ANNOTATION];
  else annotations[ROLLBACK_TO_ANNOTATION] = value;
  if (Object.keys(annotations).length > 0) o.metadata.annotations = annotations;
  else delete o.metadata.annotations;
}

// ---------------------------------------------------------------------------------------------
// Unknown fields: apps/v1's fields down to the pod template (whose pod spec is not checked).

type Known = { [field: string]: Known | 'leaf' | { items: Known } };

const LABEL_SELECTOR: Known = {
  matchLabels: 'leaf',
  matchExpressions: { items: { key: 'leaf', operator: 'leaf', values: 'leaf' } },
};

const OBJECT_META: Known = Object.fromEntries(
  [
    'name',
    'generateName',
    'namespace',
    'selfLink',
    'uid',
    'resourceVersion',
    'generation',
    'creationTimestamp',
    'deletionTimestamp',
    'deletionGracePeriodSeconds',
    'labels',
    'annotations',
    'ownerReferences',
    'finalizers',
    'managedFields',
  ].map((f) => [f, 'leaf' as const]),
);

const DEPLOYMENT_FIELDS: Known = {
  apiVersion: 'leaf',
  kind: 'leaf',
  metadata: OBJECT_META,
  spec: {
    replicas: 'leaf',
    selector: LABEL_SELECTOR,
    template: { metadata: 'leaf', spec: 'leaf' },
    strategy: { type: 'leaf', rollingUpdate: { maxUnavailable: 'leaf', maxSurge: 'leaf' } },
    minReadySeconds: 'leaf',
    revisionHistoryLimit: 'leaf',
    paused: 'leaf',
    progressDeadlineSeconds: 'leaf',
  },
  status: {
    observedGeneration: 'leaf',
    replicas: 'leaf',
    updatedReplicas: 'leaf',
    readyReplicas: 'leaf',
    availableReplicas: 'leaf',
    unavailableReplicas: 'leaf',
    terminatingReplicas: 'leaf',
    conditions: {
      items: {
        type: 'leaf',
        status: 'leaf',
        lastUpdateTime: 'leaf',
        lastTransitionTime: 'leaf',
        reason: 'leaf',
        message: 'leaf',
      },
    },
    collisionCount: 'leaf',
  },
};

/**
 * Removes from `o` (in place) the fields apps/v1's Deployment does not have, and returns their
 * paths as the API server names them (`spec.plan`, `spec.selector.matchExpressions[0].foo`): what
 * fieldValidation=Strict refuses and Warn warns about. Inside the pod template only `metadata` and
 * `spec` are known; the pod spec's own fields are not checked.
 */
export function pruneUnknownFields(o: KubeObject): string[] {
  const unknown: string[] = [];
  const walk = (v: Record<string, unknown>, known: Known, path: string): void => {
    for (const k of Object.keys(v)) {
      const at = path ? `${path}.${k}` : k;
      const rule = known[k];
      if (rule === undefined) {
        unknown.push(at);
        delete v[k];
      } else if (rule !== 'leaf') {
        const x = v[k];
        if ('items' in rule && Array.isArray(x)) {
          x.forEach((item, i) => {
            if (isRecord(item)) walk(item, rule.items as Known, `${at}[${i}]`);
          });
        } else if (!('items' in rule) && isRecord(x)) walk(x, rule as Known, at);
      }
    }
  };
  walk(o as unknown as Record<string, unknown>, DEPLOYMENT_FIELDS, '');
  return unknown;
}

// ---------------------------------------------------------------------------------------------
// Defaults (SetDefaults_Deployment; the pod template's are the store's pod spec defaults).

/**
 * apps/v1's defaults, in place: replicas 1, strategy RollingUpdate with 25% / 25% (only for that
 * type: a Recreate Deployment gets no rollingUpdate), revisionHistoryLimit 10,
 * progressDeadlineSeconds 600. minReadySeconds and paused stay unset, as upstream leaves them.
 */
export function defaultDeploymentSpec(spec: Record<string, unknown>): void {
  spec.replicas ??= 1;
  const strategy = isRecord(spec.strategy) ? spec.strategy : (spec.strategy = {});
  const given = strategy.type;
  if (given === undefined || given === null || given === '') strategy.type = DEFAULT_STRATEGY_TYPE;
  // apps/v1's own types take their defaults (RollingUpdate: 25% and 25%); another is validation's to refuse.
  const type = String(strategy.type);
  if (APPS_STRATEGY_TYPES.some((t) => t === type)) strategyRules(type)?.applyDefaults(strategy);
  spec.revisionHistoryLimit ??= 10;
  spec.progressDeadlineSeconds ??= 600;
}

// ---------------------------------------------------------------------------------------------
// Validation.

const CAUSE_REASON: Record<FieldError['type'], string> = {
  Required: 'FieldValueRequired',
  Invalid: 'FieldValueInvalid',
  NotSupported: 'FieldValueNotSupported',
  Forbidden: 'FieldValueForbidden',
  Duplicate: 'FieldValueDuplicate',
};

/** One field error as a Status cause: the reason, the field, and the message without the field. */
export function causeOf(e: FieldError): StatusCause {
  return {
    reason: CAUSE_REASON[e.type],
    message: formatFieldError(e).slice(e.field.length + 2),
    field: e.field,
  };
}

/**
 * apps/v1's validation of a Deployment (defaults applied), with `old` on update (the selector is
 * immutable): Pacer's validateDeployment with the built-in kind's rules, as Status causes.
 */
export function deploymentCauses(o: KubeObject, old: KubeObject | undefined): StatusCause[] {
  return validateDeployment(o as unknown as Deployment, old as unknown as Deployment | undefined, {
    apps: true,
  }).map(causeOf);
}

/**
 * apps/v1's validation of a status write (ValidateDeploymentStatus): counts not negative, and none
 * of updated, ready or available above replicas, nor available above ready.
 */
export function deploymentStatusCauses(status: unknown): StatusCause[] {
  const s = isRecord(status) ? status : {};
  const num = (k: string): number => (typeof s[k] === 'number' ? (s[k] as number) : 0);
  const errs: FieldError[] = [];
  const nonNegative = (k: string): void => {
    if (num(k) < 0)
      errs.push({ field: `status.${k}`, type: 'Invalid', value: num(k), detail: 'must be greater than or equal to 0' });
  };
  for (const k of ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas'])
    nonNegative(k);
  nonNegative('unavailableReplicas');
  nonNegative('terminatingReplicas');
  nonNegative('collisionCount');
  const above = (k: string, limit: string, detail: string): void => {
    if (num(k) > num(limit)) errs.push({ field: `status.${k}`, type: 'Invalid', value: num(k), detail });
  };
  above('updatedReplicas', 'replicas', 'cannot be greater than status.replicas');
  above('readyReplicas', 'replicas', 'cannot be greater than status.replicas');
  above('availableReplicas', 'replicas', 'cannot be greater than status.replicas');
  above('availableReplicas', 'readyReplicas', 'cannot be greater than readyReplicas');
  return errs.map(causeOf);
}

/** Fields whose zero value encoding/json leaves out (`omitempty` on a value, not a pointer). */
const OMIT_ZERO: Record<'spec' | 'status', Record<string, unknown>> = {
  spec: { minReadySeconds: 0, paused: false },
  status: {
    observedGeneration: 0,
    replicas: 0,
    updatedReplicas: 0,
    readyReplicas: 0,
    availableReplicas: 0,
    unavailableReplicas: 0,
  },
};

/**
 * What the typed round trip does to spec and status, in place: nulls and the zero values of
 * `omitempty` fields are gone (`unavailableReplicas: 0` is not stored, `terminatingReplicas: 0`, a
 * pointer, is), and so is an empty conditions list.
 */
export function dropOmittedValues(o: KubeObject): void {
  for (const part of ['spec', 'status'] as const) {
    const v = (o as Record<string, unknown>)[part];
    if (!isRecord(v)) continue;
    for (const [k, x] of Object.entries(v)) {
      const zero = OMIT_ZERO[part][k];
      if (
        x === null ||
        (zero !== undefined && x === zero) ||
        (k === 'conditions' && Array.isArray(x) && x.length === 0)
      )
        delete v[k];
    }
  }
}
