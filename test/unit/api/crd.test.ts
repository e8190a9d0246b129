// The CRD is the API's schema: these tests read crds/deployments.pacer.dev.yaml and check its shape
// (names, subresources, printer columns, a description on every field, upstream defaults) and run
// its CEL rules with @marcbachmann/cel-js, the evaluator the simulated cluster uses, on valid and
// invalid Deployments. JSON integers become BigInt first, as a real API server types them as int.

import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { compileCel, runCel } from '../../../src/sim/schema/cel.ts';
import {
  DEFAULT_MAX_SURGE,
  DEFAULT_MAX_UNAVAILABLE,
  DEFAULT_MINIMUM_HEALTH_CAPACITY,
  DEFAULT_PROGRESS_DEADLINE_SECONDS,
  DEFAULT_REPLICAS,
  DEFAULT_REVISION_HISTORY_LIMIT,
  withDefaults,
} from '../../../src/api/defaults.ts';
import { validateDeployment, formatFieldError, PERCENT_ERROR } from '../../../src/api/validation.ts';
import { API_VERSION, GROUP, KIND, PLURAL, VERSION } from '../../../src/api/types.ts';
import type { Deployment } from '../../../src/api/types.ts';

type Schema = {
  type?: string;
  description?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema;
  required?: string[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  maxProperties?: number;
  maxLength?: number;
  pattern?: string;
  default?: unknown;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-validations'?: Array<{
    rule: string;
    message: string;
    messageExpression?: string;
    fieldPath?: string;
    reason?: string;
  }>;
};

const crdPath = fileURLToPath(new URL('../../../crds/deployments.pacer.dev.yaml', import.meta.url));
const crd = parseYaml(readFileSync(crdPath, 'utf8'));
const version = crd.spec.versions[0];
const root: Schema = version.schema.openAPIV3Schema;

/** Every schema node with its path: properties, array items, map values. */
function* nodes(s: Schema, path: string): Generator<[string, Schema]> {
  yield [path, s];
  for (const [k, child] of Object.entries(s.properties ?? {})) yield* nodes(child, path ? `${path}.${k}` : k);
  if (s.items) yield* nodes(s.items, `${path}[]`);
  if (s.additionalProperties) yield* nodes(s.additionalProperties, `${path}{}`);
}

function at(path: string): Schema {
  let s = root;
  for (const k of path.split('.')) s = s.properties![k];
  return s;
}

/** JSON integers as CEL ints (BigInt); everything else unchanged. */
/** A CEL expression in the Kubernetes environment (its string and list libraries); errors throw. */
function evaluate(expr: string, ctx: Record<string, unknown>): unknown {
  const c = compileCel(expr);
  if (!c.ok) throw new Error(c.error);
  const r = runCel(c.program, ctx);
  if (r.error !== undefined) throw new Error(r.error);
  return r.value;
}

function toCel(v: unknown): unknown {
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (Array.isArray(v)) return v.map(toCel);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toCel(x)]));
  return v;
}

/** Schema defaults where the parent exists, top-down, as the API server applies them. */
function applyDefaults(s: Schema, v: unknown): unknown {
  if (!v || typeof v !== 'object' || Array.isArray(v)) {
    if (Array.isArray(v) && s.items) return v.map((x) => applyDefaults(s.items!, x));
    return v;
  }
  const obj = v as Record<string, unknown>;
  for (const [k, child] of Object.entries(s.properties ?? {})) {
    if (obj[k] === undefined && child.default !== undefined) obj[k] = structuredClone(child.default);
    if (obj[k] !== undefined) obj[k] = applyDefaults(child, obj[k]);
  }
  return obj;
}

/**
 * What the API server would refuse, as "path: message" lines: required fields, enums, minimums,
 * maximums, minItems, patterns, and every x-kubernetes-validations rule (transition rules only when there is an old value).
 */
