import { expect } from 'chai';
import type { Pod } from '../../../../src/api/types.ts';
import { oldPodsRunning } from '../../../../src/engine/kubernetes/recreate.ts';
import { replicaSet } from '../fixtures.ts';

function pod(owner: string, phase: string | undefined): Pod {
  return {
    metadata: {
      name: `p-${owner}-${String(phase)}`,
      labels: { app: 'web' },
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: owner, uid: `uid-${owner}`, controller: true },
      ],
    },
    status: phase === undefined ? {} : { phase },
  };
}

describe('engine/recreate', () => {
  const newRS = replicaSet('web-new', { replicas: 0 });
  const old = replicaSet('web-old', { replicas: 0, current: 0 });
  const all = [old, newRS];
  const rows: Array<[string, Pod[], boolean]> = [
    ['no pods', [], false],
    ['an old Running pod', [pod('web-old', 'Running')], true],
    ['an old Pending pod', [pod('web-old', 'Pending')], true],
    ['an old Unknown pod counts as running', [pod('web-old', 'Unknown')], true],
    ['an old pod without a phase counts as running', [pod('web-old', undefined)], true],
    ['old Succeeded and Failed pods do not count', [pod('web-old', 'Succeeded'), pod('web-old', 'Failed')], false],
    ['pods of the new ReplicaSet do not count', [pod('web-new', 'Running')], false],
    ["pods of a ReplicaSet that is not the Deployment's do not count", [pod('web-zzz', 'Running')], false],
  ];
  for (const [name, pods, want] of rows) {
    it(`${name} → ${want}`, () => expect(oldPodsRunning(newRS, [old], all, pods)).to.equal(want));
  }
  it('old ReplicaSets still reporting replicas → true', () => {
    expect(oldPodsRunning(newRS, [replicaSet('web-old', { replicas: 0, current: 1 })], all, [])).to.equal(true);
  });
  it('an old ReplicaSet whose status has not observed its spec (just scaled up, then down; no pod seen yet) → true (Pacer)', () => {
    const unobserved = replicaSet('web-old', { replicas: 0, current: 0 });
    unobserved.metadata.generation = 3;
    expect(oldPodsRunning(newRS, [unobserved], all, [])).to.equal(true);
    unobserved.status = { ...unobserved.status!, observedGeneration: 3 };
    expect(oldPodsRunning(newRS, [unobserved], all, [])).to.equal(false);
  });
  it('an old ReplicaSet at 0 whose status counts terminating pods the pod cache does not show yet → true until they are gone (Pacer)', () => {
    const draining = replicaSet('web-old', { replicas: 0, current: 0 });
    draining.status = { ...draining.status!, terminatingReplicas: 2 };
    expect(oldPodsRunning(newRS, [draining], all, [])).to.equal(true);
    draining.status = { ...draining.status!, terminatingReplicas: 0 };
    expect(oldPodsRunning(newRS, [draining], all, [])).to.equal(false);
  });
});
