// The pacer_plan_phase_* samples at scrape time: a Deployment's phase is computed again only when
// its Deployment, its ReplicaSets or their pods changed since the last scrape (or its
// minReadySeconds ran out); otherwise the sampler hands back the very sample it made before, which
// the registry's rendered lines are kept by.

import { expect } from 'chai';
import type { Deployment, Pod, ReplicaSet } from '../../../../src/api/types.ts';
import { buildNewReplicaSet } from '../../../../src/engine/kubernetes/newreplicaset.ts';
import type { PlanPhaseSample } from '../../../../src/observe/metrics.ts';
import {
  CHANGES_NOTED,
  phaseValidUntil,
  planPhaseSampler,
} from '../../../../src/controllers/deployment/planmetrics.ts';

const NOW = Date.parse('2026-11-27T10:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

function web(o: { minReadySeconds?: number; resourceVersion?: string } = {}): Deployment {
  return {
    apiVersion: 'pacer.dev/v1alpha1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      namespace: 'shop',
      uid: 'uid-web',
      generation: 1,
      resourceVersion: o.resourceVersion ?? '10',
    },
    spec: {
      replicas: 2,
      minReadySeconds: o.minReadySeconds ?? 0,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1' }] } },
    },
  };
}

function replicaSet(d: Deployment, resourceVersion = '11'): ReplicaSet {
  const rs = buildNewReplicaSet(d, 'aaaa', NOW - 120_000);
  return { ...rs, metadata: { ...rs.metadata, resourceVersion } };
}

/** Pod `i` of `rs`, ready since `readySince` (or not ready), at `resourceVersion`. */
function pod(rs: ReplicaSet, i: number, resourceVersion: string, readySince: number | 'not ready' = NOW - 60_000): Pod {
  return {
    metadata: {
      name: `${rs.metadata.name}-${i}`,
      namespace: 'shop',
      uid: `uid-${rs.metadata.name}-${i}`,
      resourceVersion,
      creationTimestamp: iso(NOW - 100_000 + i * 1000),
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs.metadata.name!, uid: rs.metadata.uid!, controller: true },
      ],
    },
    spec: { nodeName: 'node-1' },
    status: {
      phase: 'Running',
      conditions: [
        readySince === 'not ready'
          ? { type: 'Ready', status: 'False', lastTransitionTime: iso(NOW - 60_000) }
          : { type: 'Ready', status: 'True', lastTransitionTime: iso(readySince) },
      ],
    },
  };
}

/**
 * The sampler fed as the Deployment controller's informers feed it: before each scrape,
 * every ReplicaSet and pod added, replaced (a new object) or gone since the previous one is
 * reported. `lists` counts the scrapes that read the ReplicaSet cache.
 */
function informed() {
  const sampler = planPhaseSampler();
  let replicaSetsBefore = new Map<string, ReplicaSet>();
  let podsBefore = new Map<string, Pod>();
  const report = <T extends { metadata: { uid?: string } }>(
    before: Map<string, T>,
    now: readonly T[],
    tell: (obj: T, old?: T) => void,
  ): Map<string, T> => {
    const after = new Map(now.map((o) => [o.metadata.uid ?? '', o]));
    for (const [uid, o] of after) {
      const old = before.get(uid);
      if (old === undefined) tell(o);
      else if (old !== o) tell(o, old);
    }
    for (const [uid, o] of before) if (!after.has(uid)) tell(o);
    return after;
  };
  const counts = { lists: 0 };
  const sample = (ds: Deployment[], rss: ReplicaSet[], pods: Pod[], now: number): PlanPhaseSample[] => {
    replicaSetsBefore = report(replicaSetsBefore, rss, (o, old) => sampler.replicaSet(o, old));
    podsBefore = report(podsBefore, pods, (o, old) => sampler.pod(o, old));
    return [
      ...sampler.sample(
        ds,
        () => {
          counts.lists++;
          return rss;
        },
        () => pods,
        now,
      ),
    ];
  };
  return Object.assign(sample, { counts, sampler });
}

