// `pacer plan` on a MinimumHealth Deployment: the same engine path, pass after pass, with the
// Marathon side-by-side numbers and examples/minimum-health.yaml's bounds.

import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { runPlan, type PlanDocument } from '../../../src/cli/dryrun.ts';

const NOW = '2025-03-01T10:00:00.000Z';

function plan(input: string, now = NOW): PlanDocument {
  const r = runPlan(input, 'deploy.yaml', { now });
  expect(r.stderr).to.equal('');
  expect(r.code).to.equal(0);
  return JSON.parse(r.stdout) as PlanDocument;
}

type Obj = Record<string, any>;

/** The objects of a pass as the next input; `ready(rs)` says how many of its pods are available. */
function nextInput(doc: PlanDocument, ready: (rs: Obj) => number): string {
  const items = doc.objects.map((o) => {
    if (o.kind !== 'ReplicaSet') return o;
    const n = (o as Obj).spec.replicas ?? 1;
    const a = Math.min(n, ready(o as Obj));
    return {
      ...o,
      status: { replicas: n, readyReplicas: a, availableReplicas: a, observedGeneration: o.metadata.generation },
    };
  });
  return JSON.stringify({ apiVersion: 'v1', kind: 'List', items });
}

/** Runs passes until one has no actions; returns the scale/create lines and the last document. */
function rollout(input: string, ready: (rs: Obj) => number): { seen: string[]; last: PlanDocument } {
  const seen: string[] = [];
  let doc = plan(input);
  for (let i = 1; i < 30; i++) {
    for (const a of doc.actions) {
      if (a.verb === 'create') seen.push(`create ${a.replicas}`);
      if (a.verb === 'scale') seen.push(`${a.name.endsWith('-old') ? 'old' : 'new'} ${a.from}->${a.replicas}`);
    }
    if (doc.actions.length === 0) return { seen, last: doc };
    doc = plan(nextInput(doc, ready), new Date(Date.parse(NOW) + i * 1000).toISOString());
  }
  throw new Error('no convergence');
}

/** The Deployment at nginx:2 with its old ReplicaSet at nginx:1, all `n` available. */
function upgrade(n: number, minimumHealth: Obj): string {
  const deployment = {
    apiVersion: 'pacer.dev/v1alpha1',
    kind: 'Deployment',
    metadata: { name: 'db', uid: 'db-uid', generation: 2, annotations: { 'pacer.dev/revision': '1' } },
    spec: {
      replicas: n,
      selector: { matchLabels: { app: 'db' } },
      strategy: { type: 'MinimumHealth', minimumHealth },
      template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'db', image: 'nginx:2' }] } },
    },
  };
  const old = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: 'db-old',
      labels: { app: 'db', 'pod-template-hash': 'old' },
      annotations: { 'pacer.dev/revision': '1', 'pacer.dev/desired-replicas': String(n) },
      ownerReferences: [
        {
          apiVersion: 'pacer.dev/v1alpha1',
          kind: 'Deployment',
          name: 'db',
          uid: 'db-uid',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
      creationTimestamp: '2025-03-01T09:00:00.000Z',
    },
    spec: {
      replicas: n,
      selector: { matchLabels: { app: 'db', 'pod-template-hash': 'old' } },
      template: {
        metadata: { labels: { app: 'db', 'pod-template-hash': 'old' } },
        spec: { containers: [{ name: 'db', image: 'nginx:1' }] },
      },
    },
    status: { replicas: n, readyReplicas: n, availableReplicas: n },
  };
  return [deployment, old].map((o) => stringify(o)).join('---\n');
}

describe('cli/plan runPlan: MinimumHealth', () => {
  it("Marathon's db (10 at 0.6, side by side): 6 old beside 6 new, then the new version takes over", () => {
    const { seen, last } = rollout(upgrade(10, { minimumHealthCapacity: 0.6 }), (rs) => rs.spec.replicas);
    expect(seen).to.deep.equal(['create 2', 'old 10->6', 'new 2->6', 'old 6->0', 'new 6->10']);
    expect(last.status.conditions!.find((c) => c.type === 'Progressing')!.reason).to.equal('NewReplicaSetAvailable');
    expect(last.status.ready).to.equal('10/10');
  });

  it("Marathon's db with maximumOverCapacity 0.2: never above 12, never below 6 available, one new pod ready per pass", () => {
    let newReady = 0;
    const { seen, last } = rollout(upgrade(10, { minimumHealthCapacity: 0.6, maximumOverCapacity: 0.2 }), (rs) => {
      if (rs.metadata.name === 'db-old') return rs.spec.replicas;
      newReady = Math.min(rs.spec.replicas, newReady + 1);
      return newReady;
    });
    // 2 new start into the spare slots while 4 old stop (10 → 6, the first pass), the new one fills
    // to 6; then old pods go only as new ones turn available, and new ones refill the freed slots
    // in the next pass. One new pod turns available per pass, so each exchange is of two.
    expect(seen).to.deep.equal([
      'create 2',
      'old 10->6',
      'new 2->6',
      'old 6->4',
      'new 6->8',
      'old 4->2',
      'new 8->10',
      'old 2->0',
    ]);
    expect(last.status.conditions!.find((c) => c.type === 'Progressing')!.reason).to.equal('NewReplicaSetAvailable');
  });

  it('examples/minimum-health.yaml: the first pass starts all 10 replicas (nothing old to keep) with max-replicas 12', () => {
    const file = fileURLToPath(new URL('../../../examples/minimum-health.yaml', import.meta.url));
    const doc = plan(readFileSync(file, 'utf8'));
    expect(doc.actions[0]).to.deep.include({ verb: 'create', kind: 'ReplicaSet', replicas: 10 });
    const rs = doc.objects.find((o) => o.kind === 'ReplicaSet')!;
    expect(rs.metadata.annotations).to.deep.include({
      'pacer.dev/desired-replicas': '10',
      'pacer.dev/max-replicas': '12',
    });
  });

  it("an out-of-range capacity is reported as InvalidSpec with Marathon's words, and nothing is written but status", () => {
    const doc = plan(upgrade(10, { minimumHealthCapacity: 1.2 }));
    expect(doc.actions.map((a) => a.verb)).to.deep.equal(['updateStatus']);
    const c = doc.status.conditions!.find((x) => x.type === 'InvalidSpec')!;
    expect(c.message).to.equal(
      'spec.strategy.minimumHealth.minimumHealthCapacity: Invalid value: 1.2: got 1.2, expected between 0.0 and 1.0',
    );
  });
});
