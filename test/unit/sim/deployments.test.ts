// apps/v1 Deployments in the simulated API server (src/sim/deployments.ts and the store's rules for
// them). Every expected message and default below is what kube-apiserver 1.36 answered to the same
// request on the real-control-plane bed (test/e2e/sim-kubectl.test.ts runs the kubectl side on both).

import { expect } from 'chai';
import {
  cannotDecode,
  decodeFailure,
  defaultDeploymentSpec,
  deploymentStatusCauses,
  pruneUnknownFields,
} from '../../../src/sim/deployments.ts';
import { BUILTIN_RESOURCES, REF } from '../../../src/sim/resources.ts';
import { toTable } from '../../../src/sim/schema/table.ts';
import { Store } from '../../../src/sim/store.ts';
import type { KubeObject } from '../../../src/sim/types.ts';
import { apiError } from './api-error.ts';

const T0 = Date.parse('2026-01-02T03:04:05.678Z');

function newStore(): Store {
  const s = new Store({ now: () => T0 });
  s.create(REF.namespaces, undefined, { metadata: { name: 'default' } });
  return s;
}

/** The minimal valid apps/v1 Deployment `name`, changed by `edit`. */
function deployment(name: string, edit: (d: any) => void = () => {}): KubeObject {
  const d: any = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: 'x' } },
      template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'app', image: 'nginx:1' }] } },
    },
  };
  edit(d);
  return d;
}