function admissionErrors(s: Schema, v: unknown, old: unknown, path: string, out: string[]): string[] {
  if (v === undefined) return out;
  if (s.enum && !s.enum.includes(v)) out.push(`${path}: Unsupported value: ${JSON.stringify(v)}`);
  if (s.minimum !== undefined && typeof v === 'number' && v < s.minimum)
    out.push(`${path}: should be greater than or equal to ${s.minimum}`);
  if (s.maximum !== undefined && typeof v === 'number' && v > s.maximum)
    out.push(`${path}: should be less than or equal to ${s.maximum}`);
  if (s.minItems !== undefined && Array.isArray(v) && v.length < s.minItems)
    out.push(`${path}: should have at least ${s.minItems} items`);
  if (s.pattern !== undefined && typeof v === 'string' && !new RegExp(s.pattern).test(v))
    out.push(`${path}: should match '${s.pattern}'`);
  for (const r of s.required ?? []) {
    if ((v as Record<string, unknown>)[r] === undefined) out.push(`${path}.${r}: Required value`);
  }
  for (const rule of s['x-kubernetes-validations'] ?? []) {
    if (rule.rule.includes('oldSelf') && old === undefined) continue;
    const where = `${path}${rule.fieldPath ?? ''}`;
    try {
      const ctx = { self: toCel(v), oldSelf: toCel(old) };
      const ok = evaluate(rule.rule, ctx);
      // The API server prefers messageExpression's result when it gives a usable string.
      const message = rule.messageExpression ? evaluate(rule.messageExpression, ctx) : rule.message;
      if (ok !== true)
        out.push(`${where}: ${typeof message === 'string' && message.trim() !== '' ? message : rule.message}`);
    } catch (err) {
      out.push(`${where}: rule failed to evaluate: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  const o = (v && typeof v === 'object' ? v : {}) as Record<string, unknown>;
  const oo = (old && typeof old === 'object' ? old : {}) as Record<string, unknown>;
  for (const [k, child] of Object.entries(s.properties ?? {})) admissionErrors(child, o[k], oo[k], `${path}.${k}`, out);
  if (Array.isArray(v) && s.items)
    v.forEach((x, i) => {
      admissionErrors(s.items!, x, undefined, `${path}[${i}]`, out);
    });
  return out;
}

/**
 * The scale subresource's own check, after the schema's (apiextensions-apiserver validates the
 * replicas at specReplicasPath as a non-negative integer): the one refusal of a negative
 * spec.replicas, the schema stating no minimum for it (a minimum would report it twice).
 */
function scaleErrors(d: unknown): string[] {
  const path: string = version.subresources.scale.specReplicasPath;
  let v: unknown = d;
  for (const k of path.replace(/^\./, '').split('.'))
    v = v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  return typeof v === 'number' && Number.isInteger(v) && v < 0 ? [`${path}: should be a non-negative integer`] : [];
}

function admit(d: unknown, old?: unknown): string[] {
  const defaulted = applyDefaults(root, structuredClone(d));
  return [
    ...admissionErrors(
      root,
      defaulted,
      old === undefined ? undefined : applyDefaults(root, structuredClone(old)),
      '',
      [],
    ),
    ...scaleErrors(defaulted),
  ].map((e) => e.replace(/^\./, ''));
}

function web(): Deployment {
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: { name: 'web' },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] },
      },
    },
  };
}

describe('crds/deployments.pacer.dev.yaml: shape', () => {
  it('is a v1 CRD named plural.group, namespaced, with the agreed names', () => {
    expect(crd.apiVersion).to.equal('apiextensions.k8s.io/v1');
    expect(crd.kind).to.equal('CustomResourceDefinition');
    expect(crd.metadata.name).to.equal(`${PLURAL}.${GROUP}`);
    expect(crd.spec.group).to.equal(GROUP);
    expect(crd.spec.scope).to.equal('Namespaced');
    expect(crd.spec.names).to.deep.equal({
      kind: KIND,
      listKind: 'DeploymentList',
      plural: PLURAL,
      singular: 'deployment',
      shortNames: ['pdeploy'],
      categories: ['pacer'],
    });
  });

  it('serves and stores exactly one version, v1alpha1', () => {
    expect(crd.spec.versions).to.have.length(1);
    expect(version).to.include({ name: VERSION, served: true, storage: true });
  });

  it('has the status and scale subresources, scale reading status.selector', () => {
    expect(version.subresources).to.deep.equal({
      status: {},
      scale: {
        specReplicasPath: '.spec.replicas',
        statusReplicasPath: '.status.replicas',
        labelSelectorPath: '.status.selector',
      },
    });
  });

  it('prints READY, UP-TO-DATE, AVAILABLE, AGE like `kubectl get deploy`', () => {
    const columns = version.additionalPrinterColumns.map((c: { name: string; type: string; jsonPath: string }) => [
      c.name.toUpperCase(),
      c.type,
      c.jsonPath,
    ]);
    expect(columns).to.deep.equal([
      ['READY', 'string', '.status.ready'],
      ['UP-TO-DATE', 'integer', '.status.updatedReplicas'],
      ['AVAILABLE', 'integer', '.status.availableReplicas'],
      ['AGE', 'date', '.metadata.creationTimestamp'],
    ]);
  });

  it('gives every field and list item a description (kubectl explain)', () => {
    // The root `metadata` may only say `type: object`: the API server describes it itself and
    // rejects anything more ("must not specify anything other than name and generateName").
    const missing = [...nodes(root, '')]
      .filter(([path]) => path !== 'metadata')
      .filter(([path, s]) => !path.endsWith('{}') && !(s.description && s.description.trim().length > 10))
      .map(([path]) => path || '(root)');
    expect(missing).to.deep.equal([]);
  });

  it('is structural: every node has a type, except int-or-string ones', () => {
    const untyped = [...nodes(root, '')]
      .filter(([, s]) => !s.type && !s['x-kubernetes-int-or-string'])
      .map(([path]) => path);
    expect(untyped).to.deep.equal([]);
    expect(root.type).to.equal('object');
    expect(at('spec.strategy.rollingUpdate.maxSurge')['x-kubernetes-int-or-string']).to.equal(true);
    expect(at('spec.strategy.rollingUpdate.maxUnavailable')['x-kubernetes-int-or-string']).to.equal(true);
  });

  it("declares spec and status field for field as apps/v1, plus Pacer's additions (dependencies, plan, analysis, windows, blackouts; status.selector, ready, stableRS, abortedRS)", () => {
    expect(Object.keys(at('spec').properties!).sort()).to.deep.equal([
      'analysis',
      'blackouts',
      'dependencies',
      'minReadySeconds',
      'paused',
      'plan',
      'progressDeadlineSeconds',
      'replicas',
      'revisionHistoryLimit',
      'selector',
      'strategy',
      'template',
      'windows',
    ]);
    expect(Object.keys(at('status').properties!).sort()).to.deep.equal([
      'abortedRS',
      'availableReplicas',
      'collisionCount',
      'conditions',
      'observedGeneration',
      'ready',
      'readyReplicas',
      'replicas',
      'selector',
      'stableRS',
      'terminatingReplicas',
      'unavailableReplicas',
      'updatedReplicas',
    ]);
    expect(at('spec').required).to.deep.equal(['selector', 'template']);
    expect(at('spec.template.spec')['x-kubernetes-preserve-unknown-fields']).to.equal(true);
  });

  it('carries the upstream defaults that src/api/defaults.ts applies', () => {
    expect(at('spec.replicas').default).to.equal(DEFAULT_REPLICAS);
    expect(at('spec.revisionHistoryLimit').default).to.equal(DEFAULT_REVISION_HISTORY_LIMIT);
    expect(at('spec.progressDeadlineSeconds').default).to.equal(DEFAULT_PROGRESS_DEADLINE_SECONDS);
    expect(at('spec.minReadySeconds').default).to.equal(0);
    expect(at('spec.paused').default).to.equal(false);
    expect(at('spec.strategy').default).to.deep.equal({
      type: 'RollingUpdate',
      rollingUpdate: { maxSurge: DEFAULT_MAX_SURGE, maxUnavailable: DEFAULT_MAX_UNAVAILABLE },
    });
    expect(at('spec.strategy.type').default).to.equal('RollingUpdate');
    expect(at('spec.strategy.rollingUpdate.maxSurge').default).to.equal(DEFAULT_MAX_SURGE);
    expect(at('spec.strategy.rollingUpdate.maxUnavailable').default).to.equal(DEFAULT_MAX_UNAVAILABLE);
    // MinimumHealth: Marathon's capacity default; maximumOverCapacity stays absent (side-by-side rule).
    expect(at('spec.strategy.minimumHealth.minimumHealthCapacity').default).to.equal(DEFAULT_MINIMUM_HEALTH_CAPACITY);
    expect(at('spec.strategy.minimumHealth.maximumOverCapacity').default).to.equal(undefined);
  });

  it('defaults a bare Deployment to what withDefaults gives', () => {
    const d = web();
    expect(applyDefaults(root, structuredClone(d))).to.deep.equal(withDefaults(d));
  });

  it('states minimums and enums', () => {
    for (const f of ['minReadySeconds', 'revisionHistoryLimit', 'progressDeadlineSeconds']) {
      expect(at(`spec.${f}`).minimum, f).to.equal(0);
    }
    // spec.replicas has none: the scale subresource's check refuses a negative one, and with a
    // minimum as well kube-apiserver reports it twice, with two spellings of the path.
    expect(at('spec.replicas').minimum).to.equal(undefined);
    expect(version.subresources.scale.specReplicasPath).to.equal('.spec.replicas');
    expect(at('spec.strategy.type').enum).to.deep.equal(['RollingUpdate', 'Recreate', 'MinimumHealth']);
    for (const f of ['minimumHealthCapacity', 'maximumOverCapacity']) {
      // Bounded by a CEL rule, not minimum/maximum: one error, in Marathon's words.
      const share = at(`spec.strategy.minimumHealth.${f}`);
      expect([share.type, share.minimum, share.maximum], f).to.deep.equal(['number', undefined, undefined]);
      expect(share['x-kubernetes-validations'], f).to.have.length(1);
    }
    expect(at('spec.template.spec.restartPolicy' as string).enum).to.deep.equal(['Always']);
  });

  it('uses in its CEL rules only functions both evaluators support', () => {
    const allowed = new Set(['has', 'all', 'exists', 'size', 'string', 'type', 'matches']);
    const used = new Set<string>();
    for (const [, s] of nodes(root, '')) {
      for (const r of s['x-kubernetes-validations'] ?? []) {
        for (const m of r.rule.matchAll(/([A-Za-z_][A-Za-z0-9_]*)\s*\(/g)) used.add(m[1]);
        expect(r.message, r.rule).to.be.a('string').and.not.equal('');
      }
    }
    expect([...used].filter((f) => !allowed.has(f))).to.deep.equal([]);
  });

  it("states the percent format with upstream's exact message", () => {
    const rules = at('spec.strategy.rollingUpdate.maxSurge')['x-kubernetes-validations']!;
    expect(rules.map((r) => r.message)).to.include(PERCENT_ERROR);
  });
});

/** spec.dependencies[]: an optional DNS-1123 label and '/', then a DNS-1123 subdomain. */
const DEPENDENCY_PATTERN =
  '^([a-z0-9]([-a-z0-9]*[a-z0-9])?/)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';

describe('crds/deployments.pacer.dev.yaml: admission with the CEL rules', () => {
  type Change = (d: Deployment) => void;
  const set =
    (path: string, value: unknown): Change =>
    (d) => {
      const keys = path.split('.');
      let o = d as unknown as Record<string, unknown>;
      for (const k of keys.slice(0, -1)) o = (o[k] ??= {}) as Record<string, unknown>;
      if (value === undefined) delete o[keys.at(-1)!];
      else o[keys.at(-1)!] = value;
    };
  const rows: Array<{ name: string; change: Change; errors: string[] }> = [
    { name: 'a plain web deployment is admitted', change: () => {}, errors: [] },
    { name: 'Recreate without rollingUpdate', change: set('spec.strategy', { type: 'Recreate' }), errors: [] },
    {
      name: 'maxSurge 0 with maxUnavailable 1',
      change: set('spec.strategy', { rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } }),
      errors: [],
    },
    {
      name: 'maxSurge 0 alone (maxUnavailable defaults to 25%)',
      change: set('spec.strategy', { rollingUpdate: { maxSurge: 0 } }),
      errors: [],
    },
    {
      name: 'maxUnavailable 100%',
      change: set('spec.strategy', { rollingUpdate: { maxUnavailable: '100%' } }),
      errors: [],
    },
    {
      name: 'maxUnavailable 007%',
      change: set('spec.strategy', { rollingUpdate: { maxUnavailable: '007%' } }),
      errors: [],
    },
    { name: 'maxSurge 150%', change: set('spec.strategy', { rollingUpdate: { maxSurge: '150%' } }), errors: [] },
    {
      name: 'deadline above minReadySeconds',
      change: (d) => {
        d.spec.minReadySeconds = 10;
        d.spec.progressDeadlineSeconds = 11;
      },
      errors: [],
    },
    {
      name: 'selector by expression only',
      change: set('spec.selector', { matchExpressions: [{ key: 'app', operator: 'Exists' }] }),
      errors: [],
    },
    {
      name: 'maxSurge 0 and maxUnavailable 0',
      change: set('spec.strategy', { rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } }),
      errors: ['spec.strategy.rollingUpdate.maxUnavailable: may not be 0 when `maxSurge` is 0'],
    },
    {
      name: 'maxSurge "0%" and maxUnavailable 0',
      change: set('spec.strategy', { rollingUpdate: { maxSurge: '0%', maxUnavailable: 0 } }),
      errors: ['spec.strategy.rollingUpdate.maxUnavailable: may not be 0 when `maxSurge` is 0'],
    },
    {
      name: 'Recreate with rollingUpdate',
      change: set('spec.strategy', { type: 'Recreate', rollingUpdate: { maxSurge: 1 } }),
      errors: ["spec.strategy.rollingUpdate: may not be specified when strategy `type` is 'Recreate'"],
    },
    {
      name: 'unknown strategy type',
      change: set('spec.strategy', { type: 'BlueGreen' }),
      errors: ['spec.strategy.type: Unsupported value: "BlueGreen"'],
    },
    {
      name: 'maxSurge "5" (a number in a string)',
      change: set('spec.strategy', { rollingUpdate: { maxSurge: '5' } }),
      errors: [`spec.strategy.rollingUpdate.maxSurge: ${PERCENT_ERROR}`],
    },
    {
      name: 'maxUnavailable "a%"',
      change: set('spec.strategy', { rollingUpdate: { maxUnavailable: 'a%' } }),
      errors: [`spec.strategy.rollingUpdate.maxUnavailable: ${PERCENT_ERROR}`],
    },
    {
      name: 'negative maxSurge',
      change: set('spec.strategy', { rollingUpdate: { maxSurge: -1 } }),
      errors: ['spec.strategy.rollingUpdate.maxSurge: must be greater than or equal to 0'],
    },
    {
      name: 'maxUnavailable 101%',
      change: set('spec.strategy', { rollingUpdate: { maxUnavailable: '101%' } }),
      errors: ['spec.strategy.rollingUpdate.maxUnavailable: must not be greater than 100%'],
    },
    {
      name: 'maxUnavailable 1000%',
      change: set('spec.strategy', { rollingUpdate: { maxUnavailable: '1000%' } }),
      errors: ['spec.strategy.rollingUpdate.maxUnavailable: must not be greater than 100%'],
    },
    {
      name: 'deadline equal to minReadySeconds',
      change: (d) => {
        d.spec.minReadySeconds = 30;
        d.spec.progressDeadlineSeconds = 30;
      },
      errors: ['spec.progressDeadlineSeconds: must be greater than minReadySeconds'],
    },
    {
      name: 'deadline 0 with minReadySeconds defaulted to 0',
      change: set('spec.progressDeadlineSeconds', 0),
      errors: ['spec.progressDeadlineSeconds: must be greater than minReadySeconds'],
    },
    {
      name: 'negative replicas (once: the scale subresource refuses it, the schema states no minimum)',
      change: set('spec.replicas', -1),
      errors: ['spec.replicas: should be a non-negative integer'],
    },
    {
      name: 'missing selector',
      change: set('spec.selector', undefined),
      errors: ['spec.selector: Required value'],
    },
    {
      name: 'empty selector',
      change: set('spec.selector', {}),
      errors: ['spec.selector: empty selector is invalid for deployment'],
    },
    {
      name: 'selector with empty lists',
      change: set('spec.selector', { matchLabels: {}, matchExpressions: [] }),
      errors: ['spec.selector: empty selector is invalid for deployment'],
    },
    {
      name: 'template labels that do not match the selector',
      change: set('spec.template.metadata.labels', { app: 'api' }),
      errors: ['spec.template.metadata.labels: `selector` does not match template `labels`'],
    },
    {
      name: 'template without labels',
      change: set('spec.template.metadata', undefined),
      errors: ['spec.template.metadata.labels: `selector` does not match template `labels`'],
    },
    {
      name: 'In without values',
      change: set('spec.selector', {
        matchLabels: { app: 'web' },
        matchExpressions: [{ key: 'tier', operator: 'In' }],
      }),
      errors: ["spec.selector.matchExpressions[0].values: must be specified when `operator` is 'In' or 'NotIn'"],
    },
    {
      name: 'Exists with values',
      change: set('spec.selector', {
        matchLabels: { app: 'web' },
        matchExpressions: [{ key: 'tier', operator: 'Exists', values: ['a'] }],
      }),
      errors: [
        "spec.selector.matchExpressions[0].values: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      ],
    },
    {
      name: 'restartPolicy OnFailure',
      change: set('spec.template.spec.restartPolicy', 'OnFailure'),
      errors: ['spec.template.spec.restartPolicy: Unsupported value: "OnFailure"'],
    },
    {
      name: 'activeDeadlineSeconds in the pod template',
      change: set('spec.template.spec.activeDeadlineSeconds', 30),
      errors: ['spec.template.spec.activeDeadlineSeconds: activeDeadlineSeconds in ReplicaSet is not Supported'],
    },
    {
      name: 'MinimumHealth 0.6 with maximumOverCapacity 0.2',
      change: set('spec.strategy', {
        type: 'MinimumHealth',
        minimumHealth: { minimumHealthCapacity: 0.6, maximumOverCapacity: 0.2 },
      }),
      errors: [],
    },
    { name: 'MinimumHealth alone', change: set('spec.strategy', { type: 'MinimumHealth' }), errors: [] },
    {
      name: 'MinimumHealth at the bounds (integers 0 and 1)',
      change: set('spec.strategy', {
        type: 'MinimumHealth',
        minimumHealth: { minimumHealthCapacity: 0, maximumOverCapacity: 1 },
      }),
      errors: [],
    },
    {
      name: 'minimumHealthCapacity 1.2',
      change: set('spec.strategy', { type: 'MinimumHealth', minimumHealth: { minimumHealthCapacity: 1.2 } }),
      errors: ['spec.strategy.minimumHealth.minimumHealthCapacity: got 1.2, expected between 0.0 and 1.0'],
    },
    {
      name: 'negative maximumOverCapacity',
      change: set('spec.strategy', { type: 'MinimumHealth', minimumHealth: { maximumOverCapacity: -0.5 } }),
      errors: ['spec.strategy.minimumHealth.maximumOverCapacity: got -0.5, expected between 0.0 and 1.0'],
    },
    {
      name: 'MinimumHealth with rollingUpdate',
      change: set('spec.strategy', { type: 'MinimumHealth', rollingUpdate: { maxSurge: 1 } }),
      errors: ["spec.strategy.rollingUpdate: may not be specified when strategy `type` is 'MinimumHealth'"],
    },
    {
      name: 'minimumHealth with type RollingUpdate',
      change: set('spec.strategy', { type: 'RollingUpdate', minimumHealth: { minimumHealthCapacity: 0.5 } }),
      errors: ["spec.strategy.minimumHealth: may not be specified when strategy `type` is 'RollingUpdate'"],
    },
    {
      name: 'minimumHealth without a type (defaulted to RollingUpdate)',
      change: set('spec.strategy', { minimumHealth: { minimumHealthCapacity: 0.5 } }),
      errors: ["spec.strategy.minimumHealth: may not be specified when strategy `type` is 'RollingUpdate'"],
    },
    {
      name: 'minimumHealth with type Recreate',
      change: set('spec.strategy', { type: 'Recreate', minimumHealth: {} }),
      errors: ["spec.strategy.minimumHealth: may not be specified when strategy `type` is 'Recreate'"],
    },
    {
      name: 'dependencies by name and namespace/name',
      change: set('spec.dependencies', ['db', 'data/db']),
      errors: [],
    },
    {
      name: 'a dependency in upper case',
      change: set('spec.dependencies', ['Db']),
      errors: [`spec.dependencies[0]: should match '${DEPENDENCY_PATTERN}'`],
    },
    {
      name: 'a dependency with two slashes',
      change: set('spec.dependencies', ['db', 'a/b/c']),
      errors: [`spec.dependencies[1]: should match '${DEPENDENCY_PATTERN}'`],
    },
    {
      name: 'a serial-canary plan of three proceeds',
      change: set('spec.plan', { strategy: 'serial-canary', requiredProceeds: 3 }),
      errors: [],
    },
    { name: 'a parallel plan', change: set('spec.plan', { strategy: 'parallel' }), errors: [] },
    {
      name: 'a plan strategy "canary"',
      change: set('spec.plan', { strategy: 'canary' }),
      errors: ['spec.plan.strategy: Unsupported value: "canary"'],
    },
    {
      name: 'requiredProceeds 0',
      change: set('spec.plan', { strategy: 'parallel-canary', requiredProceeds: 0 }),
      errors: ['spec.plan.requiredProceeds: should be greater than or equal to 1'],
    },
    {
      name: 'requiredProceeds with a serial plan',
      change: set('spec.plan', { strategy: 'serial', requiredProceeds: 2 }),
      errors: ['spec.plan.requiredProceeds: may not be set when `strategy` is not serial-canary or parallel-canary'],
    },
    {
      name: 'analysis by a template and a cluster template, arguments from the revision and a label',
      change: set('spec.analysis', {
        templates: [{ templateName: 'success-rate' }, { templateName: 'slo', clusterScope: true }],
        args: [
          { name: 'service-name', value: 'web' },
          { name: 'canary-hash', valueFrom: { podTemplateHashValue: 'Latest' } },
          { name: 'team', valueFrom: { fieldRef: { fieldPath: "metadata.labels['team']" } } },
        ],
        startAfterAvailable: '50%',
        postRollout: '10m',
        onFailure: 'Rollback',
      }),
      errors: [],
    },
    {
      name: 'analysis starting after 2 new replicas, under MinimumHealth',
      change: (d) => {
        d.spec.strategy = { type: 'MinimumHealth' };
        d.spec.analysis = { templates: [{ templateName: 'success-rate' }], startAfterAvailable: 2 };
      },
      errors: [],
    },
    {
      name: 'analysis under Recreate',
      change: (d) => {
        d.spec.strategy = { type: 'Recreate' };
        d.spec.analysis = { templates: [{ templateName: 'success-rate' }] };
      },
      errors: [
        'spec.analysis: analysis needs a strategy that replaces pods gradually (RollingUpdate or MinimumHealth)',
      ],
    },
    {
      name: 'analysis without templates',
      change: set('spec.analysis', { templates: [] }),
      errors: ['spec.analysis.templates: at least one AnalysisTemplate, unless podFailures or canarySteps is set'],
    },
    {
      name: 'analysis by the pod check alone',
      change: set('spec.analysis', { podFailures: { window: '30s', restarts: 2 } }),
      errors: [],
    },
    {
      name: 'a pod check window of "30" (no unit)',
      change: set('spec.analysis', { podFailures: { window: '30' } }),
      errors: [
        "spec.analysis.podFailures.window: should match '^\\+?(([0-9]+(\\.[0-9]*)?|\\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$'",
      ],
    },
    {
      name: 'a pod check tolerating -1 restarts',
      change: set('spec.analysis', { templates: [{ templateName: 'success-rate' }], podFailures: { restarts: -1 } }),
      errors: ['spec.analysis.podFailures.restarts: should be greater than or equal to 0'],
    },
    {
      name: 'an analysis argument without a value',
      change: set('spec.analysis', { templates: [{ templateName: 'success-rate' }], args: [{ name: 'service-name' }] }),
      errors: ['spec.analysis.args[0]: exactly one of value and valueFrom'],
    },
    {
      name: 'an analysis argument from both the revision and a field',
      change: set('spec.analysis', {
        templates: [{ templateName: 'success-rate' }],
        args: [
          {
            name: 'x',
            valueFrom: { podTemplateHashValue: 'Stable', fieldRef: { fieldPath: 'metadata.name' } },
          },
        ],
      }),
      errors: ['spec.analysis.args[0].valueFrom: exactly one of podTemplateHashValue and fieldRef'],
    },
    {
      name: 'an analysis argument from the "Canary" hash',
      change: set('spec.analysis', {
        templates: [{ templateName: 'success-rate' }],
        args: [{ name: 'hash', valueFrom: { podTemplateHashValue: 'Canary' } }],
      }),
      errors: ['spec.analysis.args[0].valueFrom.podTemplateHashValue: Unsupported value: "Canary"'],
    },
    {
      name: 'an analysis argument from spec.replicas',
      change: set('spec.analysis', {
        templates: [{ templateName: 'success-rate' }],
        args: [{ name: 'n', valueFrom: { fieldRef: { fieldPath: 'spec.replicas' } } }],
      }),
      errors: [
        "spec.analysis.args[0].valueFrom.fieldRef.fieldPath: should match '^metadata\\.(name|namespace|(labels|annotations)\\['[^']+'\\])$'",
      ],
    },
    {
      name: 'analysis starting after 150% of the replicas',
      change: set('spec.analysis', { templates: [{ templateName: 'success-rate' }], startAfterAvailable: '150%' }),
      errors: ['spec.analysis.startAfterAvailable: must be a whole number or a percentage between 0% and 100%'],
    },
    {
      name: 'analysis starting after -1 new replicas',
      change: set('spec.analysis', { templates: [{ templateName: 'success-rate' }], startAfterAvailable: -1 }),
      errors: ['spec.analysis.startAfterAvailable: must be greater than or equal to 0'],
    },
    {
      name: 'a postRollout of "10" (no unit)',
      change: set('spec.analysis', { templates: [{ templateName: 'success-rate' }], postRollout: '10' }),
      errors: [
        "spec.analysis.postRollout: should match '^\\+?(0|(([0-9]+(\\.[0-9]*)?|\\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$'",
      ],
    },
    {
      name: 'onFailure Retry',
      change: set('spec.analysis', { templates: [{ templateName: 'success-rate' }], onFailure: 'Retry' }),
      errors: ['spec.analysis.onFailure: Unsupported value: "Retry"'],
    },
    {
      name: 'pod template without containers',
      change: set('spec.template.spec', {}),
      errors: ['spec.template.spec.containers: Required value'],
    },
  ];
  for (const row of rows) {
    it(`${row.name}${row.errors.length ? ' is refused' : ''}`, () => {
      const d = web();
      row.change(d);
      expect(admit(d)).to.deep.equal(row.errors);
    });
  }

  describe("the schema and Pacer's own validation agree on what is refused", () => {
    for (const row of rows) {
      it(row.name, () => {
        const d = web();
        row.change(d);
        const schemaRefuses = admit(d).length > 0;
        const pacerRefuses = validateDeployment(withDefaults(d)).map(formatFieldError);
        if (row.name === 'pod template without containers') return; // pod specs are opaque to Pacer
        expect(pacerRefuses.length > 0, pacerRefuses.join('; ')).to.equal(schemaRefuses);
      });
    }
  });

  describe('updates: the selector is immutable (transition rule)', () => {
    const updates: Array<{ name: string; change: Change; errors: string[] }> = [
      {
        name: 'replicas and template may change',
        change: (d) => {
          d.spec.replicas = 5;
          d.spec.template!.metadata!.labels!.v = '2';
        },
        errors: [],
      },
      {
        name: 'a selector change is refused',
        change: (d) => {
          d.spec.selector = { matchLabels: { app: 'web', v: '2' } };
          d.spec.template!.metadata!.labels!.v = '2';
        },
        errors: ['spec.selector: field is immutable'],
      },
    ];
    for (const row of updates) {
      it(row.name, () => {
        const d = web();
        row.change(d);
        expect(admit(d, web())).to.deep.equal(row.errors);
      });
    }

    it('the rule is skipped on create (no oldSelf)', () => {
      expect(admit(web())).to.deep.equal([]);
    });
  });
});

describe('examples/: every example is a valid pacer.dev Deployment', () => {
  const load = (name: string): Deployment =>
    parseYaml(readFileSync(fileURLToPath(new URL(`../../../examples/${name}`, import.meta.url)), 'utf8'));
  const rows: Array<{ file: string; check: (d: Deployment) => void }> = [
    {
      file: 'rolling-web.yaml',
      check: (d) => {
        expect(d.spec.replicas).to.equal(3);
        expect(d.spec.strategy?.type).to.equal('RollingUpdate');
        expect(d.spec.selector).to.deep.equal({ matchLabels: { app: 'web' } });
        expect(JSON.stringify(d.spec.template?.spec)).to.match(/"image":"nginx:/);
      },
    },
    { file: 'recreate-worker.yaml', check: (d) => expect(d.spec.strategy).to.deep.equal({ type: 'Recreate' }) },
    {
      file: 'minimum-health.yaml',
      check: (d) => {
        expect(d.spec.replicas).to.equal(10);
        expect(d.spec.strategy).to.deep.equal({
          type: 'MinimumHealth',
          minimumHealth: { minimumHealthCapacity: 0.6, maximumOverCapacity: 0.2 },
        });
      },
    },
    {
      file: 'failing/never-ready.yaml',
      check: (d) => {
        expect(d.spec.progressDeadlineSeconds).to.equal(30);
        expect(d.spec.template?.metadata?.annotations).to.deep.equal({ 'sim.pacer.dev/never-ready': 'true' });
      },
    },
  ];
  for (const { file, check } of rows) {
    it(file, () => {
      const d = load(file);
      expect(d.apiVersion).to.equal(API_VERSION);
      expect(d.kind).to.equal(KIND);
      expect(d.metadata.namespace, 'namespace is left to the user').to.equal(undefined);
      expect(admit(d), 'schema').to.deep.equal([]);
      expect(validateDeployment(withDefaults(d)).map(formatFieldError), 'Pacer validation').to.deep.equal([]);
      check(d);
    });
  }
});
