import { expect } from 'chai';
import type { KubeObject } from '../../../../src/sim/types.ts';
import { BUILTIN_RESOURCES } from '../../../../src/sim/resources.ts';
import type { ResourceInfo } from '../../../../src/sim/resources.ts';
import { compileCRD, defaultCRD, resourceInfoFor } from '../../../../src/sim/schema/crd.ts';
import { humanDuration } from '../../../../src/api/duration.ts';
import { findResults } from '../../../../src/sim/schema/jsonpath.ts';
import { formatLabelSelector, toTable } from '../../../../src/sim/schema/table.ts';
import { widget, widgetCRD } from './fixtures.ts';

const info = (kind: string): ResourceInfo => BUILTIN_RESOURCES.find((r) => r.kind === kind)!;
const NOW = Date.parse('2024-06-01T12:00:00Z');
const ago = (ms: number): string => new Date(NOW - ms).toISOString();
const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

function table(kind: ResourceInfo, objs: KubeObject[], extra: Record<string, unknown> = {}): any {
  return toTable(kind, objs, { now: NOW, ...extra });
}

describe('sim/schema/table', () => {
  describe('humanDuration (kubectl Age)', () => {
    const rows: Array<[number, string]> = [
      [-5 * S, '<invalid>'],
      [-500, '0s'],
      [0, '0s'],
      [5 * S, '5s'],
      [119 * S, '119s'],
      [2 * M, '2m'],
      [3 * M + 2 * S, '3m2s'],
      [9 * M + 59 * S, '9m59s'],
      [10 * M + 30 * S, '10m'],
      [179 * M, '179m'],
      [3 * H, '3h'],
      [3 * H + 2 * M, '3h2m'],
      [8 * H + 30 * M, '8h'],
      [47 * H, '47h'],
      [2 * D, '2d'],
      [2 * D + 3 * H, '2d3h'],
      [8 * D, '8d'],
      [45 * D, '45d'],
      [729 * D, '729d'],
      [2 * 365 * D + 3 * D, '2y3d'],
      [3 * 365 * D, '3y'],
      [9 * 365 * D, '9y'],
    ];
    for (const [ms, want] of rows) it(`${ms} ms → ${want}`, () => expect(humanDuration(ms)).to.equal(want));
  });

  describe('JSONPath subset', () => {
    const doc = {
      spec: { replicas: 2, 'a.b': 'dotted', list: [{ n: 1 }, { n: 2 }] },
      status: {
        conditions: [
          { type: 'Ready', status: 'True' },
          { type: 'X', status: 'False' },
        ],
      },
    };
    const rows: Array<[string, unknown[]]> = [
      ['.spec.replicas', [2]],
      ['.spec.missing', []],
      ['.spec.list[1].n', [2]],
      ['.spec.list[*].n', [1, 2]],
      ["['spec']['a.b']", ['dotted']],
      ['.status.conditions[?(@.type=="Ready")].status', ['True']],
      ['.status.conditions[?(@.type=="Nope")].status', []],
      ['{.spec.replicas}', [2]],
    ];
    for (const [path, want] of rows) it(path, () => expect(findResults(doc, path)).to.deep.equal(want));
  });

  it('formats label selectors like metav1.FormatLabelSelector', () => {
    expect(
      formatLabelSelector({
        matchLabels: { tier: 'web', app: 'x' },
        matchExpressions: [{ key: 'env', operator: 'In', values: ['b', 'a'] }],
      }),
    ).to.equal('app=x,env in (a,b),tier=web');
    expect(formatLabelSelector({})).to.equal('<none>');
  });

  describe('built-in printers', () => {
    const pod = (status: Record<string, unknown>, meta: Record<string, unknown> = {}): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p1', namespace: 'default', creationTimestamp: ago(5 * M), ...meta },
      spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'nginx' }] },
      status,
    });
    const running = {
      phase: 'Running',
      podIP: '10.0.0.1',
      containerStatuses: [{ name: 'c', ready: true, restartCount: 0, state: { running: {} } }],
    };

    it('prints a ready Pod row with wide cells', () => {
      const t = table(info('Pod'), [pod(running)]);
      expect(t.columnDefinitions.map((c: any) => c.name)).to.deep.equal([
        'Name',
        'Ready',
        'Status',
        'Restarts',
        'Age',
        'IP',
        'Node',
        'Nominated Node',
        'Readiness Gates',
      ]);
      expect(t.columnDefinitions.map((c: any) => c.priority)).to.deep.equal([0, 0, 0, 0, 0, 1, 1, 1, 1]);
      expect(t.rows[0].cells).to.deep.equal([
        'p1',
        '1/1',
        'Running',
        '0',
        '5m',
        '10.0.0.1',
        'node-1',
        '<none>',
        '<none>',
      ]);
      expect(t.rows[0].object).to.deep.equal({
        kind: 'PartialObjectMetadata',
        apiVersion: 'meta.k8s.io/v1',
        metadata: pod(running).metadata,
      });
    });
    const statusRows: Array<[string, KubeObject, string, string]> = [
      ['pending', pod({ phase: 'Pending' }), '0/1', 'Pending'],
      [
        'crash loop',
        pod({
          phase: 'Running',
          containerStatuses: [
            {
              name: 'c',
              ready: false,
              restartCount: 4,
              state: { waiting: { reason: 'CrashLoopBackOff' } },
              lastState: { terminated: { exitCode: 1, finishedAt: ago(2 * M) } },
            },
          ],
        }),
        '0/1',
        'CrashLoopBackOff',
      ],
      ['terminating', pod(running, { deletionTimestamp: ago(1 * S) }), '1/1', 'Terminating'],
      [
        'exit code',
        pod({
          phase: 'Failed',
          containerStatuses: [{ name: 'c', ready: false, state: { terminated: { exitCode: 2 } } }],
        }),
        '0/1',
        'ExitCode:2',
      ],
      [
        'init',
        pod({
          phase: 'Pending',
          initContainerStatuses: [{ name: 'i', state: { waiting: { reason: 'PodInitializing' } } }],
        }),
        '0/1',
        'Init:0/0',
      ],
    ];
    for (const [title, p, ready, status] of statusRows) {
      it(`Pod status: ${title}`, () => {
        const cells = table(info('Pod'), [p]).rows[0].cells;
        expect([cells[1], cells[2]]).to.deep.equal([ready, status]);
      });
    }
    it('Pod restarts show when the last one happened', () => {
      const p = statusRows[1]![1];
      expect(table(info('Pod'), [p]).rows[0].cells[3]).to.equal('4 (2m ago)');
    });

    it('prints a ReplicaSet row', () => {
      const rs: KubeObject = {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: { name: 'web-abc', creationTimestamp: ago(3 * H + 2 * M) },
        spec: {
          replicas: 3,
          selector: { matchLabels: { app: 'web' } },
          template: {
            spec: {
              containers: [
                { name: 'c', image: 'nginx:2' },
                { name: 's', image: 'envoy' },
              ],
            },
          },
        },
        status: { replicas: 3, readyReplicas: 2 },
      };
      const t = table(info('ReplicaSet'), [rs]);
      expect(t.columnDefinitions.map((c: any) => [c.name, c.type])).to.deep.equal([
        ['Name', 'string'],
        ['Desired', 'integer'],
        ['Current', 'integer'],
        ['Ready', 'integer'],
        ['Age', 'string'],
        ['Containers', 'string'],
        ['Images', 'string'],
        ['Selector', 'string'],
      ]);
      expect(t.rows[0].cells).to.deep.equal(['web-abc', 3, 3, 2, '3h2m', 'c,s', 'nginx:2,envoy', 'app=web']);
    });

    it('prints Node status, roles and cordoning', () => {
      const node: KubeObject = {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: {
          name: 'n1',
          creationTimestamp: ago(2 * D + 3 * H),
          labels: { 'node-role.kubernetes.io/worker': '' },
        },
        spec: { unschedulable: true },
        status: {
          conditions: [{ type: 'Ready', status: 'True' }],
          nodeInfo: { kubeletVersion: 'v1.32.0' },
          addresses: [{ type: 'InternalIP', address: '10.1.0.1' }],
        },
      };
      expect(table(info('Node'), [node]).rows[0].cells.slice(0, 7)).to.deep.equal([
        'n1',
        'Ready,SchedulingDisabled',
        'worker',
        '2d3h',
        'v1.32.0',
        '10.1.0.1',
        '<none>',
      ]);
      (node.status as any).conditions[0].status = 'False';
      (node.spec as any).unschedulable = false;
      expect(table(info('Node'), [node]).rows[0].cells[1]).to.equal('NotReady');
    });

    it('prints PDB, Lease, Namespace and Event rows', () => {
      const pdb: KubeObject = {
        kind: 'PodDisruptionBudget',
        metadata: { name: 'pdb', creationTimestamp: ago(5 * S) },
        spec: { minAvailable: '50%' },
        status: { disruptionsAllowed: 1 },
      };
      expect(table(info('PodDisruptionBudget'), [pdb]).rows[0].cells).to.deep.equal(['pdb', '50%', 'N/A', 1, '5s']);
      const lease: KubeObject = {
        kind: 'Lease',
        metadata: { name: 'l', creationTimestamp: ago(5 * S) },
        spec: { holderIdentity: 'pacer-1' },
      };
      expect(table(info('Lease'), [lease]).rows[0].cells).to.deep.equal(['l', 'pacer-1', '5s']);
      const ns: KubeObject = {
        kind: 'Namespace',
        metadata: { name: 'default', creationTimestamp: ago(45 * D) },
        status: { phase: 'Active' },
      };
      expect(table(info('Namespace'), [ns]).rows[0].cells).to.deep.equal(['default', 'Active', '45d']);
      const ev: KubeObject = {
        kind: 'Event',
        metadata: { name: 'e1' },
        involvedObject: { kind: 'ReplicaSet', name: 'web' },
        reason: 'SuccessfulCreate',
        type: 'Normal',
        message: 'Created pod: web-1 ',
        firstTimestamp: ago(10 * M),
        lastTimestamp: ago(1 * M),
        count: 3,
        source: { component: 'replicaset-controller' },
      };
      expect(table(info('Event'), [ev]).rows[0].cells).to.deep.equal([
        '60s',
        'Normal',
        'SuccessfulCreate',
        'replicaset/web',
        '',
        'replicaset-controller',
        'Created pod: web-1',
        '10m',
        3,
        'e1',
      ]);
    });

    it('prints CRDs with Created At in RFC 3339', () => {
      const t = table(info('CustomResourceDefinition'), [
        {
          kind: 'CustomResourceDefinition',
          metadata: { name: 'widgets.example.com', creationTimestamp: '2024-01-02T03:04:05Z' },
        },
      ]);
      expect(t.columnDefinitions[1]).to.include({ name: 'Created At', type: 'date' });
      expect(t.rows[0].cells).to.deep.equal(['widgets.example.com', '2024-01-02T03:04:05Z']);
    });
  });

  describe('custom resources', () => {
    const compiled = compileCRD(defaultCRD(widgetCRD()));
    const version = compiled.versions[0]!;
    const crInfo = resourceInfoFor(compiled, version);

    it('uses the printer columns in order, coerced, with a date as an age and a missing value as null', () => {
      const w = widget({ replicas: 2, size: 'small' });
      w.metadata.creationTimestamp = ago(3 * M + 2 * S);
      w.status = { conditions: [{ type: 'Ready', status: 'True' }] };
      const t = table(crInfo, [w], { version });
      expect(t.columnDefinitions.map((c: any) => [c.name, c.type, c.priority])).to.deep.equal([
        ['Name', 'string', 0],
        ['Replicas', 'integer', 0],
        ['Ready', 'string', 0],
        ['Mode', 'string', 1],
        ['Age', 'date', 0],
      ]);
      expect(t.columnDefinitions[1].description).to.equal(
        'Custom resource definition column (in JSONPath format): .spec.replicas',
      );
      expect(t.rows[0].cells).to.deep.equal(['w1', 2, 'True', null, '3m2s']);
    });
    it('falls back to a single Age column when none are given', () => {
      const crd = widgetCRD() as any;
      delete crd.spec.versions[0].additionalPrinterColumns;
      const v = compileCRD(defaultCRD(crd)).versions[0]!;
      const w = widget({});
      w.metadata.creationTimestamp = ago(5 * S);
      const t = table(crInfo, [w], { version: v });
      expect(t.columnDefinitions.map((c: any) => [c.name, c.type])).to.deep.equal([
        ['Name', 'string'],
        ['Age', 'date'],
      ]);
      expect(t.rows[0].cells).to.deep.equal(['w1', '5s']);
    });
    it('prints <invalid> for an unparseable date', () => {
      const crd = widgetCRD() as any;
      crd.spec.versions[0].additionalPrinterColumns = [{ name: 'When', type: 'date', jsonPath: '.spec.when' }];
      const v = compileCRD(defaultCRD(crd)).versions[0]!;
      expect(table(crInfo, [widget({ when: 'soon' })], { version: v }).rows[0].cells).to.deep.equal([
        'w1',
        '<invalid>',
      ]);
    });
    it('honours includeObject, noHeaders and list metadata', () => {
      const w = widget({ replicas: 1 });
      const full = table(crInfo, [w], {
        version,
        includeObject: 'Object',
        noHeaders: true,
        resourceVersion: '104',
        continue: 'abc',
      });
      expect(full).to.not.have.property('columnDefinitions');
      expect(full.rows[0].object).to.deep.equal(w);
      expect(full.metadata).to.deep.equal({ resourceVersion: '104', continue: 'abc' });
      expect(table(crInfo, [w], { version, includeObject: 'None' }).rows[0]).to.not.have.property('object');
    });
  });
});
