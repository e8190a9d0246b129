import { expect } from 'chai';
import { REF } from '../../../src/sim/resources.ts';
import { Store } from '../../../src/sim/store.ts';
import type { KubeObject, StoreEvent } from '../../../src/sim/types.ts';
import { apiError } from './api-error.ts';

const T0 = Date.parse('2026-01-02T03:04:05.678Z');

function newStore(historySize?: number): Store {
  const s = new Store({ now: () => T0, ...(historySize ? { historySize } : {}) });
  s.create(REF.namespaces, undefined, { metadata: { name: 'default' } });
  return s;
}

function rs(name: string, replicas = 1, labels: Record<string, string> = { app: 'web' }): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    },
  };
}

function pod(
  name: string,
  extra: Record<string, unknown> = {},
  labels: Record<string, string> = { app: 'web' },
): KubeObject {
  return { metadata: { name, labels }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...extra } };
}

const WIDGET_CRD: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: {
          status: {},
          scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
        },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { replicas: { type: 'integer' }, size: { type: 'string' } } },
              status: { type: 'object', properties: { replicas: { type: 'integer' }, ready: { type: 'boolean' } } },
            },
          },
        },
      },
    ],
  },
};
const WIDGETS = { group: 'example.com', version: 'v1', resource: 'widgets' };

