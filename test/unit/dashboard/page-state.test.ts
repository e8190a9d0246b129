// The page's model (web/state.ts), run under Node: a snapshot, then changes; the home page's rows
// and counts; a Deployment's revisions with their pods.

import { expect } from 'chai';
import type { Snapshot } from '../../../src/dashboard/api.ts';
import { deploymentView, podView, replicaSetView } from '../../../src/dashboard/model.ts';
import { applyChanges, counts, fromSnapshot, frozen, revisions, rows, zonesInWords } from '../../../web/state.ts';
import { deployment, pod, replicaSet } from '../plugin/fixtures.ts';

const done = { observedGeneration: 1, replicas: 3, updatedReplicas: 3, availableReplicas: 3 };
const web = deployment('web', { annotations: { 'pacer.dev/revision': '2' }, status: done });
const api = deployment('api', { paused: true, status: done });
const old = replicaSet(web, 'old', { revision: 1, replicas: 0 });
const cur = replicaSet(web, 'new', { revision: 2, replicas: 3 });
const other = replicaSet(api, 'x', { revision: 1, replicas: 3 });

const snapshot: Snapshot = {
  config: { namespace: null, readOnly: false, server: 'https://kube' },
  deployments: [deploymentView(web), deploymentView(api)],
  replicaSets: [old, cur, other].map((r) => replicaSetView(r)!),
  pods: [pod(cur, 'b'), pod(cur, 'a'), pod(other, 'z')].map((p) => podView(p)!),
  nodeRolls: [],
  freeze: [],
  sources: [],
  planResources: [],
};

describe('web/state: the page model', () => {
  it('rows: by namespace then name, filtered by a part of the name (any case) and a state', () => {
    const m = fromSnapshot(snapshot);
    expect(rows(m, { name: '', state: '' }).map((d) => d.name)).to.deep.equal(['api', 'web']);
    expect(rows(m, { name: 'WE', state: '' }).map((d) => d.name)).to.deep.equal(['web']);
    expect(rows(m, { name: '', state: 'paused' }).map((d) => d.name)).to.deep.equal(['api']);
    expect(rows(m, { name: 'web', state: 'paused' })).to.deep.equal([]);
  });

  it('counts: every state, zeros included', () => {
    expect(counts(fromSnapshot(snapshot))).to.deep.equal({
      progressing: 0,
      complete: 1,
      paused: 1,
      waiting: 0,
      'deadline-exceeded': 0,
      'analysis-failing': 0,
      invalid: 0,
    });
  });

  it("revisions: the Deployment's ReplicaSets newest first, each with its pods by name, the current one marked", () => {
    const m = fromSnapshot(snapshot);
    const tree = revisions(m, m.deployments.get('default/web')!);
    expect(tree.map((n) => [n.replicaSet.name, n.current, n.pods.map((p) => p.name)])).to.deep.equal([
      ['web-new', true, ['web-new-a', 'web-new-b']],
      ['web-old', false, []],
    ]);
  });

  it('changes: puts and deletes in order; the untouched maps stay the same objects', () => {
    const m = fromSnapshot(snapshot);
    const paused = { ...deploymentView(web), state: 'paused' as const };
    const next = applyChanges(m, [
      { kind: 'deployment', op: 'put', obj: paused },
      { kind: 'deployment', op: 'delete', namespace: 'default', name: 'api' },
      { kind: 'pod', op: 'delete', namespace: 'default', name: 'web-new-a' },
    ]);
    expect([...next.deployments.values()].map((d) => [d.name, d.state])).to.deep.equal([['web', 'paused']]);
    expect(next.pods.has('default/web-new-a')).to.equal(false);
    expect(next.replicaSets).to.equal(m.replicaSets);
    expect(m.deployments.size, 'the old model is left as it was').to.equal(2);
  });

  it('the freeze switch, the node rolls and the sources follow their changes; the other maps stay as they were', () => {
    const m = fromSnapshot(snapshot);
    expect(frozen(m)).to.equal(undefined);
    const freeze = { namespace: 'pacer-system', name: 'pacer-freeze', reason: 'incident 42', since: '' };
    const on = applyChanges(m, [
      { kind: 'freeze', op: 'put', obj: freeze },
      { kind: 'source', op: 'put', obj: { namespace: '', name: 'noderolls', synced: true, problem: '' } },
    ]);
    expect(frozen(on)).to.deep.equal(freeze);
    expect(on.sources.get('/noderolls')?.synced).to.equal(true);
    expect(on.deployments).to.equal(m.deployments);
    const off = applyChanges(on, [{ kind: 'freeze', op: 'delete', namespace: 'pacer-system', name: 'pacer-freeze' }]);
    expect(frozen(off)).to.equal(undefined);
    expect(frozen(on), 'the model before is left as it was').to.deep.equal(freeze);
  });

  it('zonesInWords: zones by name with their counts, a node without a zone named so', () => {
    expect(zonesInWords({ c: 2, a: 1, b: 0 })).to.equal('a 1, b 0, c 2');
    expect(zonesInWords({ '': 1 })).to.equal('(no zone) 1');
    expect(zonesInWords({})).to.equal('—');
  });
});
