import { expect } from 'chai';
import {
  BY_CONTROLLER,
  byController,
  cacheSource,
  reconcile,
  requeueFor,
} from '../../../../src/controllers/deployment/reconciler.ts';
import { buildSnapshot as engineSnapshot } from '../../../../src/engine/index.ts';
import type { Engine, ReconcileClient, ReconcilerDeps } from '../../../../src/controllers/deployment/reconciler.ts';
import type { Deployment, DeploymentStatus, Pod, ReplicaSet } from '../../../../src/api/types.ts';
import type { Action, Decision, Snapshot } from '../../../../src/engine/types.ts';
import { KubeError } from '../../../../src/kube/errors.ts';
import { silentLogger } from '../../../../src/observe/logger.ts';

const NS = 'prod';
function deployment(over: Partial<Deployment['metadata']> = {}): Deployment {
  return {
    apiVersion: 'pacer.dev/v1alpha1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: NS, uid: 'd-uid', resourceVersion: '10', generation: 1, ...over },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } },
    },
  };
}
function rs(
  name: string,
  opts: { owner?: string | null; labels?: Record<string, string>; replicas?: number; rv?: string } = {},
): ReplicaSet {
  const owner = opts.owner === undefined ? 'd-uid' : opts.owner;
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name,
      namespace: NS,
      uid: `${name}-uid`,
      resourceVersion: opts.rv ?? '5',
      labels: opts.labels ?? { app: 'web' },
      ...(owner
        ? {
            ownerReferences: [
              {
                apiVersion: 'pacer.dev/v1alpha1',
                kind: 'Deployment',
                name: 'web',
                uid: owner,
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
          }
        : {}),
    },
    spec: { replicas: opts.replicas ?? 1, selector: { matchLabels: { app: 'web' } } },
  };
}
function pod(name: string, labels: Record<string, string>): Pod {
  return { metadata: { name, namespace: NS, labels } };
}

/**
 * An API with resourceVersion preconditions, that fails on demand. Each request is answered only
 * after a turn of the event loop, and a request sent while another is unanswered is noted in
 * `overlaps` ("earlier ∥ later"): what a pass sends at the same time.
 */
class FakeApi implements ReconcileClient {
  deployment: Deployment;
  replicaSets = new Map<string, ReplicaSet>();
  calls: string[] = [];
  failures = new Map<string, KubeError>();
  overlaps: string[] = [];
  private readonly unanswered = new Set<string>();
  rv = 100;
  constructor(d: Deployment, rss: ReplicaSet[]) {
    this.deployment = structuredClone(d);
    for (const r of rss) this.replicaSets.set(r.metadata.name!, structuredClone(r));
  }
  private async fail(call: string): Promise<void> {
    this.calls.push(call);
    for (const other of this.unanswered) this.overlaps.push(`${other} ∥ ${call}`);
    this.unanswered.add(call);
    await new Promise((resolve) => setImmediate(resolve));
    this.unanswered.delete(call);
    const f = this.failures.get(call);
    if (f) {
      this.failures.delete(call);
      throw f;
    }
  }
  async getDeployment(): Promise<Deployment> {
    await this.fail('get deployment');
    return structuredClone(this.deployment);
  }
  async patchDeployment(
    _ns: string,
    _name: string,
    patch: { metadata: { resourceVersion: string; annotations?: Record<string, string | null> } },
  ): Promise<Deployment> {
    await this.fail('patch deployment');
    if (patch.metadata.resourceVersion !== this.deployment.metadata.resourceVersion)
      throw new KubeError('Conflict', 'stale', { code: 409 });
    for (const [k, v] of Object.entries(patch.metadata.annotations ?? {})) {
      const a = (this.deployment.metadata.annotations ??= {});
      if (v === null) delete a[k];
      else a[k] = v;
    }
    this.deployment.metadata.resourceVersion = String(++this.rv);
    return structuredClone(this.deployment);
  }
  async replaceDeploymentStatus(d: Deployment, status: DeploymentStatus): Promise<Deployment> {
    await this.fail('status');
    if (d.metadata.resourceVersion !== this.deployment.metadata.resourceVersion)
      throw new KubeError('Conflict', 'stale', { code: 409 });
    this.deployment.status = status;
    this.deployment.metadata.resourceVersion = String(++this.rv);
    return structuredClone(this.deployment);
  }
  async getReplicaSet(_ns: string, name: string): Promise<ReplicaSet> {
    await this.fail(`get ${name}`);
    const r = this.replicaSets.get(name);
    if (!r) throw new KubeError('NotFound', 'not found', { code: 404 });
    return structuredClone(r);
  }
  async createReplicaSet(r: ReplicaSet): Promise<ReplicaSet> {
    await this.fail(`create ${r.metadata.name}`);
    if (this.replicaSets.has(r.metadata.name!))
      throw new KubeError('AlreadyExists', 'exists', { code: 409, reason: 'AlreadyExists' });
    const stored = { ...structuredClone(r), metadata: { ...r.metadata, resourceVersion: String(++this.rv) } };
    this.replicaSets.set(r.metadata.name!, stored);
    return structuredClone(stored);
  }
  async replaceReplicaSet(r: ReplicaSet): Promise<ReplicaSet> {
    await this.fail(`replace ${r.metadata.name}`);
    const cur = this.replicaSets.get(r.metadata.name!);
    if (!cur) throw new KubeError('NotFound', 'not found', { code: 404 });
    if (r.metadata.resourceVersion !== cur.metadata.resourceVersion)
      throw new KubeError('Conflict', 'stale', { code: 409 });
    const stored = { ...structuredClone(r), metadata: { ...r.metadata, resourceVersion: String(++this.rv) } };
    this.replicaSets.set(r.metadata.name!, stored);
    return structuredClone(stored);
  }
  async deleteReplicaSet(_ns: string, name: string, pre?: { uid?: string; resourceVersion?: string }): Promise<void> {
    await this.fail(`delete ${name} ${pre?.uid ?? ''}/${pre?.resourceVersion ?? ''}`);
    if (!this.replicaSets.delete(name)) throw new KubeError('NotFound', 'not found', { code: 404 });
  }
}

