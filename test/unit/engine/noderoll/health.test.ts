// The node roll's gate: the Mesos Slave Roller's "healthy" (no rollout in progress, as many
// available as desired) for Pacer Deployments and ReplicaSets, and Pacer's own eviction budgets
// (never below replicas − maxUnavailable, or a MinimumHealth Deployment's minimum).

import { expect } from 'chai';
import type { Deployment, ReplicaSet } from '../../../../src/api/types.ts';
import { pacerBudgets, unhealthyWorkloads } from '../../../../src/engine/noderoll/health.ts';
import { deployment, replicaSet } from '../fixtures.ts';

const status = (replicas: number, updated: number, available: number, observed = 1): Deployment['status'] => ({
  observedGeneration: observed,
  replicas,
  updatedReplicas: updated,
  availableReplicas: available,
});

describe('node roll: the health gate', () => {
  const rows: Array<[string, Deployment, string[]]> = [
    ['complete', deployment({ replicas: 3, status: status(3, 3, 3) }), []],
    [
      'a rollout in progress',
      deployment({ replicas: 3, status: status(4, 1, 3) }),
      ['deployment default/web: rollout in progress (1 of 3 updated)'],
    ],
    [
      'a spec not yet observed',
      deployment({ replicas: 3, generation: 2, status: status(3, 3, 3) }),
      ['deployment default/web: rollout in progress (3 of 3 updated)'],
    ],
    [
      'fewer available than desired',
      deployment({ replicas: 3, status: status(3, 3, 2) }),
      ['deployment default/web: 2 of 3 available'],
    ],
  ];
  for (const [what, d, want] of rows) {
    it(`a Deployment ${what}: ${want.length === 0 ? 'healthy' : want[0]}`, () =>
      expect(unhealthyWorkloads([d], [])).to.deep.equal(want));
  }

  it('a ReplicaSet: healthy when every replica it wants is available', () => {
    const ok = replicaSet('api-1', { replicas: 2, available: 2 });
    const short = replicaSet('api-2', { replicas: 2, available: 1 });
    expect(unhealthyWorkloads([], [ok, short])).to.deep.equal(['replicaset default/api-2: 1 of 2 available']);
  });

  it('a selector narrows the gate to the workloads it matches', () => {
    const d = deployment({ replicas: 3, status: status(3, 3, 2) });
    expect(unhealthyWorkloads([d], [], { matchLabels: { tier: 'critical' } })).to.deep.equal([]);
    const labelled = { ...d, metadata: { ...d.metadata, labels: { tier: 'critical' } } };
    expect(unhealthyWorkloads([labelled], [], { matchLabels: { tier: 'critical' } })).to.have.length(1);
  });
});