describe('controllers/deployment/planmetrics: each phase kept between scrapes while its objects stay the same', () => {
  const d = web();
  const rs = replicaSet(d);
  const pods = [pod(rs, 0, '20'), pod(rs, 1, '21', 'not ready')];

  it("the first scrape computes web's phase: one pod ready, one starting", () => {
    const [s] = informed()([d], [rs], pods, NOW);
    expect(s).to.deep.equal({
      namespace: 'shop',
      name: 'web',
      plan: 'deploy',
      strategy: 'parallel',
      status: 'IN_PROGRESS',
      steps: { COMPLETE: 1, STARTED: 1 },
    });
  });

  const rows: Array<{
    name: string;
    next: () => [Deployment[], ReplicaSet[], Pod[], number];
    kept: boolean;
    steps?: Record<string, number>;
  }> = [
    {
      name: 'nothing changed, a minute later → the same sample',
      next: () => [[d], [rs], pods, NOW + 60_000],
      kept: true,
    },
    {
      name: "the same objects listed as new arrays (the next scrape's lists) → the same sample",
      next: () => [[d], [rs], [...pods], NOW],
      kept: true,
    },
    {
      name: 'pod web-aaaa-1 became ready (its new version) → computed again',
      next: () => [[d], [rs], [pods[0], pod(rs, 1, '22')], NOW],
      kept: false,
      steps: { COMPLETE: 2 },
    },
    {
      name: 'pod web-aaaa-1 gone → computed again, its slot PENDING',
      next: () => [[d], [rs], [pods[0]], NOW],
      kept: false,
      steps: { COMPLETE: 1, PENDING: 1 },
    },
    {
      name: "the ReplicaSet's status written (a new version) → computed again",
      next: () => [[d], [replicaSet(d, '12')], pods, NOW],
      kept: false,
      steps: { COMPLETE: 1, STARTED: 1 },
    },
    {
      name: 'the Deployment replaced by the informer (a new object) → computed again',
      next: () => [[{ ...d, metadata: { ...d.metadata, resourceVersion: '13' } }], [rs], pods, NOW],
      kept: false,
      steps: { COMPLETE: 1, STARTED: 1 },
    },
    {
      name: 'a pod without a resourceVersion → computed at every scrape',
      next: () => [
        [d],
        [rs],
        [pods[0], { ...pods[1], metadata: { ...pods[1].metadata, resourceVersion: undefined } }],
        NOW,
      ],
      kept: false,
      steps: { COMPLETE: 1, STARTED: 1 },
    },
  ];
  for (const row of rows)
    it(row.name, () => {
      const sample = informed();
      const [before] = sample([d], [rs], pods, NOW);
      const [after] = sample(...row.next());
      if (row.kept) expect(after).to.equal(before);
      else {
        expect(after).to.not.equal(before);
        expect(after.steps).to.deep.equal(row.steps);
      }
    });

  it('a pod without a resourceVersion is computed again at the scrape after too', () => {
    const sample = informed();
    const unversioned = [{ ...pods[0], metadata: { ...pods[0].metadata, resourceVersion: undefined } }];
    const [a] = sample([d], [rs], unversioned, NOW);
    const [b] = sample([d], [rs], unversioned, NOW);
    expect(b).to.not.equal(a);
    expect(b).to.deep.equal(a);
  });

  it('minReadySeconds 30, a pod ready for 10 s: STARTED, kept until its 30 s are up, then COMPLETE with the same objects', () => {
    const slow = web({ minReadySeconds: 30 });
    const slowRS = replicaSet(slow);
    const slowPods = [pod(slowRS, 0, '20', NOW - 10_000), pod(slowRS, 1, '21', NOW - 60_000)];
    const sample = informed();
    const [first] = sample([slow], [slowRS], slowPods, NOW);
    expect(first.steps).to.deep.equal({ STARTED: 1, COMPLETE: 1 });
    const [kept] = sample([slow], [slowRS], slowPods, NOW + 19_999);
    expect(kept).to.equal(first);
    const [later] = sample([slow], [slowRS], slowPods, NOW + 20_000);
    expect(later.steps).to.deep.equal({ COMPLETE: 2 });
    const [last] = sample([slow], [slowRS], slowPods, NOW + 600_000);
    expect(last, 'nothing left to wait for: kept').to.equal(later);
  });

  it('two Deployments: only the one whose pod changed is computed again', () => {
    const api: Deployment = { ...web(), metadata: { ...web().metadata, name: 'api', uid: 'uid-api' } };
    const apiRS = replicaSet(api);
    const apiPod = pod(apiRS, 0, '30');
    const sample = informed();
    const [w1, a1] = sample([d, api], [rs, apiRS], [...pods, apiPod], NOW);
    const [w2, a2] = sample([d, api], [rs, apiRS], [...pods, pod(apiRS, 0, '31', 'not ready')], NOW);
    expect(w2).to.equal(w1);
    expect(a2).to.not.equal(a1);
    expect([a1.steps, a2.steps]).to.deep.equal([
      { COMPLETE: 1, PENDING: 1 },
      { STARTED: 1, PENDING: 1 },
    ]);
  });
});