describe('sim/store', () => {
  describe('create', () => {
    it('sets uid, creationTimestamp (RFC 3339 seconds), resourceVersion, generation and type meta', () => {
      const s = newStore();
      const before = s.currentResourceVersion();
      const o = s.create(REF.replicasets, 'default', { metadata: { name: 'a' }, spec: rs('a').spec });
      expect(o.kind).to.equal('ReplicaSet');
      expect(o.apiVersion).to.equal('apps/v1');
      expect(o.metadata.uid).to.match(/^[0-9a-f-]{36}$/);
      expect(o.metadata.creationTimestamp).to.equal('2026-01-02T03:04:05Z');
      expect(o.metadata.resourceVersion).to.equal(String(before + 1));
      expect(o.metadata.generation).to.equal(1);
      expect(o.metadata.namespace).to.equal('default');
    });

    it('rejects a duplicate with AlreadyExists', () => {
      const s = newStore();
      s.create(REF.replicasets, 'default', rs('a'));
      const e = apiError(() => s.create(REF.replicasets, 'default', rs('a')));
      expect([e.code, e.reason, e.message]).to.deep.equal([
        409,
        'AlreadyExists',
        'replicasets.apps "a" already exists',
      ]);
    });

    it('needs an existing namespace', () => {
      const e = apiError(() => newStore().create(REF.pods, 'foo', pod('p')));
      expect([e.code, e.message]).to.deep.equal([404, 'namespaces "foo" not found']);
    });

    it('needs a name or generateName', () => {
      const e = apiError(() => newStore().create(REF.pods, 'default', { metadata: {}, spec: pod('x').spec }));
      expect(e.code).to.equal(422);
      expect(e.message).to.equal('Pod "" is invalid: metadata.name: Required value: name or generateName is required');
      expect(e.details?.causes).to.deep.equal([
        {
          reason: 'FieldValueRequired',
          field: 'metadata.name',
          message: 'Required value: name or generateName is required',
        },
      ]);
    });

    it('generateName appends 5 characters', () => {
      const o = newStore().create(REF.pods, 'default', { metadata: { generateName: 'web-' }, spec: pod('x').spec });
      expect(o.metadata.name).to.match(/^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    });

    it('a ReplicaSet selector must match its template labels', () => {
      const bad = rs('a');
      (bad.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels = {
        app: 'db',
      };
      const e = apiError(() => newStore().create(REF.replicasets, 'default', bad));
      expect(e.code).to.equal(422);
      expect(e.message).to.equal(
        'ReplicaSet.apps "a" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"db"}: `selector` does not match template `labels`',
      );
    });

    it('dryRun persists nothing and does not bump the resourceVersion', () => {
      const s = newStore();
      const rv = s.currentResourceVersion();
      const o = s.create(REF.replicasets, 'default', rs('a'), { dryRun: true });
      expect(o.metadata.name).to.equal('a');
      expect(s.currentResourceVersion()).to.equal(rv);
      expect(s.get(REF.replicasets, 'default', 'a')).to.equal(undefined);
    });
  });

  describe('update and patch', () => {
    it('a stale resourceVersion is a 409 with the upstream message', () => {
      const s = newStore();
      const o = s.create(REF.replicasets, 'default', rs('a'));
      s.patch(REF.replicasets, 'default', 'a', 'merge', { spec: { replicas: 3 } });
      const e = apiError(() => s.update(REF.replicasets, 'default', 'a', o));
      expect(e.code).to.equal(409);
      expect(e.reason).to.equal('Conflict');
      expect(e.message).to.equal(
        'Operation cannot be fulfilled on replicasets.apps "a": the object has been modified; please apply your changes to the latest version and try again',
      );
    });

    it('a write that changes nothing keeps the resourceVersion and emits nothing', () => {
      const s = newStore();
      const o = s.create(REF.replicasets, 'default', rs('a'));
      const events: StoreEvent[] = [];
      s.subscribe((e) => events.push(e));
      const same = s.patch(REF.replicasets, 'default', 'a', 'merge', { spec: { replicas: 1 } });
      expect(same.metadata.resourceVersion).to.equal(o.metadata.resourceVersion);
      expect(events).to.have.length(0);
    });

    const generationRows: Array<[string, unknown, number]> = [
      ['spec change bumps', { spec: { replicas: 5 } }, 2],
      ['label change does not', { metadata: { labels: { x: 'y' } } }, 1],
      ['annotation change does not', { metadata: { annotations: { x: 'y' } } }, 1],
      ['status in a main-resource patch is ignored', { status: { replicas: 7 } }, 1],
    ];
    for (const [name, patch, generation] of generationRows) {
      it(`ReplicaSet generation: ${name}`, () => {
        const s = newStore();
        s.create(REF.replicasets, 'default', rs('a'));
        const o = s.patch(REF.replicasets, 'default', 'a', 'merge', patch);
        expect(o.metadata.generation).to.equal(generation);
        expect((o.status as { replicas: number }).replicas).to.equal(0);
      });
    }

    it('status writes take only status and never bump generation', () => {
      const s = newStore();
      s.create(REF.replicasets, 'default', rs('a'));
      const o = s.patch(
        REF.replicasets,
        'default',
        'a',
        'merge',
        { spec: { replicas: 9 }, status: { replicas: 1 } },
        { subresource: 'status' },
      );
      expect((o.spec as { replicas: number }).replicas).to.equal(1);
      expect((o.status as { replicas: number }).replicas).to.equal(1);
      expect(o.metadata.generation).to.equal(1);
    });

    it('strategic merge patch works on built-ins (kubectl apply of a ReplicaSet)', () => {
      const s = newStore();
      s.create(REF.replicasets, 'default', rs('a'));
      const o = s.patch(REF.replicasets, 'default', 'a', 'strategic', {
        spec: {
          replicas: 4,
          template: {
            spec: { '$setElementOrder/containers': [{ name: 'c' }], containers: [{ image: 'nginx:2', name: 'c' }] },
          },
        },
      });
      expect(
        (o.spec as { template: { spec: { containers: Array<{ image: string }> } } }).template.spec.containers[0].image,
      ).to.equal('nginx:2');
      expect(o.metadata.generation).to.equal(2);
    });

    it('patching a missing object is 404; an apply patch creates it', () => {
      const s = newStore();
      const e = apiError(() => s.patch(REF.replicasets, 'default', 'nope', 'merge', {}));
      expect([e.code, e.message]).to.deep.equal([404, 'replicasets.apps "nope" not found']);
      const r = s.patchOrCreate(REF.replicasets, 'default', 'made', 'apply', rs('made'));
      expect(r.created).to.equal(true);
    });

    it('the selector of a ReplicaSet is immutable', () => {
      const s = newStore();
      s.create(REF.replicasets, 'default', rs('a'));
      const e = apiError(() =>
        s.patch(REF.replicasets, 'default', 'a', 'merge', {
          spec: { selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'x' } } } },
        }),
      );
      expect(e.code).to.equal(422);
      expect(e.details?.causes?.map((c) => c.field)).to.include('spec.selector');
    });
  });

  describe('custom resources', () => {
    it('a CRD registers its resource; generation follows the generation rules; deleting the CRD deletes its objects', () => {
      const s = newStore();
      const crd = s.create(REF.customresourcedefinitions, undefined, WIDGET_CRD);
      const conds = (crd.status as { conditions: Array<{ type: string; status: string }> }).conditions;
      expect(conds.find((c) => c.type === 'Established')?.status).to.equal('True');
      expect(s.resourceInfo(WIDGETS)?.kind).to.equal('Widget');
      const w = s.create(WIDGETS, 'default', {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { name: 'w1' },
        spec: { replicas: 1 },
        status: { replicas: 5 },
      });
      expect(w.status).to.equal(undefined); // create drops status with a status subresource
      expect(
        s.patch(WIDGETS, 'default', 'w1', 'merge', { metadata: { labels: { a: 'b' } } }).metadata.generation,
      ).to.equal(1);
      expect(s.patch(WIDGETS, 'default', 'w1', 'merge', { spec: { size: 'large' } }).metadata.generation).to.equal(2);
      expect(
        s.patch(WIDGETS, 'default', 'w1', 'merge', { status: { replicas: 2 } }, { subresource: 'status' }).metadata
          .generation,
      ).to.equal(2);
      const e = apiError(() => s.patch(WIDGETS, 'default', 'w1', 'strategic', { spec: {} }));
      expect(e.code).to.equal(415);
      const events: StoreEvent[] = [];
      s.subscribe((ev) => events.push(ev));
      s.delete(REF.customresourcedefinitions, undefined, 'widgets.example.com');
      expect(events.map((ev) => `${ev.type} ${ev.ref.resource}`)).to.deep.equal([
        'DELETED widgets',
        'DELETED customresourcedefinitions',
      ]);
      expect(s.resourceInfo(WIDGETS)).to.equal(undefined);
    });

    it('a PUT without resourceVersion is refused for custom resources', () => {
      const s = newStore();
      s.create(REF.customresourcedefinitions, undefined, WIDGET_CRD);
      s.create(WIDGETS, 'default', { metadata: { name: 'w1' }, spec: {} });
      const e = apiError(() => s.update(WIDGETS, 'default', 'w1', { metadata: { name: 'w1' }, spec: { replicas: 2 } }));
      expect(e.code).to.equal(422);
      expect(e.message).to.equal(
        'Widget.example.com "w1" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
      );
    });

    it('scale reads and writes the replicas paths', () => {
      const s = newStore();
      s.create(REF.customresourcedefinitions, undefined, WIDGET_CRD);
      s.create(WIDGETS, 'default', { metadata: { name: 'w1' }, spec: { replicas: 2 } });
      expect(s.getScale(WIDGETS, 'default', 'w1').spec.replicas).to.equal(2);
      const sc = s.patchScale(WIDGETS, 'default', 'w1', 'merge', { spec: { replicas: 5 } });
      expect(sc.spec.replicas).to.equal(5);
      expect(s.get(WIDGETS, 'default', 'w1')?.metadata.generation).to.equal(2);
      const stale = apiError(() =>
        s.updateScale(WIDGETS, 'default', 'w1', { metadata: { resourceVersion: '1' }, spec: { replicas: 6 } }),
      );
      expect(stale.code).to.equal(409);
      const empty = apiError(() => s.updateScale(WIDGETS, 'default', 'w1', { spec: {} }));
      expect([empty.code, empty.message]).to.deep.equal([
        400,
        'the spec replicas field ".spec.replicas" cannot be empty',
      ]);
    });

    it('a ReplicaSet scale carries the selector string', () => {
      const s = newStore();
      s.create(REF.replicasets, 'default', rs('a', 2));
      expect(s.getScale(REF.replicasets, 'default', 'a').status).to.deep.equal({ replicas: 0, selector: 'app=web' });
    });
  });

  describe('deletion', () => {
    it('finalizers hold the object with a deletionTimestamp; removing the last one deletes it', () => {
      const s = newStore();
      s.create(REF.replicasets, 'default', { ...rs('a'), metadata: { name: 'a', finalizers: ['example.com/x'] } });
      const pending = s.delete(REF.replicasets, 'default', 'a');
      expect(pending.metadata.deletionTimestamp).to.equal('2026-01-02T03:04:05Z');
      expect(pending.metadata.generation).to.equal(2);
      const e = apiError(() =>
        s.patch(REF.replicasets, 'default', 'a', 'merge', { metadata: { finalizers: ['example.com/x', 'new'] } }),
      );
      expect(e.code).to.equal(422);
      const events: string[] = [];
      s.subscribe((ev) => events.push(ev.type));
      s.patch(REF.replicasets, 'default', 'a', 'merge', { metadata: { finalizers: null } });
      expect(events).to.deep.equal(['DELETED']);
      expect(s.get(REF.replicasets, 'default', 'a')).to.equal(undefined);
    });

    it('a scheduled pod deleted with a grace period waits for the kubelet; an unscheduled one goes at once', () => {
      const s = newStore();
      s.create(REF.pods, 'default', pod('on-node', { nodeName: 'n1' }));
      s.create(REF.pods, 'default', pod('pending'));
      const r = s.deleteWithResult(REF.pods, 'default', 'on-node');
      expect(r.pending).to.equal(true);
      expect(r.object.metadata.deletionGracePeriodSeconds).to.equal(30);
      expect(s.deleteWithResult(REF.pods, 'default', 'pending').pending).to.equal(false);
      expect(s.deleteWithResult(REF.pods, 'default', 'on-node', { gracePeriodSeconds: 0 }).pending).to.equal(false);
      expect(s.get(REF.pods, 'default', 'on-node')).to.equal(undefined);
    });

    it('foreground and orphan add their finalizers when the object has dependents', () => {
      const s = newStore();
      const owner = s.create(REF.replicasets, 'default', rs('owner'));
      s.create(REF.pods, 'default', {
        ...pod('dep'),
        metadata: {
          name: 'dep',
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'owner', uid: owner.metadata.uid! }],
        },
      });
      expect(s.dependentsOf(owner.metadata.uid!).map((d) => d.name)).to.deep.equal(['dep']);
      const fg = s.delete(REF.replicasets, 'default', 'owner', { propagationPolicy: 'Foreground' });
      expect(fg.metadata.finalizers).to.deep.equal(['foregroundDeletion']);
      s.create(REF.replicasets, 'default', rs('lonely'));
      expect(
        s.deleteWithResult(REF.replicasets, 'default', 'lonely', { propagationPolicy: 'Orphan' }).pending,
      ).to.equal(false);
    });

    it('preconditions are checked', () => {
      const s = newStore();
      s.create(REF.replicasets, 'default', rs('a'));
      const e = apiError(() => s.delete(REF.replicasets, 'default', 'a', { preconditions: { uid: 'nope' } }));
      expect(e.code).to.equal(409);
      expect(e.message).to.match(
        /^Operation cannot be fulfilled on replicasets.apps "a": Precondition failed: UID in precondition: nope, UID in object meta: /,
      );
    });

    it('a namespace terminates, its content is deleted, then it goes', async () => {
      const s = newStore();
      s.create(REF.namespaces, undefined, { metadata: { name: 'team' } });
      s.create(REF.replicasets, 'team', rs('a'));
      const ns = s.delete(REF.namespaces, undefined, 'team');
      expect((ns.status as { phase: string }).phase).to.equal('Terminating');
      const e = apiError(() => s.create(REF.replicasets, 'team', rs('b')));
      expect(e.code).to.equal(403);
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setImmediate(r));
      expect(s.get(REF.replicasets, 'team', 'a')).to.equal(undefined);
      expect(s.get(REF.namespaces, undefined, 'team')).to.equal(undefined);
    });
  });

  describe('list and watch', () => {
    it('lists with selectors and pages with limit/continue', () => {
      const s = newStore();
      for (const n of ['c', 'a', 'b']) s.create(REF.pods, 'default', pod(n, {}, { app: n === 'b' ? 'db' : 'web' }));
      expect(s.list(REF.pods, 'default', { labelSelector: 'app=web' }).items.map((o) => o.metadata.name)).to.deep.equal(
        ['a', 'c'],
      );
      const p1 = s.list(REF.pods, 'default', { limit: 2 });
      expect(p1.items.map((o) => o.metadata.name)).to.deep.equal(['a', 'b']);
      expect(p1.remainingItemCount).to.equal(1);
      expect(p1.resourceVersion).to.equal(String(s.currentResourceVersion()));
      const p2 = s.list(REF.pods, 'default', { limit: 2, continue: p1.continue! });
      expect(p2.items.map((o) => o.metadata.name)).to.deep.equal(['c']);
      expect(p2.continue).to.equal(undefined);
    });

    it('replays history after a resourceVersion and turns selector transitions into ADDED/DELETED', () => {
      const s = newStore();
      const from = s.currentResourceVersion();
      s.create(REF.pods, 'default', pod('p'));
      s.patch(REF.pods, 'default', 'p', 'merge', { metadata: { labels: { app: 'db' } } });
      s.patch(REF.pods, 'default', 'p', 'merge', { metadata: { labels: { app: 'web' } } });
      const seen: string[] = [];
      const stop = s.watch(REF.pods, 'default', { resourceVersion: String(from), labelSelector: 'app=web' }, (e) =>
        seen.push(`${e.type} ${e.object.metadata.resourceVersion}`),
      );
      s.delete(REF.pods, 'default', 'p');
      stop();
      expect(seen).to.deep.equal([
        `ADDED ${from + 1}`,
        `DELETED ${from + 2}`,
        `ADDED ${from + 3}`,
        `DELETED ${from + 4}`,
      ]);
    });

    it('a watch without a resourceVersion starts with the current state', () => {
      const s = newStore();
      s.create(REF.pods, 'default', pod('p'));
      const seen: string[] = [];
      s.watch(REF.pods, 'default', {}, (e) => seen.push(`${e.type} ${e.object.metadata.name}`))();
      expect(seen).to.deep.equal(['ADDED p']);
    });

    it('a watch from a version older than the history is 410 Expired', () => {
      const s = newStore(16);
      for (let i = 0; i < 40; i++) s.create(REF.pods, 'default', pod(`p${i}`));
      const e = apiError(() => s.watch(REF.pods, 'default', { resourceVersion: '3' }, () => {}));
      expect(e.code).to.equal(410);
      expect(e.reason).to.equal('Expired');
      expect(e.message).to.match(/^too old resource version: 3 \(\d+\)$/);
      s.expireResourceVersions();
      const rv = s.currentResourceVersion();
      s.create(REF.pods, 'default', pod('late'));
      expect(apiError(() => s.watch(REF.pods, 'default', { resourceVersion: String(rv - 1) }, () => {})).code).to.equal(
        410,
      );
    });
  });
});

describe('sim store: Secrets as a real API server stores them', () => {
  const secret = (extra: Record<string, unknown>) =>
    ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'probe', namespace: 'default' }, ...extra }) as KubeObject;

  it('stringData is write-only: merged into data base64-encoded (over a data key of the same name), never stored; type defaults to Opaque', () => {
    const s = newStore();
    const created = s.create(
      REF.secrets,
      'default',
      secret({ data: { a: 'eA==', b: 'eQ==' }, stringData: { b: 'two' } }),
    ) as Record<string, unknown>;
    expect(created.data).to.deep.equal({ a: 'eA==', b: Buffer.from('two').toString('base64') });
    expect(created).to.not.have.property('stringData');
    expect(created.type).to.equal('Opaque');
    const updated = s.update(REF.secrets, 'default', 'probe', {
      ...(created as KubeObject),
      stringData: { c: 'three' },
    }) as Record<string, unknown>;
    expect(updated.data).to.include({ c: Buffer.from('three').toString('base64') });
    expect(updated).to.not.have.property('stringData');
  });
});
