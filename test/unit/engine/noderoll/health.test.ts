// The node roll's gate: the Mesos Slave Roller's "healthy" (no rollout in progress, as many
// available as desired) for Pacer Deployments and ReplicaSets, and Pacer's own eviction budgets
// (never below replicas − maxUnavailable, or a MinimumHealth Deployment's minimum).

import { expect } from 'chai';
import type { Deployment, ReplicaSet } from '../../../../src/api/types.ts';
import { pacerBudgets, unhealthyWorkloads } from '../../../../src/engine/noderoll/health.ts';
import { deployment, replicaSet } from '../fixtures.ts';

const status = (replicas: number, updated: number, available: number, observed = 1): Deployment['status'] => ({ observedGeneration: observed, replicas, updatedReplicas: updated, availableReplicas: available });

describe('node roll: the health gate', () => {
  const rows: Array<[string, Deployment, string[]]> = [
    ['complete', deployment({ replicas: 3, status: status(3, 3, 3) }), []],
    ['a rollout in progress', deployment({ replicas: 3, status: status(4, 1, 3) }), ['deployment default/web: rollout in progress (1 of 3 updated)']],
    ['a spec not yet observed', deployment({ replicas: 3, generation: 2, status: status(3, 3, 3) }), ['deployment default/web: rollout in progress (3 of 3 updated)']],
    ['fewer available than desired', deployment({ replicas: 3, status: status(3, 3, 2) }), ['deployment default/web: 2 of 3 available']],
  ];
  for (const [what, d, want] of rows) {
    it(`a Deployment ${what}: ${want.length === 0 ? 'healthy' : want[0]}`, () => expect(unhealthyWorkloads([d], [])).to.deep.equal(want));
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

describe('node roll: Pacer\'s eviction budgets', () => {
  function podOf(d: Deployment): { rs: ReplicaSet; pod: { metadata: { ownerReferences: Array<{ uid: string; kind: string; controller: boolean }> } } } {
    const rs = replicaSet('web-1', { replicas: d.spec.replicas ?? 1, owned: true, uid: 'rs-1' });
    return { rs, pod: { metadata: { ownerReferences: [{ uid: 'rs-1', kind: 'ReplicaSet', controller: true }] } } };
  }
  const rows: Array<[string, Deployment, number]> = [
    ['RollingUpdate of 4, maxUnavailable 1, all available: one may go', deployment({ replicas: 4, maxUnavailable: 1, status: status(4, 4, 4) }), 1],
    ['the same with one already unavailable: none', deployment({ replicas: 4, maxUnavailable: 1, status: status(4, 4, 3) }), 0],
    ['maxUnavailable 50% of 4: two', deployment({ replicas: 4, maxUnavailable: '50%', status: status(4, 4, 4) }), 2],
    ['Recreate promises nothing: all of them', deployment({ replicas: 3, type: 'Recreate', status: status(3, 3, 3) }), 3],
  ];
  for (const [what, d, allowed] of rows) {
    it(what, () => {
      const { rs, pod } = podOf(d);
      const b = pacerBudgets([d], [rs])(pod);
      expect(b?.allowed).to.equal(allowed);
      if (allowed === 0) expect(b?.why).to.equal('deployment default/web would fall below its minimum of 3 available (3 available)');
    });
  }

  it('MinimumHealth keeps ceil(replicas × minimumHealthCapacity): 10 at 0.6, all available, four may go', () => {
    const d = deployment({ replicas: 10, status: status(10, 10, 10) });
    const mh: Deployment = { ...d, spec: { ...d.spec, strategy: { type: 'MinimumHealth', minimumHealth: { minimumHealthCapacity: 0.6 } } as never } };
    const { rs, pod } = podOf(mh);
    expect(pacerBudgets([mh], [rs])(pod)?.allowed).to.equal(4);
  });

  it('a pod of no Pacer Deployment has no budget of Pacer\'s (PodDisruptionBudgets still hold at the Eviction API)', () => {
    expect(pacerBudgets([], [])({ metadata: { ownerReferences: [{ uid: 'x', kind: 'ReplicaSet', controller: true }] } })).to.equal(undefined);
  });
});