function cache<T extends { metadata: { name?: string; namespace?: string } }>(items: T[]) {
  return {
    get: (key: string) => items.find((i) => `${i.metadata.namespace}/${i.metadata.name}` === key),
    list: (ns?: string) => items.filter((i) => ns === undefined || i.metadata.namespace === ns),
  };
}

function decision(actions: Action[], extra: Partial<Decision> = {}): Decision {
  return {
    deployment: `${NS}/web`,
    actions,
    status: {},
    requeueAfterSeconds: null,
    events: [],
    objects: { deployment: deployment(), replicaSets: [] },
    ...extra,
  };
}

interface Harness {
  deps: ReconcilerDeps;
  api: FakeApi;
  events: string[];
  snapshots: Snapshot[];
  conflicts: ReplicaSet[];
  createErrors: string[];
}

function harness(opts: {
  d?: Deployment | null;
  rss?: ReplicaSet[];
  pods?: Pod[];
  decide: (s: Snapshot) => Decision;
  onCreateConflict?: Engine['onCreateConflict'];
  onCreateError?: Engine['onCreateError'];
}): Harness {
  const d = opts.d === null ? undefined : (opts.d ?? deployment());
  const rss = opts.rss ?? [];
  const api = new FakeApi(d ?? deployment(), rss);
  const events: string[] = [];
  const snapshots: Snapshot[] = [];
  const conflicts: ReplicaSet[] = [];
  const createErrors: string[] = [];
  const engine: Engine = {
    decide: (s) => {
      snapshots.push(s);
      return opts.decide(s);
    },
    onCreateConflict: (s, existing) => {
      conflicts.push(existing);
      return opts.onCreateConflict ? opts.onCreateConflict(s, existing) : decision([]);
    },
    onCreateError: (s, name, message) => {
      createErrors.push(`${name}: ${message}`);
      return opts.onCreateError ? opts.onCreateError(s, name, message) : decision([]);
    },
  };
  const deps: ReconcilerDeps = {
    client: api,
    deployments: cache(d ? [d] : []),
    replicaSets: cache(rss),
    pods: cache(opts.pods ?? []),
    engine,
    recorder: { record: (_o, type, reason, message) => events.push(`${type} ${reason} ${message}`) },
    logger: silentLogger(),
    now: () => 1_700_000_000_000,
  };
  return { deps, api, events, snapshots, conflicts, createErrors };
}