describe("node roll: Pacer's eviction budgets", () => {
  const owner = [{ uid: 'rs-1', kind: 'ReplicaSet', controller: true }];
  /** `ready` ready pods and `going` terminating ones of the ReplicaSet rs-1. */
  const podsOf = (ready: number, notReady = 0, going = 0) => [
    ...Array.from({ length: ready }, () => ({
      metadata: { ownerReferences: owner },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
    })),
    ...Array.from({ length: notReady }, () => ({
      metadata: { ownerReferences: owner },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] },
    })),
    ...Array.from({ length: going }, () => ({
      metadata: { ownerReferences: owner, deletionTimestamp: '2026-01-01T00:00:00Z' },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
    })),
  ];
  const rsOf = (size: number, current = size) =>
    replicaSet('web-1', { replicas: size, current, owned: true, uid: 'rs-1' });
  const pod = { metadata: { ownerReferences: owner } };
  interface Row {
    what: string;
    d: Deployment;
    rs: ReplicaSet;
    pods: ReturnType<typeof podsOf>;
    allowed: number;
    why?: string;
  }
  const rows: Row[] = [
    {
      what: 'RollingUpdate of 4, maxUnavailable 1, all available: one may go',
      d: deployment({ replicas: 4, maxUnavailable: 1, status: status(4, 4, 4) }),
      rs: rsOf(4),
      pods: podsOf(4),
      allowed: 1,
    },
    {
      what: 'the same with one already unavailable: none',
      d: deployment({ replicas: 4, maxUnavailable: 1, status: status(4, 4, 3) }),
      rs: rsOf(4),
      pods: podsOf(3, 1),
      allowed: 0,
      why: 'deployment default/web would fall below its minimum of 3 available (3 available)',
    },
    {
      what: 'maxUnavailable 50% of 4: two',
      d: deployment({ replicas: 4, maxUnavailable: '50%', status: status(4, 4, 4) }),
      rs: rsOf(4),
      pods: podsOf(4),
      allowed: 2,
    },
    {
      what: 'maxUnavailable 0: none while it is whole (a PodDisruptionBudget of every replica blocks a drain the same way)',
      d: deployment({ replicas: 3, maxUnavailable: 0, maxSurge: 1, status: status(3, 3, 3) }),
      rs: rsOf(3),
      pods: podsOf(3),
      allowed: 0,
      why: 'deployment default/web would fall below its minimum of 3 available (3 available)',
    },
    {
      what: 'Recreate promises nothing: all of them',
      d: deployment({ replicas: 3, type: 'Recreate', status: status(3, 3, 3) }),
      rs: rsOf(3),
      pods: podsOf(3),
      allowed: 3,
    },
    {
      what: 'rolling out, with a surge pod ready: none (its rollout takes the extra pod away itself)',
      d: deployment({ replicas: 3, maxUnavailable: 0, maxSurge: 1, status: status(4, 1, 4) }),
      rs: rsOf(3),
      pods: podsOf(3),
      allowed: 0,
      why: 'deployment default/web is rolling out (1 of 3 updated, 4 available)',
    },
    {
      what: 'a spec not yet observed: none',
      d: deployment({ replicas: 4, maxUnavailable: 1, generation: 2, status: status(4, 4, 4) }),
      rs: rsOf(4),
      pods: podsOf(4),
      allowed: 0,
      why: 'deployment default/web is rolling out (4 of 4 updated, 4 available)',
    },
    {
      what: 'a ReplicaSet still scaling down (5 pods for a size of 4): none',
      d: deployment({ replicas: 4, maxUnavailable: 1, status: status(4, 4, 4) }),
      rs: rsOf(4, 5),
      pods: podsOf(5),
      allowed: 0,
      why: 'deployment default/web is being scaled',
    },
    {
      what: 'a pod terminating (an eviction not yet in the status): none',
      d: deployment({ replicas: 4, maxUnavailable: 1, status: status(4, 4, 4) }),
      rs: rsOf(4),
      pods: podsOf(3, 0, 1),
      allowed: 0,
      why: 'deployment default/web has 1 pod(s) terminating',
    },
    {
      what: 'the status says 4 available, 3 pods are ready: the pods count',
      d: deployment({ replicas: 4, maxUnavailable: 1, status: status(4, 4, 4) }),
      rs: rsOf(4),
      pods: podsOf(3, 1),
      allowed: 0,
      why: 'deployment default/web would fall below its minimum of 3 available (3 available)',
    },
    {
      what: '4 ready pods, the status says 3 available (minReadySeconds not yet passed for one): the status counts',
      d: deployment({ replicas: 4, maxUnavailable: 1, status: status(4, 4, 3) }),
      rs: rsOf(4),
      pods: podsOf(4),
      allowed: 0,
      why: 'deployment default/web would fall below its minimum of 3 available (3 available)',
    },
  ];
  for (const r of rows) {
    it(r.what, () => {
      const b = pacerBudgets([r.d], [r.rs], r.pods)(pod);
      expect({ allowed: b?.allowed, why: b?.why }).to.deep.equal({ allowed: r.allowed, why: r.why });
    });
  }

  it('MinimumHealth keeps ceil(replicas × minimumHealthCapacity): 10 at 0.6, all available, four may go', () => {
    const d = deployment({ replicas: 10, status: status(10, 10, 10) });
    const mh: Deployment = {
      ...d,
      spec: { ...d.spec, strategy: { type: 'MinimumHealth', minimumHealth: { minimumHealthCapacity: 0.6 } } as never },
    };
    expect(pacerBudgets([mh], [rsOf(10)], podsOf(10))(pod)?.allowed).to.equal(4);
  });

  it("a pod of no Pacer Deployment has no budget of Pacer's (PodDisruptionBudgets still hold at the Eviction API)", () => {
    expect(
      pacerBudgets([], [])({ metadata: { ownerReferences: [{ uid: 'x', kind: 'ReplicaSet', controller: true }] } }),
    ).to.equal(undefined);
  });
});