describe('controllers/deployment/planmetrics: the sampler reads the caches only when a change was reported', () => {
  const d = web();
  const rs = replicaSet(d);
  const pods = [pod(rs, 0, '20'), pod(rs, 1, '21', 'not ready')];

  it('nothing reported since the last scrape → the same sample, and the caches are not read', () => {
    const sample = informed();
    const [first] = sample([d], [rs], pods, NOW);
    const [second] = sample([d], [rs], [...pods], NOW + 60_000);
    expect(second).to.equal(first);
    expect(sample.counts.lists).to.equal(1);
  });

  it('a resync (the same objects delivered again) marks nothing', () => {
    const sample = informed();
    const [first] = sample([d], [rs], pods, NOW);
    sample.sampler.replicaSet(rs, rs);
    for (const p of pods) sample.sampler.pod(p, p);
    const [second] = sample([d], [rs], pods, NOW);
    expect(second).to.equal(first);
    expect(sample.counts.lists).to.equal(1);
  });

  it("a pod's change reported → that Deployment's phase from the caches as they are", () => {
    const sample = informed();
    sample([d], [rs], pods, NOW);
    const [after] = sample([d], [rs], [pods[0], pod(rs, 1, '22')], NOW);
    expect(after.steps).to.deep.equal({ COMPLETE: 2 });
    expect(sample.counts.lists).to.equal(2);
  });

  it('a change reported while the phases are being taken counts for the next scrape', () => {
    const sampler = planPhaseSampler();
    const ready = [pods[0], pod(rs, 1, '22')];
    const [first] = sampler.sample(
      [d],
      () => [rs],
      () => pods,
      NOW,
    );
    const taking = sampler
      .sample(
        [d],
        () => [rs],
        () => ready,
        NOW,
      )
      [Symbol.iterator]();
    sampler.pod(ready[1], pods[1]);
    expect(taking.next().value, 'this scrape: nothing was reported before it began').to.equal(first);
    const [next] = sampler.sample(
      [d],
      () => [rs],
      () => ready,
      NOW,
    );
    expect(next.steps).to.deep.equal({ COMPLETE: 2 });
  });

  it(`past ${CHANGES_NOTED} owners changed between two scrapes the sampler stops noting them and reads the caches for every Deployment`, () => {
    const of = (n: number) =>
      pod({ ...rs, metadata: { ...rs.metadata, name: `other-${n}`, uid: `uid-other-${n}` } }, 0, '5');
    for (const [others, read] of [
      [CHANGES_NOTED - 1, false],
      [CHANGES_NOTED, true],
    ] as const) {
      const sample = informed();
      const [first] = sample([d], [rs], pods, NOW);
      for (let n = 0; n < others; n++) sample.sampler.pod(of(n));
      const [second] = sample([d], [rs], pods, NOW);
      expect(second, `${others} others`).to.equal(first);
      expect(sample.counts.lists, `${others} others: caches read again`).to.equal(read ? 2 : 1);
    }
  });

  it('a scrape that did not take every phase (one threw) loses no change: the next looks at every Deployment again', () => {
    const sampler = planPhaseSampler();
    const api: Deployment = { ...web(), metadata: { ...web().metadata, name: 'api', uid: 'uid-api' } };
    const apiRS = replicaSet(api);
    const apiPods = [pod(apiRS, 0, '30')];
    const all = () => [...pods, ...apiPods];
    const [, a1] = sampler.sample([d, api], () => [rs, apiRS], all, NOW);
    const started = [pod(apiRS, 0, '31', 'not ready')];
    sampler.pod(started[0], apiPods[0]);
    const taking = sampler
      .sample(
        [d, api],
        () => [rs, apiRS],
        () => [...pods, ...started],
        NOW,
      )
      [Symbol.iterator]();
    taking.next(); // web's phase, then the scrape fails before api's
    taking.return?.(undefined);
    const [, a2] = sampler.sample(
      [d, api],
      () => [rs, apiRS],
      () => [...pods, ...started],
      NOW,
    );
    expect(a2).to.not.equal(a1);
    expect(a2.steps).to.deep.equal({ STARTED: 1, PENDING: 1 });
  });

  it("a ReplicaSet added for the Deployment (a rollout's new one) → computed again with it", () => {
    const sampler = planPhaseSampler();
    const [first] = sampler.sample(
      [d],
      () => [],
      () => [],
      NOW,
    );
    expect(first.status).to.not.equal('COMPLETE');
    sampler.replicaSet(rs);
    for (const p of pods) sampler.pod(p);
    const [second] = sampler.sample(
      [d],
      () => [rs],
      () => pods,
      NOW,
    );
    expect(second.steps).to.deep.equal({ COMPLETE: 1, STARTED: 1 });
  });
});

