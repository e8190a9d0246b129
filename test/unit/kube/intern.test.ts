// The caches hold equal strings and equal parts once (src/kube/intern.ts), and keep exactly what
// they kept before (src/kube/slim.ts cacheKeep is deep-equal to cacheTransform).

import { expect } from 'chai';
import { isDeepStrictEqual } from 'node:util';
import { Interner } from '../../../src/kube/intern.ts';
import { cacheKeep, cacheTransform } from '../../../src/kube/slim.ts';

const PODS = { group: '', plural: 'pods' };
const REPLICASETS = { group: 'apps', plural: 'replicasets' };
const DEPLOYMENTS = { group: 'pacer.dev', plural: 'deployments' };
const APPS_DEPLOYMENTS = { group: 'apps', plural: 'deployments' };
const NODES = { group: '', plural: 'nodes' };

const template = (hash?: string) => ({
  metadata: { labels: { app: 'web', ...(hash ? { 'pod-template-hash': hash } : {}) } },
  spec: { containers: [{ name: 'web', image: 'nginx:1' }] },
});

/** A pod of ReplicaSet web-abc as the simulated cluster sends it (JSON-parsed: nothing shared). */
const pod = (n: number) =>
  JSON.parse(
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `web-abc-${n}`,
        generateName: 'web-abc-',
        namespace: 'shop',
        uid: `pod-${n}`,
        resourceVersion: `${100 + n}`,
        creationTimestamp: '2026-11-27T11:00:14Z',
        labels: { app: 'web', 'pod-template-hash': 'abc' },
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-abc', uid: 'rs-1', controller: true },
        ],
        managedFields: [{ manager: 'kubelet' }],
      },
      spec: { nodeName: 'node-1', containers: [{ name: 'web', image: 'nginx:1', imagePullPolicy: 'Always' }] },
      status: {
        phase: 'Running',
        podIP: `10.0.0.${n}`,
        conditions: [
          { type: 'Initialized', status: 'True', lastTransitionTime: '2026-11-27T11:00:14Z' },
          { type: 'Ready', status: 'True', lastTransitionTime: '2026-11-27T11:00:15Z' },
        ],
        containerStatuses: [
          {
            name: 'web',
            ready: true,
            restartCount: 0,
            imageID: 'sha256:x',
            state: { running: { startedAt: `2026-11-27T11:00:1${n}Z` } },
            lastState: {},
          },
        ],
      },
    }),
  );

const replicaSet = (name: string, hash: string) =>
  JSON.parse(
    JSON.stringify({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name,
        namespace: 'shop',
        uid: `uid-${name}`,
        resourceVersion: '7',
        labels: { app: 'web', 'pod-template-hash': hash },
        annotations: { 'pacer.dev/revision': '1' },
        ownerReferences: [{ apiVersion: 'pacer.dev/v1alpha1', kind: 'Deployment', name: 'web', uid: 'd-1' }],
        managedFields: [{ manager: 'pacer' }],
      },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web', 'pod-template-hash': hash } },
        template: template(hash),
      },
      status: { replicas: 3, availableReplicas: 3 },
    }),
  );