describe('sim/deployments: apps/v1 Deployments as kube-apiserver serves them', () => {
  describe('decodeFailure: a field of the wrong JSON type, as encoding/json names it (in the 400 of cannotDecode)', () => {
    const rows: Array<[string, unknown, string | undefined]> = [
      [
        'replicas a string',
        { spec: { replicas: '3' } },
        'string into Go struct field DeploymentSpec.spec.replicas of type int32',
      ],
      [
        'replicas 1.5',
        { spec: { replicas: 1.5 } },
        'number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32',
      ],
      [
        'paused a string',
        { spec: { paused: 'yes' } },
        'string into Go struct field DeploymentSpec.spec.paused of type bool',
      ],
      [
        'minReadySeconds a bool',
        { spec: { minReadySeconds: true } },
        'bool into Go struct field DeploymentSpec.spec.minReadySeconds of type int32',
      ],
      [
        'the first of two, in body order',
        { spec: { replicas: '3', revisionHistoryLimit: 'x' } },
        'string into Go struct field DeploymentSpec.spec.replicas of type int32',
      ],
      [
        'strategy.type a number',
        { spec: { strategy: { type: 5 } } },
        'number into Go struct field DeploymentStrategy.spec.strategy.type of type v1.DeploymentStrategyType',
      ],
      [
        'selector a string',
        { spec: { selector: 'x' } },
        'string into Go struct field DeploymentSpec.spec.selector of type v1.LabelSelector',
      ],
      ['null leaves the zero value', { spec: { replicas: null } }, undefined],
      ['a well-typed body', deployment('ok'), undefined],
    ];
    for (const [what, body, want] of rows) {
      it(what, () => {
        const reason = decodeFailure(body);
        const got = reason && cannotDecode(reason);
        if (want === undefined) expect(got).to.equal(undefined);
        else
          expect(got).to.equal(
            `Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal ${want}`,
          );
      });
    }
  });

  describe("pruneUnknownFields: apps/v1's fields kept, the rest dropped and named", () => {
    it("drops Pacer's spec.plan and an unknown selector requirement field, keeps the pod template as written", () => {
      const d = deployment('p', (x) => {
        x.spec.plan = { strategy: 'serial-canary' };
        x.spec.selector.matchExpressions = [{ key: 'k', operator: 'Exists', bogus: 1 }];
        x.spec.template.spec.anything = true;
        x.status = { replicas: 1, ready: 1 };
      });
      expect(pruneUnknownFields(d)).to.deep.equal([
        'spec.selector.matchExpressions[0].bogus',
        'spec.plan',
        'status.ready',
      ]);
      expect((d.spec as any).plan).to.equal(undefined);
      expect((d.spec as any).selector.matchExpressions).to.deep.equal([{ key: 'k', operator: 'Exists' }]);
      expect((d.spec as any).template.spec.anything).to.equal(true);
      expect(d.status).to.deep.equal({ replicas: 1 });
    });
  });

  describe("defaultDeploymentSpec: SetDefaults_Deployment's values", () => {
    const rows: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
      [
        'nothing given',
        {},
        {
          replicas: 1,
          strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
          revisionHistoryLimit: 10,
          progressDeadlineSeconds: 600,
        },
      ],
      [
        'Recreate gets no rollingUpdate',
        { strategy: { type: 'Recreate' }, replicas: 0 },
        { replicas: 0, strategy: { type: 'Recreate' }, revisionHistoryLimit: 10, progressDeadlineSeconds: 600 },
      ],
      [
        'an empty type and one of the two parameters',
        { strategy: { type: '', rollingUpdate: { maxSurge: 2 } }, revisionHistoryLimit: 0 },
        {
          replicas: 1,
          strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 2, maxUnavailable: '25%' } },
          revisionHistoryLimit: 0,
          progressDeadlineSeconds: 600,
        },
      ],
    ];
    for (const [what, spec, want] of rows) {
      it(what, () => {
        defaultDeploymentSpec(spec);
        expect(spec).to.deep.equal(want);
      });
    }
  });

  describe('the store: create', () => {
    it("fills apps/v1's defaults and the pod template's, starts status empty and generation at 1", () => {
      const s = newStore();
      const d = s.create(
        REF.deployments,
        'default',
        deployment('d1', (x) => (x.status = { replicas: 5 })),
      );
      expect(d.metadata.generation).to.equal(1);
      expect(d.status).to.deep.equal({});
      expect(d.spec).to.deep.equal({
        progressDeadlineSeconds: 600,
        replicas: 1,
        revisionHistoryLimit: 10,
        selector: { matchLabels: { app: 'x' } },
        strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' }, type: 'RollingUpdate' },
        template: {
          metadata: { labels: { app: 'x' } },
          spec: {
            containers: [
              {
                image: 'nginx:1',
                imagePullPolicy: 'IfNotPresent',
                name: 'app',
                resources: {},
                terminationMessagePath: '/dev/termination-log',
                terminationMessagePolicy: 'File',
              },
            ],
            dnsPolicy: 'ClusterFirst',
            restartPolicy: 'Always',
            schedulerName: 'default-scheduler',
            securityContext: {},
            terminationGracePeriodSeconds: 30,
          },
        },
      });
    });

    const invalid: Array<[string, (d: any) => void, string, string[]]> = [
      [
        'several',
        (d) => {
          d.spec.replicas = -2;
          d.spec.revisionHistoryLimit = -1;
          d.spec.strategy = { type: 'Recreate', rollingUpdate: {} };
        },
        "[spec.replicas: Invalid value: -2: must be greater than or equal to 0, spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate', spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0]",
        ['FieldValueInvalid', 'FieldValueForbidden', 'FieldValueInvalid'],
      ],
      [
        'minhealth',
        (d) => (d.spec.strategy = { type: 'MinimumHealth' }),
        'spec.strategy: Unsupported value: {"Type":"MinimumHealth","RollingUpdate":null}: supported values: "Recreate", "RollingUpdate"',
        ['FieldValueNotSupported'],
      ],
      [
        'no-template',
        (d) => delete d.spec.template,
        '[spec.template.metadata.labels: Invalid value: null: `selector` does not match template `labels`, spec.template.spec.containers: Required value]',
        ['FieldValueInvalid', 'FieldValueRequired'],
      ],
      [
        'no-selector',
        (d) => delete d.spec.selector,
        '[spec.selector: Required value, spec.template.metadata.labels: Invalid value: {"app":"x"}: `selector` does not match template `labels`]',
        ['FieldValueRequired', 'FieldValueInvalid'],
      ],
      [
        'no-image',
        (d) => (d.spec.template.spec.containers = [{ name: 'app' }]),
        'spec.template.spec.containers[0].image: Required value',
        ['FieldValueRequired'],
      ],
      [
        'containers',
        (d) =>
          (d.spec.template.spec.containers = [
            { name: 'a', image: 'x' },
            { name: 'a', image: 'y' },
          ]),
        'spec.template.spec.containers[1].name: Duplicate value: "a"',
        ['FieldValueDuplicate'],
      ],
      [
        'zero-zero',
        (d) => (d.spec.strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } }),
        'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0',
        ['FieldValueInvalid'],
      ],
      [
        'restart-never',
        (d) => (d.spec.template.spec.restartPolicy = 'Never'),
        'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
        ['FieldValueNotSupported'],
      ],
      [
        'pds',
        (d) => {
          d.spec.progressDeadlineSeconds = 10;
          d.spec.minReadySeconds = 10;
        },
        'spec.progressDeadlineSeconds: Invalid value: 10: must be greater than minReadySeconds',
        ['FieldValueInvalid'],
      ],
    ];
    for (const [name, edit, message, reasons] of invalid) {
      it(`422 ${name}: ${message.slice(0, 60)}…`, () => {
        const e = apiError(() => newStore().create(REF.deployments, 'default', deployment(name, edit)));
        expect([e.code, e.reason, e.message]).to.deep.equal([
          422,
          'Invalid',
          `Deployment.apps "${name}" is invalid: ${message}`,
        ]);
        expect(e.details?.kind).to.equal('Deployment');
        expect(e.details?.group).to.equal('apps');
        expect(e.details?.causes?.map((c) => c.reason)).to.deep.equal(reasons);
      });
    }

    it('400 for a field of the wrong type', () => {
      const e = apiError(() =>
        newStore().create(
          REF.deployments,
          'default',
          deployment('t', (d) => (d.spec.replicas = '3')),
        ),
      );
      expect([e.code, e.reason, e.message]).to.deep.equal([
        400,
        'BadRequest',
        'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
      ]);
    });

    it('spec.plan: refused with Strict, a warning with Warn, dropped silently otherwise', () => {
      const withPlan = () => deployment('plan', (d) => (d.spec.plan = { strategy: 'serial-canary' }));
      const e = apiError(() =>
        newStore().create(REF.deployments, 'default', withPlan(), { fieldValidation: 'Strict' }),
      );
      expect([e.code, e.message]).to.deep.equal([
        400,
        'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.plan"',
      ]);
      const warnings: string[] = [];
      const warned = newStore().create(REF.deployments, 'default', withPlan(), { fieldValidation: 'Warn', warnings });
      expect(warnings).to.deep.equal(['unknown field "spec.plan"']);
      expect((warned.spec as any).plan).to.equal(undefined);
      const ignored = newStore().create(REF.deployments, 'default', withPlan(), { fieldValidation: 'Ignore' });
      expect((ignored.spec as any).plan).to.equal(undefined);
    });
  });

  describe('the store: updates, status and scale', () => {
    it('generation: bumped by spec and annotation changes, not by labels or status', () => {
      const s = newStore();
      s.create(REF.deployments, 'default', deployment('g'));
      const gen = () => s.get(REF.deployments, 'default', 'g')!.metadata.generation;
      s.patch(REF.deployments, 'default', 'g', 'merge', { metadata: { labels: { l: '1' } } });
      expect(gen()).to.equal(1);
      s.patch(REF.deployments, 'default', 'g', 'merge', { metadata: { annotations: { a: 'b' } } });
      expect(gen()).to.equal(2);
      s.patch(REF.deployments, 'default', 'g', 'strategic', {
        spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:2' }] } } },
      });
      expect(gen()).to.equal(3);
      const c = (s.get(REF.deployments, 'default', 'g')!.spec as any).template.spec.containers;
      expect(c).to.have.length(1);
      expect(c[0]).to.include({ image: 'nginx:2', imagePullPolicy: 'IfNotPresent' });
      // status on the main resource is ignored
      s.patch(REF.deployments, 'default', 'g', 'merge', { status: { observedGeneration: 99 } });
      expect(s.get(REF.deployments, 'default', 'g')!.status).to.deep.equal({});
      expect(gen()).to.equal(3);
    });

    it('the status subresource takes status and annotations; spec and labels stay; no generation bump', () => {
      const s = newStore();
      s.create(
        REF.deployments,
        'default',
        deployment('st', (d) => (d.metadata.labels = { l: '1' })),
      );
      const out = s.patch(
        REF.deployments,
        'default',
        'st',
        'merge',
        {
          metadata: { annotations: { 'deployment.kubernetes.io/revision': '1' }, labels: { l2: 'y' } },
          spec: { replicas: 5 },
          status: { replicas: 9, observedGeneration: 1 },
        },
        { subresource: 'status' },
      );
      expect(out.metadata.annotations).to.deep.equal({ 'deployment.kubernetes.io/revision': '1' });
      expect(out.metadata.labels).to.deep.equal({ l: '1' });
      expect((out.spec as any).replicas).to.equal(1);
      expect(out.status).to.deep.equal({ replicas: 9, observedGeneration: 1 });
      expect(out.metadata.generation).to.equal(1);
    });

    describe('deprecated.deployment.rollback.to: spec.rollbackTo in disguise (as kube-apiserver 1.36 answered)', () => {
      const KEY = 'deprecated.deployment.rollback.to';
      const annotated = (value: string) => ({ metadata: { annotations: { keep: '1', [KEY]: value } } });
      const rows: Array<[what: string, value: string, stored: Record<string, string>, generation: number]> = [
        ['a number is kept and is a change of the spec', '0', { keep: '1', [KEY]: '0' }, 2],
        ['a sign or leading zeros are stored as the number', '+07', { keep: '1', [KEY]: '7' }, 2],
        ['an empty value is no rollback: dropped', '', { keep: '1' }, 2],
      ];
      for (const [what, value, stored, generation] of rows)
        it(`${what}: ${JSON.stringify(value)}`, () => {
          const s = newStore();
          s.create(REF.deployments, 'default', deployment('rb'));
          const out = s.patch(REF.deployments, 'default', 'rb', 'merge', annotated(value));
          expect([out.metadata.annotations, out.metadata.generation]).to.deep.equal([stored, generation]);
        });

      it('on create too', () => {
        const out = newStore().create(
          REF.deployments,
          'default',
          deployment('rbc', (d) => (d.metadata.annotations = { [KEY]: '-0' })),
        );
        expect(out.metadata.annotations).to.deep.equal({ [KEY]: '0' });
      });

      it('a value that is not an int64: 400 on a PUT, 422 on the field "patch" for a patch', () => {
        const s = newStore();
        const d = s.create(REF.deployments, 'default', deployment('bad'));
        const put = apiError(() =>
          s.update(REF.deployments, 'default', 'bad', {
            ...d,
            metadata: { ...d.metadata, annotations: { [KEY]: 'x' } },
          }),
        );
        expect([put.code, put.reason, put.message]).to.deep.equal([
          400,
          'BadRequest',
          'Deployment in version "v1" cannot be handled as a Deployment: failed to parse annotation[deprecated.deployment.rollback.to]=x as int64: strconv.ParseInt: parsing "x": invalid syntax',
        ]);
        const patch = apiError(() =>
          s.patch(REF.deployments, 'default', 'bad', 'merge', annotated('99999999999999999999')),
        );
        expect([patch.code, patch.reason, patch.details?.causes?.[0]?.field]).to.deep.equal([422, 'Invalid', 'patch']);
        expect(patch.message).to.match(/^ "" is invalid: patch: Invalid value: "\{\\"apiVersion\\":\\"apps\/v1\\",/);
        expect(patch.message).to.match(
          /": failed to parse annotation\[deprecated\.deployment\.rollback\.to\]=99999999999999999999 as int64: strconv\.ParseInt: parsing "99999999999999999999": value out of range$/,
        );
        expect(s.get(REF.deployments, 'default', 'bad')!.metadata.annotations).to.equal(undefined);
      });

      it('a /status write can neither remove, change nor set it (the status strategy keeps the spec)', () => {
        const s = newStore();
        s.create(REF.deployments, 'default', deployment('st'));
        s.patch(REF.deployments, 'default', 'st', 'merge', annotated('0'));
        const viaStatus = (annotations: Record<string, string>) => {
          const cur = s.get(REF.deployments, 'default', 'st')!;
          return s.update(
            REF.deployments,
            'default',
            'st',
            { ...cur, metadata: { ...cur.metadata, annotations } },
            {
              subresource: 'status',
            },
          );
        };
        // Other annotations go as the body says: this one stays.
        expect(viaStatus({ bar: '2' }).metadata.annotations).to.deep.equal({ bar: '2', [KEY]: '0' });
        expect(viaStatus({ [KEY]: '3' }).metadata.annotations).to.deep.equal({ [KEY]: '0' });
        s.patch(REF.deployments, 'default', 'st', 'merge', { metadata: { annotations: { [KEY]: null } } });
        expect(viaStatus({ [KEY]: '3' }).metadata.annotations).to.equal(undefined);
        // The body's value is still decoded.
        const e = apiError(() => viaStatus({ [KEY]: 'x' }));
        expect([e.code, e.message]).to.deep.equal([
          400,
          'Deployment in version "v1" cannot be handled as a Deployment: failed to parse annotation[deprecated.deployment.rollback.to]=x as int64: strconv.ParseInt: parsing "x": invalid syntax',
        ]);
        expect(s.get(REF.deployments, 'default', 'st')!.metadata.generation).to.equal(3);
      });
    });

    it("a status write is validated with ValidateDeploymentStatus's messages", () => {
      const s = newStore();
      s.create(REF.deployments, 'default', deployment('sv'));
      const e = apiError(() =>
        s.patch(
          REF.deployments,
          'default',
          'sv',
          'merge',
          { status: { replicas: 5, readyReplicas: 2, availableReplicas: 3 } },
          { subresource: 'status' },
        ),
      );
      expect([e.code, e.message]).to.deep.equal([
        422,
        'Deployment.apps "sv" is invalid: status.availableReplicas: Invalid value: 3: cannot be greater than readyReplicas',
      ]);
    });

    it('deploymentStatusCauses: every rule, in upstream order', () => {
      const causes = deploymentStatusCauses({
        replicas: 1,
        updatedReplicas: 3,
        readyReplicas: 2,
        availableReplicas: 3,
        observedGeneration: -1,
        collisionCount: -2,
        unavailableReplicas: -1,
      });
      expect(causes.map((c) => `${c.field}: ${c.message}`)).to.deep.equal([
        'status.observedGeneration: Invalid value: -1: must be greater than or equal to 0',
        'status.unavailableReplicas: Invalid value: -1: must be greater than or equal to 0',
        'status.collisionCount: Invalid value: -2: must be greater than or equal to 0',
        'status.updatedReplicas: Invalid value: 3: cannot be greater than status.replicas',
        'status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas',
        'status.availableReplicas: Invalid value: 3: cannot be greater than status.replicas',
        'status.availableReplicas: Invalid value: 3: cannot be greater than readyReplicas',
      ]);
    });

    it('the selector is immutable', () => {
      const s = newStore();
      s.create(REF.deployments, 'default', deployment('im'));
      const e = apiError(() =>
        s.patch(REF.deployments, 'default', 'im', 'merge', {
          spec: {
            selector: { matchLabels: { app: 'x', x: 'y' } },
            template: { metadata: { labels: { x: 'y' } } },
          },
        }),
      );
      expect(e.message).to.equal(
        'Deployment.apps "im" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"x","x":"y"}}: field is immutable',
      );
    });

    it('defaults apply on update too: a PUT without strategy gets RollingUpdate 25%/25%', () => {
      const s = newStore();
      const d = s.create(REF.deployments, 'default', deployment('put'));
      delete (d.spec as any).strategy;
      const out = s.update(REF.deployments, 'default', 'put', d);
      expect((out.spec as any).strategy).to.deep.equal({
        type: 'RollingUpdate',
        rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' },
      });
      expect(out.metadata.generation).to.equal(1);
    });

    it('scale: an autoscaling/v1 Scale with the selector; writing it sets spec.replicas and bumps the generation', () => {
      const s = newStore();
      s.create(REF.deployments, 'default', deployment('sc'));
      expect(s.getScale(REF.deployments, 'default', 'sc')).to.deep.include({
        spec: { replicas: 1 },
        status: { replicas: 0, selector: 'app=x' },
      });
      const out = s.patchScale(REF.deployments, 'default', 'sc', 'merge', { spec: { replicas: 3 } });
      expect(out.spec).to.deep.equal({ replicas: 3 });
      const d = s.get(REF.deployments, 'default', 'sc')!;
      expect([(d.spec as any).replicas, d.metadata.generation]).to.deep.equal([3, 2]);
    });
  });

  describe('discovery and Table', () => {
    const info = BUILTIN_RESOURCES.find((r) => r.group === 'apps' && r.resource === 'deployments')!;
    it("is listed as kube-apiserver lists it: deploy, in 'all', with status and scale", () => {
      expect([info.kind, info.shortNames, info.categories, [...info.subresources].sort(), info.verbs]).to.deep.equal([
        'Deployment',
        ['deploy'],
        ['all'],
        ['scale', 'status'],
        ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      ]);
    });

    it('the Table: NAME, READY, UP-TO-DATE, AVAILABLE, AGE; wide adds CONTAINERS, IMAGES, SELECTOR', () => {
      const s = newStore();
      s.create(
        REF.deployments,
        'default',
        deployment('t', (d) => (d.spec.replicas = 3)),
      );
      s.patch(
        REF.deployments,
        'default',
        't',
        'merge',
        { status: { replicas: 3, readyReplicas: 2, updatedReplicas: 3, availableReplicas: 1 } },
        { subresource: 'status' },
      );
      const t = toTable(info, [s.get(REF.deployments, 'default', 't')!], { now: T0 + 90_000 }) as any;
      expect(t.columnDefinitions.map((c: any) => `${c.name}:${c.type}:${c.priority}`)).to.deep.equal([
        'Name:string:0',
        'Ready:string:0',
        'Up-to-date:string:0',
        'Available:string:0',
        'Age:string:0',
        'Containers:string:1',
        'Images:string:1',
        'Selector:string:1',
      ]);
      expect(t.rows[0].cells).to.deep.equal(['t', '2/3', 3, 1, '90s', 'app', 'nginx:1', 'app=x']);
    });
  });
});