describe('controllers/deployment/planmetrics: phaseValidUntil (when a kept phase may change by time alone)', () => {
  const rs = replicaSet(web());
  const rows: Array<[string, number, Pod[], number]> = [
    ['minReadySeconds 0 → never', 0, [pod(rs, 0, '1', NOW - 1000)], Infinity],
    ['minReadySeconds 30, ready 10 s ago → in 20 s', 30, [pod(rs, 0, '1', NOW - 10_000)], NOW + 20_000],
    [
      'minReadySeconds 30, ready 10 s and 25 s ago → the first: in 5 s',
      30,
      [pod(rs, 0, '1', NOW - 10_000), pod(rs, 1, '2', NOW - 25_000)],
      NOW + 5_000,
    ],
    [
      'minReadySeconds 30, ready a minute ago → never (already COMPLETE)',
      30,
      [pod(rs, 0, '1', NOW - 60_000)],
      Infinity,
    ],
    [
      'minReadySeconds 30, not ready → never (becoming ready is a new version of the pod)',
      30,
      [pod(rs, 0, '1', 'not ready')],
      Infinity,
    ],
  ];
  for (const [name, minReadySeconds, pods, want] of rows)
    it(name, () => expect(phaseValidUntil(web({ minReadySeconds }), pods, NOW)).to.equal(want));

  it('minReadySeconds 30, a ready pod whose transition time cannot be read → now (not kept)', () => {
    const p = pod(rs, 0, '1');
    p.status!.conditions![0].lastTransitionTime = 'yesterday';
    expect(phaseValidUntil(web({ minReadySeconds: 30 }), [p], NOW)).to.equal(NOW);
  });
});