const scaleEvent = (n: string, a: number, b: number) => ({
  type: 'Normal' as const,
  reason: 'ScalingReplicaSet',
  message: `Scaled ${b > a ? 'up' : 'down'} replica set ${n} from ${a} to ${b}`,
});
function scale(r: ReplicaSet, to: number): Action {
  return {
    verb: 'scale',
    kind: 'ReplicaSet',
    name: r.metadata.name!,
    from: r.spec.replicas!,
    replicas: to,
    object: { ...r, spec: { ...r.spec, replicas: to } },
    event: scaleEvent(r.metadata.name!, r.spec.replicas!, to),
  };
}

describe('controllers/deployment/reconciler', () => {
  it('does nothing for a Deployment that is not in the cache', async () => {
    const h = harness({ d: null, decide: () => decision([]) });
    expect(await reconcile(h.deps, `${NS}/web`)).to.deep.equal({});
    expect(h.snapshots).to.have.length(0);
    expect(h.api.calls).to.deep.equal([]);
  });

  describe("the snapshot (the engine's buildSnapshot over the controller's caches)", () => {
    const cache = <T extends { metadata: { name?: string; namespace?: string } }>(items: T[]) => ({
      get: (key: string) => items.find((x) => `${x.metadata.namespace}/${x.metadata.name}` === key),
      list: () => items,
    });
    const buildSnapshot = (d: Deployment, rss: ReplicaSet[], pods: Pod[], now: number): Snapshot =>
      engineSnapshot(d, cacheSource({ replicaSets: cache(rss), pods: cache(pods), deployments: cache([d]) }), now);
    /** The informer's index by controller, as Informer.byIndex answers it; `asked` records the values. */
    const indexed = (items: ReplicaSet[], asked: string[][]) => ({
      ...cache(items),
      byIndex: (name: string, values: readonly string[]) => {
        expect(name).to.equal(BY_CONTROLLER);
        asked.push([...values]);
        return items.filter((x) => values.includes(byController(x)[0]));
      },
    });
    const rows: Array<[string, ReplicaSet, boolean]> = [
      ['a ReplicaSet it controls', rs('web-a'), true],
      [
        'a ReplicaSet it controls that no longer matches (the engine releases it)',
        rs('web-b', { labels: { app: 'other' } }),
        true,
      ],
      ['an orphan its selector matches (the engine adopts it)', rs('web-c', { owner: null }), true],
      ['an orphan its selector does not match', rs('web-d', { owner: null, labels: { app: 'db' } }), false],
      ['a matching ReplicaSet controlled by another Deployment', rs('web-e', { owner: 'other-uid' }), false],
    ];
    for (const [name, r, included] of rows) {
      it(`${included ? 'includes' : 'leaves out'} ${name}`, () => {
        const s = buildSnapshot(deployment(), [r], [], 1);
        expect(s.replicaSets.map((x) => x.metadata.name)).to.deep.equal(included ? [r.metadata.name] : []);
        // The same through the cache's index, which reads the Deployment's own and the orphans only.
        const asked: string[][] = [];
        const viaIndex = engineSnapshot(
          deployment(),
          cacheSource({ replicaSets: indexed([r], asked), pods: cache([]), deployments: cache([deployment()]) }),
          1,
        );
        expect(viaIndex).to.deep.equal(s);
        expect(asked).to.deep.equal([[`${NS}/${deployment().metadata.uid}`, `${NS}/`]]);
      });
    }
    it('includes the pods its selector matches for Recreate only (the one strategy that reads them), nothing for an empty selector', () => {
      const pods = [pod('p1', { app: 'web' }), pod('p2', { app: 'db' })];
      const recreate = { ...deployment(), spec: { ...deployment().spec, strategy: { type: 'Recreate' } } };
      expect(buildSnapshot(recreate, [], pods, 1).pods.map((p) => p.metadata.name)).to.deep.equal(['p1']);
      expect(buildSnapshot(deployment(), [], pods, 1).pods).to.deep.equal([]);
      const all = { ...deployment(), spec: { ...deployment().spec, selector: {} } };
      const s = buildSnapshot(all, [rs('web-c', { owner: null })], pods, 7);
      expect([s.replicaSets.length, s.pods.length, s.now]).to.deep.equal([0, 0, 7]);
    });
  });

  describe('requeueAfterSeconds → the queue (upstream adds one second; under a second is rate-limited)', () => {
    const rows: Array<[number | null, object]> = [
      [null, {}],
      [0, { requeue: true }],
      [0.5, { requeue: true }],
      [1, { requeueAfterMs: 2000 }],
      [599, { requeueAfterMs: 600_000 }],
    ];
    for (const [s, r] of rows) it(`${s} → ${JSON.stringify(r)}`, () => expect(requeueFor(s)).to.deep.equal(r));
  });

  it('carries out the actions in order and records each event after its write, then the loose events', async () => {
    const old = rs('web-old', { replicas: 3 });
    const created = rs('web-new', { replicas: 0 });
    const h = harness({
      rss: [old],
      decide: () =>
        decision(
          [
            {
              verb: 'create',
              kind: 'ReplicaSet',
              name: 'web-new',
              replicas: 1,
              object: { ...created, spec: { ...created.spec, replicas: 1 } },
              event: scaleEvent('web-new', 0, 1),
            },
            scale(old, 2),
            { verb: 'updateStatus', kind: 'Deployment', name: 'web', status: { replicas: 3, observedGeneration: 1 } },
          ],
          { events: [{ type: 'Warning', reason: 'SelectingAll', message: 'x' }], requeueAfterSeconds: 30 },
        ),
    });
    const result = await reconcile(h.deps, `${NS}/web`);
    expect(h.api.calls).to.deep.equal(['create web-new', 'replace web-old', 'status']);
    expect(h.events).to.deep.equal([
      'Normal ScalingReplicaSet Scaled up replica set web-new from 0 to 1',
      'Normal ScalingReplicaSet Scaled down replica set web-old from 3 to 2',
      'Warning SelectingAll x',
    ]);
    expect(h.api.replicaSets.get('web-old')!.spec.replicas).to.equal(2);
    expect(h.api.deployment.status).to.deep.equal({ replicas: 3, observedGeneration: 1 });
    expect(result).to.deep.equal({ requeueAfterMs: 31_000 });
  });

  it('stops at the first failure: later actions are not tried and their events not recorded', async () => {
    const a = rs('web-a', { replicas: 1 });
    const b = rs('web-b', { replicas: 1 });
    const h = harness({
      rss: [a, b],
      decide: () =>
        decision([scale(a, 2), scale(b, 0), { verb: 'updateStatus', kind: 'Deployment', name: 'web', status: {} }]),
    });
    h.api.failures.set('replace web-b', new KubeError('Invalid', 'spec.replicas: Invalid value', { code: 422 }));
    let thrown: unknown;
    try {
      await reconcile(h.deps, `${NS}/web`);
    } catch (e) {
      thrown = e;
    }
    expect((thrown as KubeError).kind).to.equal('Invalid');
    expect(h.api.calls).to.deep.equal(['replace web-a', 'replace web-b']);
    expect(h.events).to.have.length(1);
  });

  it('a stale resourceVersion (409) requeues and overwrites nothing', async () => {
    const a = rs('web-a', { replicas: 1, rv: '5' });
    const h = harness({
      rss: [a],
      decide: () => decision([scale(a, 3), { verb: 'updateStatus', kind: 'Deployment', name: 'web', status: {} }]),
    });
    h.api.replicaSets.get('web-a')!.metadata.resourceVersion = '6'; // someone else wrote it since the cache saw it
    expect(await reconcile(h.deps, `${NS}/web`)).to.deep.equal({ requeue: true });
    expect(h.api.replicaSets.get('web-a')!.spec.replicas).to.equal(1);
    expect(h.api.calls).to.deep.equal(['replace web-a']);
    expect(h.events).to.deep.equal([]);
  });

  describe('condition-change events ride on the status write', () => {
    const progressed = {
      type: 'Normal' as const,
      reason: 'NewReplicaSetAvailable',
      message: 'ReplicaSet "web-a" has successfully progressed.',
    };
    const statusWrite: Action = {
      verb: 'updateStatus',
      kind: 'Deployment',
      name: 'web',
      status: { replicas: 1 },
      events: [progressed],
    };
    it('recorded once the status is stored, and the pass counts its writes', async () => {
      const h = harness({ decide: () => decision([statusWrite]) });
      const stats = { writes: 0 };
      await reconcile(h.deps, `${NS}/web`, h.deps.logger, stats);
      expect(h.events).to.deep.equal(['Normal NewReplicaSetAvailable ReplicaSet "web-a" has successfully progressed.']);
      expect(stats.writes).to.equal(1);
    });
    it('not recorded when the status write fails (409)', async () => {
      const h = harness({ decide: () => decision([statusWrite]) });
      h.api.deployment.metadata.resourceVersion = '11';
      const stats = { writes: 0 };
      expect(await reconcile(h.deps, `${NS}/web`, h.deps.logger, stats)).to.deep.equal({ requeue: true });
      expect(h.events).to.deep.equal([]);
      expect(stats.writes).to.equal(0);
    });
  });

  it('a 409 on the status write requeues', async () => {
    const h = harness({
      decide: () => decision([{ verb: 'updateStatus', kind: 'Deployment', name: 'web', status: { replicas: 1 } }]),
    });
    h.api.deployment.metadata.resourceVersion = '11';
    expect(await reconcile(h.deps, `${NS}/web`)).to.deep.equal({ requeue: true });
    expect(h.api.deployment.status).to.equal(undefined);
  });

  it('chains its own writes: a status write after a metadata patch uses the new resourceVersion', async () => {
    const d = deployment();
    const target = { ...d, metadata: { ...d.metadata, annotations: { 'pacer.dev/revision': '1' } } };
    const h = harness({
      d,
      decide: () =>
        decision([
          { verb: 'update', kind: 'Deployment', name: 'web', object: target },
          { verb: 'updateStatus', kind: 'Deployment', name: 'web', status: { replicas: 0 } },
        ]),
    });
    await reconcile(h.deps, `${NS}/web`);
    expect(h.api.calls).to.deep.equal(['patch deployment', 'status']);
    expect(h.api.deployment.metadata.annotations).to.deep.equal({ 'pacer.dev/revision': '1' });
    expect(h.api.deployment.status).to.deep.equal({ replicas: 0 });
  });

  it("two writes to one ReplicaSet in a pass: the second is guarded by the first one's resourceVersion", async () => {
    const a = rs('web-a', { replicas: 1 });
    const annotated = { ...a, metadata: { ...a.metadata, annotations: { 'pacer.dev/revision': '2' } } };
    const h = harness({
      rss: [a],
      decide: () =>
        decision([{ verb: 'update', kind: 'ReplicaSet', name: 'web-a', object: annotated }, scale(annotated, 3)]),
    });
    expect(await reconcile(h.deps, `${NS}/web`)).to.deep.equal({});
    expect(h.api.replicaSets.get('web-a')!.spec.replicas).to.equal(3);
  });

  it('create → AlreadyExists: reads the existing ReplicaSet, applies onCreateConflict, requeues', async () => {
    const existing = rs('web-new', { owner: 'someone-else' });
    const h = harness({
      rss: [],
      decide: () =>
        decision([
          {
            verb: 'create',
            kind: 'ReplicaSet',
            name: 'web-new',
            replicas: 3,
            object: rs('web-new'),
            event: scaleEvent('web-new', 0, 3),
          },
          { verb: 'updateStatus', kind: 'Deployment', name: 'web', status: { replicas: 9 } },
        ]),
      onCreateConflict: () =>
        decision([{ verb: 'updateStatus', kind: 'Deployment', name: 'web', status: { collisionCount: 1 } }]),
    });
    h.api.replicaSets.set('web-new', existing);
    expect(await reconcile(h.deps, `${NS}/web`)).to.deep.equal({ requeue: true });
    expect(h.conflicts.map((r) => r.metadata.ownerReferences![0].uid)).to.deep.equal(['someone-else']);
    expect(h.api.calls).to.deep.equal(['create web-new', 'get web-new', 'status']);
    expect(h.api.deployment.status).to.deep.equal({ collisionCount: 1 });
    expect(h.events, 'no "scaled up" for a create that did not happen').to.deep.equal([]);
  });

  it('create → another error: applies onCreateError (best effort), records its events, returns the error', async () => {
    const h = harness({
      decide: () =>
        decision([{ verb: 'create', kind: 'ReplicaSet', name: 'web-new', replicas: 3, object: rs('web-new') }]),
      onCreateError: (_s, name, message) =>
        decision([{ verb: 'updateStatus', kind: 'Deployment', name: 'web', status: { conditions: [] } }], {
          events: [
            {
              type: 'Warning',
              reason: 'ReplicaSetCreateError',
              message: `Failed to create new replica set "${name}": ${message}`,
            },
          ],
        }),
    });
    h.api.failures.set('create web-new', new KubeError('Forbidden', 'exceeded quota', { code: 403 }));
    let thrown: unknown;
    try {
      await reconcile(h.deps, `${NS}/web`);
    } catch (e) {
      thrown = e;
    }
    expect((thrown as KubeError).kind).to.equal('Forbidden');
    expect(h.createErrors).to.deep.equal(['web-new: exceeded quota']);
    expect(h.api.calls).to.deep.equal(['create web-new', 'status']);
    expect(h.events).to.deep.equal([
      'Warning ReplicaSetCreateError Failed to create new replica set "web-new": exceeded quota',
    ]);
  });

  describe('adoption checks the Deployment fresh from the API server first', () => {
    const rows: Array<[string, Partial<Deployment['metadata']>, boolean]> = [
      ['the same, live Deployment → adopts', {}, true],
      ['being deleted → skips', { deletionTimestamp: '2026-01-01T00:00:00Z' }, false],
      ['replaced by a new one with another uid → skips', { uid: 'new-uid' }, false],
    ];
    for (const [name, fresh, adopts] of rows) {
      it(name, async () => {
        const orphan = rs('web-o', { owner: null });
        const claimed = {
          ...orphan,
          metadata: { ...orphan.metadata, ownerReferences: rs('x').metadata.ownerReferences },
        };
        const h = harness({
          rss: [orphan],
          decide: () =>
            decision([
              { verb: 'update', kind: 'ReplicaSet', name: 'web-o', object: claimed },
              { verb: 'updateStatus', kind: 'Deployment', name: 'web', status: {} },
            ]),
        });
        Object.assign(h.api.deployment.metadata, fresh);
        expect(await reconcile(h.deps, `${NS}/web`)).to.deep.equal({});
        expect(h.api.calls).to.deep.equal(adopts ? ['get deployment', 'replace web-o', 'status'] : ['get deployment']);
        expect(!!h.api.replicaSets.get('web-o')!.metadata.ownerReferences).to.equal(adopts);
      });
    }
  });

  it('deletes with uid and resourceVersion preconditions, and ignores NotFound', async () => {
    const h = harness({
      rss: [rs('web-old', { replicas: 0 })],
      decide: () =>
        decision([
          { verb: 'delete', kind: 'ReplicaSet', name: 'web-old', uid: 'web-old-uid', resourceVersion: '5' },
          { verb: 'delete', kind: 'ReplicaSet', name: 'web-gone', uid: 'g', resourceVersion: '1' },
          { verb: 'updateStatus', kind: 'Deployment', name: 'web', status: {} },
        ]),
    });
    expect(await reconcile(h.deps, `${NS}/web`)).to.deep.equal({});
    expect(h.api.calls).to.deep.equal(['delete web-old web-old-uid/5', 'delete web-gone g/1', 'status']);
  });
  describe("a rollout's first pass sends the revision patch beside the old ReplicaSet's scale", () => {
    // The first pass of a new template: the new ReplicaSet, the old one scaled down, the revision
    // annotation, the status (engine/decide.ts's order). The patch depends on neither scale nor
    // the scale on it; the status write needs the patch's resourceVersion.
    const old = rs('web-old', { replicas: 3 });
    const fresh = rs('web-new', { replicas: 1 });
    const revised = (d: Deployment): Deployment => ({
      ...d,
      metadata: { ...d.metadata, annotations: { 'pacer.dev/revision': '2' } },
    });
    const status = { replicas: 3, observedGeneration: 1 };
    const firstPass = (): Action[] => [
      {
        verb: 'create',
        kind: 'ReplicaSet',
        name: 'web-new',
        replicas: 1,
        object: fresh,
        event: scaleEvent('web-new', 0, 1),
      },
      scale(old, 2),
      { verb: 'update', kind: 'Deployment', name: 'web', object: revised(deployment()) },
      { verb: 'updateStatus', kind: 'Deployment', name: 'web', status },
    ];

    /** What the cluster holds after a pass: the new ReplicaSet, the old one's size, the revision, the status. */
    const stateOf = (api: FakeApi) => ({
      newReplicaSet: api.replicaSets.has('web-new'),
      oldReplicas: api.replicaSets.get('web-old')!.spec.replicas,
      revision: api.deployment.metadata.annotations?.['pacer.dev/revision'],
      status: api.deployment.status !== undefined,
    });

    /**
     * The same writes one after another, stopping at the first failure, in the order `order` names
     * them: Pacer's before this change (ReplicaSet, scale, revision, status) or upstream's
     * (ReplicaSet, revision, scale, status: its revision rides on a status write).
     */
    async function oneAfterAnother(order: string[], failures: Array<[string, KubeError]>) {
      const api = new FakeApi(deployment(), [old]);
      for (const [call, err] of failures) api.failures.set(call, err);
      const write: Record<string, () => Promise<unknown>> = {
        create: () => api.createReplicaSet(fresh),
        scale: () => api.replaceReplicaSet({ ...old, spec: { ...old.spec, replicas: 2 } }),
        revision: () =>
          api.patchDeployment(NS, 'web', {
            metadata: { resourceVersion: '10', annotations: { 'pacer.dev/revision': '2' } },
          }),
        status: () => api.replaceDeploymentStatus(api.deployment, status),
      };
      for (const step of order) {
        try {
          await write[step]();
        } catch {
          break;
        }
      }
      return stateOf(api);
    }
    const PACER_ORDER = ['create', 'scale', 'revision', 'status'];
    const UPSTREAM_ORDER = ['create', 'revision', 'scale', 'status'];

    it('both land: the patch goes out while the scale is unanswered, the status write after both', async () => {
      const h = harness({ rss: [old], decide: () => decision(firstPass()) });
      const stats = { writes: 0 };
      expect(await reconcile(h.deps, `${NS}/web`, h.deps.logger, stats)).to.deep.equal({});
      expect(h.api.calls).to.deep.equal(['create web-new', 'replace web-old', 'patch deployment', 'status']);
      expect(h.api.overlaps).to.deep.equal(['replace web-old ∥ patch deployment']);
      expect(stateOf(h.api)).to.deep.equal({ newReplicaSet: true, oldReplicas: 2, revision: '2', status: true });
      expect(stateOf(h.api)).to.deep.equal(await oneAfterAnother(PACER_ORDER, []));
      expect(h.events).to.deep.equal([
        'Normal ScalingReplicaSet Scaled up replica set web-new from 0 to 1',
        'Normal ScalingReplicaSet Scaled down replica set web-old from 3 to 2',
      ]);
      expect(stats.writes).to.equal(4);
    });

    const invalid = () => new KubeError('Invalid', 'spec.replicas: Invalid value: -1', { code: 422 });
    const conflict = () => new KubeError('Conflict', 'the object has been modified', { code: 409 });
    const unavailable = () => new KubeError('Transient', 'etcdserver: request timed out', { code: 503 });
    // failure(s) → what reconcile gives, the state left, and which one-after-another order leaves it too.
    const rows: Array<{
      name: string;
      failures: Array<[string, () => KubeError]>;
      outcome: string;
      state: ReturnType<typeof stateOf>;
      events: number;
      as: string[];
    }> = [
      {
        name: 'the scale fails, the patch lands: as upstream leaves it when its scale fails',
        failures: [['replace web-old', invalid]],
        outcome: 'Invalid',
        state: { newReplicaSet: true, oldReplicas: 3, revision: '2', status: false },
        events: 1,
        as: UPSTREAM_ORDER,
      },
      {
        name: 'the scale meets a conflict, the patch lands: requeued, as upstream leaves it',
        failures: [['replace web-old', conflict]],
        outcome: 'requeue',
        state: { newReplicaSet: true, oldReplicas: 3, revision: '2', status: false },
        events: 1,
        as: UPSTREAM_ORDER,
      },
      {
        name: "the patch fails, the scale lands: as Pacer's own order leaves it when its patch fails",
        failures: [['patch deployment', unavailable]],
        outcome: 'Transient',
        state: { newReplicaSet: true, oldReplicas: 2, revision: undefined, status: false },
        events: 2,
        as: PACER_ORDER,
      },
      {
        name: "the patch meets a conflict, the scale lands: requeued, as Pacer's own order leaves it",
        failures: [['patch deployment', conflict]],
        outcome: 'requeue',
        state: { newReplicaSet: true, oldReplicas: 2, revision: undefined, status: false },
        events: 2,
        as: PACER_ORDER,
      },
      {
        name: 'both fail: the first in the Decision (the scale) decides, and only the new ReplicaSet is left, as either order leaves it',
        failures: [
          ['replace web-old', invalid],
          ['patch deployment', conflict],
        ],
        outcome: 'Invalid',
        state: { newReplicaSet: true, oldReplicas: 3, revision: undefined, status: false },
        events: 1,
        as: PACER_ORDER,
      },
    ];
    for (const row of rows) {
      it(row.name, async () => {
        const h = harness({ rss: [old], decide: () => decision(firstPass()) });
        for (const [call, err] of row.failures) h.api.failures.set(call, err());
        let outcome: string;
        try {
          const result = await reconcile(h.deps, `${NS}/web`);
          outcome = result.requeue ? 'requeue' : JSON.stringify(result);
        } catch (e) {
          outcome = (e as KubeError).kind;
        }
        expect(outcome).to.equal(row.outcome);
        expect(h.api.overlaps).to.deep.equal(['replace web-old ∥ patch deployment']);
        expect(h.api.calls, 'no status write after a failure').to.not.include('status');
        expect(stateOf(h.api)).to.deep.equal(row.state);
        const sequential = await oneAfterAnother(
          row.as,
          row.failures.map(([call, err]) => [call, err()]),
        );
        expect(stateOf(h.api), `the state ${row.as.join(', ')} one after another leaves`).to.deep.equal(sequential);
        expect(h.events, 'the Events of the writes that landed').to.have.length(row.events);
      });
    }

    it('a Deployment update that is more than annotations (a rollback) and a create are never sent beside anything', async () => {
      const d = deployment();
      const rolledBack: Deployment = {
        ...d,
        spec: { ...d.spec, template: { ...d.spec.template, metadata: { labels: { app: 'web', v: '1' } } } },
      };
      const h = harness({
        d,
        rss: [old],
        decide: () =>
          decision([
            { verb: 'create', kind: 'ReplicaSet', name: 'web-new', replicas: 1, object: fresh },
            scale(old, 2),
            { verb: 'update', kind: 'Deployment', name: 'web', object: rolledBack },
            { verb: 'updateStatus', kind: 'Deployment', name: 'web', status },
          ]),
      });
      expect(await reconcile(h.deps, `${NS}/web`)).to.deep.equal({});
      expect(h.api.calls).to.deep.equal(['create web-new', 'replace web-old', 'patch deployment', 'status']);
      expect(h.api.overlaps).to.deep.equal([]);
    });
  });

  describe("an apps/v1 Deployment's update: annotations alone through /status, except the rollback annotation", () => {
    // The revision annotation rides on a status write as upstream's controller writes it (no new
    // generation). deprecated.deployment.rollback.to is spec.rollbackTo to the API server, which a
    // /status write cannot change: it is cleared by a patch of the object, as upstream's rollback does.
    const ROLLBACK = 'deprecated.deployment.rollback.to';
    const apps = (annotations: Record<string, string>): Deployment => ({
      ...deployment({ annotations }),
      apiVersion: 'apps/v1',
    });
    const rows: Array<[what: string, before: Record<string, string>, after: Record<string, string>, call: string]> = [
      [
        'the revision annotation set',
        { 'deployment.kubernetes.io/revision': '1' },
        { 'deployment.kubernetes.io/revision': '2' },
        'status',
      ],
      ['the rollback annotation removed', { [ROLLBACK]: '0' }, {}, 'patch deployment'],
      [
        'the rollback annotation removed beside the revision set',
        { [ROLLBACK]: '0', 'deployment.kubernetes.io/revision': '1' },
        { 'deployment.kubernetes.io/revision': '2' },
        'patch deployment',
      ],
    ];
    for (const [what, before, after, call] of rows)
      it(`${what} → ${call}`, async () => {
        const d = apps(before);
        const h = harness({
          d,
          decide: () =>
            decision([
              {
                verb: 'update',
                kind: 'Deployment',
                name: 'web',
                object: { ...d, metadata: { ...d.metadata, annotations: after } },
              },
            ]),
        });
        expect(await reconcile(h.deps, `${NS}/web`)).to.deep.equal({});
        expect(h.api.calls).to.deep.equal([call]);
      });
  });
});