const deployment = (apiVersion: string) =>
  JSON.parse(
    JSON.stringify({
      apiVersion,
      kind: 'Deployment',
      metadata: {
        name: 'web',
        namespace: 'shop',
        uid: 'd-1',
        resourceVersion: '9',
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"kind":"Deployment"}' },
        managedFields: [{ manager: 'kube-controller-manager', subresource: 'status', operation: 'Update', time: 't' }],
      },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        template: template(),
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%' } },
      },
      status: { conditions: [{ type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' }] },
    }),
  );

describe('kube/intern: the caches hold equal strings and parts once', () => {
  describe('cacheKeep keeps what cacheTransform keeps', () => {
    const rows: Array<[string, { group: string; plural: string }, () => unknown]> = [
      ['a running pod (only its Ready condition)', PODS, () => pod(1)],
      ['a pod without spec or status (a DELETED event may carry it)', PODS, () => ({ metadata: { name: 'p' } })],
      ['a ReplicaSet', REPLICASETS, () => replicaSet('web-abc', 'abc')],
      [
        'a pacer.dev Deployment (its last-applied annotation kept)',
        DEPLOYMENTS,
        () => deployment('pacer.dev/v1alpha1'),
      ],
      ['an apps/v1 Deployment (its status writers kept)', APPS_DEPLOYMENTS, () => deployment('apps/v1')],
      ['a Node', NODES, () => ({ metadata: { name: 'n1', labels: { zone: 'a' } }, spec: { unschedulable: true } })],
    ];
    for (const [what, type, make] of rows)
      it(what, () => {
        const kept = cacheKeep(type)(make());
        expect(kept).to.deep.equal(cacheTransform(type)(make()));
        // Plain objects to every reader: node:util's strict comparison also checks each prototype
        // (the parts are made by constructors of their own, for their size: kube/intern.ts).
        expect(isDeepStrictEqual(kept, cacheTransform(type)(make())), 'isDeepStrictEqual').to.equal(true);
      });
  });

  it('two pods of one ReplicaSet share their labels, owners and containers; each keeps its own states', () => {
    const keep = cacheKeep(PODS);
    const [a, b] = [keep(pod(1)), keep(pod(2))];
    expect(a.metadata.labels).to.equal(b.metadata.labels);
    expect(a.metadata.ownerReferences).to.equal(b.metadata.ownerReferences);
    expect(a.spec.containers).to.equal(b.spec.containers);
    expect(a.status.containerStatuses[0].lastState).to.equal(b.status.containerStatuses[0].lastState);
    expect(a.status.containerStatuses[0].state).to.not.equal(b.status.containerStatuses[0].state);
    expect(a.status.conditions.map((c: { type: string }) => c.type)).to.deep.equal(['Ready']);
  });

  it("a ReplicaSet and its Deployment share the template's spec; two revisions' ReplicaSets their owner", () => {
    const [rs1, rs2] = [
      cacheKeep(REPLICASETS)(replicaSet('web-abc', 'abc')),
      cacheKeep(REPLICASETS)(replicaSet('web-def', 'def')),
    ];
    const d = cacheKeep(DEPLOYMENTS)(deployment('pacer.dev/v1alpha1'));
    expect(rs1.spec.template.spec).to.equal(d.spec.template.spec);
    expect(rs1.metadata.ownerReferences).to.equal(rs2.metadata.ownerReferences);
    expect(rs1.spec.selector).to.not.equal(rs2.spec.selector);
  });

  it('a shared part cannot be written: a reader that tried would fail, not change the other objects', () => {
    const a = cacheKeep(PODS)(pod(1));
    expect(() => {
      a.metadata.labels.app = 'other';
    }).to.throw(TypeError);
    expect(() => a.metadata.ownerReferences[0].uid.toString()).to.not.throw();
    expect(() => {
      a.metadata.ownerReferences[0].uid = 'x';
    }).to.throw(TypeError);
    expect(cacheKeep(PODS)(pod(2)).metadata.labels.app).to.equal('web');
  });

  describe('a new version is kept with the parts it has equal to the cached one', () => {
    /** What `make` makes, with `change` made to it. */
    const changed =
      <T>(make: () => T, change: (o: T) => void): (() => T) =>
      () => {
        const o = make();
        change(o);
        return o;
      };
    type Row = [string, { group: string; plural: string }, () => any, () => any, (kept: any, prev: any) => void];
    const rows: Row[] = [
      [
        "a pod's status changed: the pod is kept anew (comparing would cost as much), its shared parts the table's",
        PODS,
        () => pod(1),
        changed(
          () => pod(1),
          (p) => {
            p.metadata.resourceVersion = '200';
            p.status.conditions[1].status = 'False';
            p.status.containerStatuses[0].ready = false;
          },
        ),
        (kept, prev) => {
          expect(kept.metadata).to.not.equal(prev.metadata);
          expect(kept.spec).to.not.equal(prev.spec);
          expect(kept.status.containerStatuses[0].state).to.not.equal(prev.status.containerStatuses[0].state);
          expect(kept.metadata.labels).to.equal(prev.metadata.labels);
          expect(kept.metadata.ownerReferences).to.equal(prev.metadata.ownerReferences);
          expect(kept.spec.containers).to.equal(prev.spec.containers);
        },
      ],
      [
        "a Deployment's status written: its spec, template and all, is the cached version's",
        DEPLOYMENTS,
        () => deployment('pacer.dev/v1alpha1'),
        changed(
          () => deployment('pacer.dev/v1alpha1'),
          (d) => {
            d.metadata.resourceVersion = '10';
            d.status.observedGeneration = 2;
          },
        ),
        (kept, prev) => {
          expect(kept.spec).to.equal(prev.spec);
          expect(kept.metadata.annotations).to.equal(prev.metadata.annotations);
          expect(kept.status).to.not.equal(prev.status);
          expect(kept.status.conditions).to.equal(prev.status.conditions);
        },
      ],
      [
        "a Deployment's template changed: a new template, its unchanged labels still the cached version's",
        DEPLOYMENTS,
        () => deployment('pacer.dev/v1alpha1'),
        changed(
          () => deployment('pacer.dev/v1alpha1'),
          (d) => {
            d.metadata.resourceVersion = '10';
            d.spec.template.spec.containers[0].image = 'nginx:2';
          },
        ),
        (kept, prev) => {
          expect(kept.spec).to.not.equal(prev.spec);
          expect(kept.spec.template.spec).to.not.equal(prev.spec.template.spec);
          expect(kept.spec.template.metadata).to.equal(prev.spec.template.metadata);
          expect(kept.spec.selector).to.equal(prev.spec.selector);
        },
      ],
      [
        'a member gone from the new version is gone from what is kept',
        DEPLOYMENTS,
        changed(
          () => deployment('pacer.dev/v1alpha1'),
          (d) => {
            d.spec.paused = true;
          },
        ),
        () => deployment('pacer.dev/v1alpha1'),
        (kept, prev) => {
          expect(kept.spec).to.not.equal(prev.spec);
          expect(kept.spec).to.not.have.property('paused');
          expect(kept.spec.template).to.equal(prev.spec.template);
        },
      ],
      [
        'a list grown by one element is a new list, its first element the cached one',
        DEPLOYMENTS,
        () => deployment('pacer.dev/v1alpha1'),
        changed(
          () => deployment('pacer.dev/v1alpha1'),
          (d) => {
            d.status.conditions.push({ type: 'Progressing', status: 'True' });
          },
        ),
        (kept, prev) => {
          expect(kept.status.conditions).to.not.equal(prev.status.conditions);
          expect(kept.status.conditions[0]).to.equal(prev.status.conditions[0]);
        },
      ],
      [
        'the same version again (a resync, a relist): the cached object itself',
        REPLICASETS,
        () => replicaSet('web-abc', 'abc'),
        () => replicaSet('web-abc', 'abc'),
        (kept, prev) => expect(kept).to.equal(prev),
      ],
    ];
    for (const [what, type, older, newer, check] of rows)
      it(what, () => {
        const keep = cacheKeep(type);
        const prev = keep(older());
        const kept = keep(newer(), prev);
        expect(kept).to.deep.equal(cacheTransform(type)(newer()));
        expect(isDeepStrictEqual(kept, cacheTransform(type)(newer())), 'isDeepStrictEqual').to.equal(true);
        expect(prev, 'the cached version is left as it was').to.deep.equal(cacheTransform(type)(older()));
        check(kept, prev);
      });
  });

  it('a table starts afresh at its limit; what was shared before stays as it was', () => {
    const i = new Interner(3);
    const first = i.shared({ a: 1 }); // the key "a" is interned too
    i.shared({ a: 2 });
    i.shared({ a: 3 });
    for (const s of ['x', 'y']) i.str(s);
    expect(i.sizes()).to.deep.equal({ strings: 3, values: 3 });
    i.str('w');
    i.shared({ a: 4 });
    expect(i.sizes()).to.deep.equal({ strings: 2, values: 1 }); // "w" and "a"; {a: 4}
    expect(first).to.deep.equal({ a: 1 });
    expect(i.shared({ a: 1 })).to.not.equal(first);
  });

  for (const limit of [0, -1, 1.5, Number.NaN])
    it(`an Interner's limit of ${limit} is refused with the value given`, () => {
      expect(() => new Interner(limit)).to.throw(
        `Interner: limit must be a positive integer, got ${JSON.stringify(limit)}`,
      );
    });
});
