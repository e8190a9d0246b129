import { expect } from 'chai';
import { parse } from 'yaml';
import { runPlan, type PlanDocument } from '../../../src/cli/dryrun.ts';

const NOW = '2025-03-01T10:00:00.000Z';

const DEPLOYMENT = `apiVersion: pacer.dev/v1alpha1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: nginx:1
`;

function plan(input: string, opts: Parameters<typeof runPlan>[2] = { now: NOW }): PlanDocument {
  const r = runPlan(input, 'deploy.yaml', opts);
  expect(r.stderr).to.equal('');
  expect(r.code).to.equal(0);
  return JSON.parse(r.stdout) as PlanDocument;
}

/** The next input: the objects of this pass, every ReplicaSet caught up (all replicas available). */
function settled(doc: PlanDocument): string {
  const objs = doc.objects.map((o) => {
    if (o.kind !== 'ReplicaSet') return o;
    const n = (o as { spec: { replicas?: number } }).spec.replicas ?? 1;
    return {
      ...o,
      status: { replicas: n, readyReplicas: n, availableReplicas: n, observedGeneration: o.metadata.generation },
    };
  });
  return JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objs });
}

describe('cli/plan runPlan', () => {
  it('plans the first pass of a hand-written Deployment', () => {
    const doc = plan(DEPLOYMENT);
    expect(doc.deployment).to.equal('default/web');
    expect(doc.actions.map((a) => a.verb)).to.deep.equal(['create', 'update', 'updateStatus']);
    expect(doc.actions[0]).to.deep.include({ kind: 'ReplicaSet', replicas: 3 });
    expect(Object.keys(doc.actions[0]).sort()).to.deep.equal(['kind', 'name', 'replicas', 'verb']);
    expect(doc.requeueAfterSeconds).to.equal(600);
    const rs = doc.objects[1];
    expect(rs.metadata).to.deep.include({ creationTimestamp: NOW, generation: 1, namespace: 'default' });
    expect(rs.metadata.uid).to.be.a('string');
    expect(rs.metadata.ownerReferences![0]).to.deep.include({
      kind: 'Deployment',
      name: 'web',
      controller: true,
      blockOwnerDeletion: true,
    });
    expect(doc.status.conditions!.map((c) => c.lastUpdateTime)).to.deep.equal([NOW, NOW]);
  });

  it('feeds objects back in, pass after pass, until a pass has no actions', () => {
    let input = DEPLOYMENT;
    let doc = plan(input);
    let passes = 1;
    while (doc.actions.length > 0 && passes < 10) {
      input = settled(doc);
      doc = plan(input, { now: new Date(Date.parse(NOW) + passes * 1000).toISOString() });
      passes++;
    }
    expect(doc.actions).to.deep.equal([]);
    expect(doc.status.conditions!.find((c) => c.type === 'Progressing')!.reason).to.equal('NewReplicaSetAvailable');
    expect(doc.status.ready).to.equal('3/3');
    expect(doc.requeueAfterSeconds).to.equal(null);
    // then a new image rolls out, one step per pass, and finishes
    const objs = (JSON.parse(input) as { items: Array<Record<string, any>> }).items;
    objs[0].spec.template.spec.containers[0].image = 'nginx:2';
    objs[0].metadata.generation = 2;
    input = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objs });
    const seen: string[] = [];
    for (let i = 0; i < 20; i++) {
      doc = plan(input, { now: new Date(Date.parse(NOW) + (100 + i) * 1000).toISOString() });
      seen.push(...doc.actions.map((a) => `${a.verb}${a.from !== undefined ? ` ${a.from}->${a.replicas}` : ''}`));
      if (doc.actions.length === 0) break;
      input = settled(doc);
    }
    expect(doc.actions).to.deep.equal([]);
    expect(seen).to.include('scale 3->2');
    expect(
      doc.objects
        .filter((o) => o.kind === 'ReplicaSet')
        .map((o) => (o as { spec: { replicas: number } }).spec.replicas)
        .sort(),
    ).to.deep.equal([0, 3]);
  });

  it('reads multi-document YAML with ReplicaSets and Pods, and writes yaml and text', () => {
    const rs = `---
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: web-old
  labels: {app: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx:0}]}
status: {replicas: 3, availableReplicas: 3, readyReplicas: 3}
---
apiVersion: v1
kind: Pod
metadata: {name: p1, labels: {app: web}}
status: {phase: Running}
`;
    const y = runPlan(DEPLOYMENT + rs, 'deploy.yaml', { now: NOW, output: 'yaml' });
    expect(y.code).to.equal(0);
    const doc = parse(y.stdout) as PlanDocument;
    expect(doc.actions[0]).to.deep.include({ verb: 'update', kind: 'ReplicaSet', name: 'web-old' }); // adopted
    const t = runPlan(DEPLOYMENT + rs, 'deploy.yaml', { now: NOW, output: 'text' });
    expect(t.stdout).to.match(/^Deployment default\/web\n/);
    expect(t.stdout).to.contain('create ReplicaSet web-');
  });

  describe('unusable input: exit 2 and one line naming file, document and problem', () => {
    const rows: Array<[string, string, RegExp]> = [
      [
        'no Deployment',
        'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n',
        /^error: deploy\.yaml: no Deployment \(pacer\.dev\/v1alpha1 or apps\/v1\) or NodeRoll found\n$/,
      ],
      [
        'two Deployments',
        `${DEPLOYMENT}---\n${DEPLOYMENT}`,
        /^error: deploy\.yaml: document 2: more than one Deployment named default\/web/,
      ],
      [
        'an unsupported kind',
        `${DEPLOYMENT}---\napiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: x}\n`,
        /^error: deploy\.yaml: document 2: unsupported object apps\/v1 StatefulSet "x"/,
      ],
      ['broken YAML', `${DEPLOYMENT}---\nkind: [\n`, /^error: deploy\.yaml: document 2: /],
      [
        'no name',
        'apiVersion: pacer.dev/v1alpha1\nkind: Deployment\nmetadata: {}\nspec: {}\n',
        /^error: deploy\.yaml: document 1: pacer\.dev\/v1alpha1 Deployment: metadata\.name is required\n$/,
      ],
      ['not an object', '- 1\n- 2\n', /^error: deploy\.yaml: document 1: expected a Kubernetes object/],
    ];
    for (const [name, input, want] of rows) {
      it(name, () => {
        const r = runPlan(input, 'deploy.yaml', { now: NOW });
        expect(r.code).to.equal(2);
        expect(r.stdout).to.equal('');
        expect(r.stderr).to.match(want);
        expect(r.stderr.trimEnd().split('\n')).to.have.length(1);
      });
    }
    it('a malformed --now', () => {
      const r = runPlan(DEPLOYMENT, 'deploy.yaml', { now: 'yesterday' });
      expect([r.code, r.stderr]).to.deep.equal([2, 'error: --now: not an RFC 3339 time: "yesterday"\n']);
    });
  });

  it('an apps/v1 Deployment is planned as Pacer controls it in native mode: owned as apps/v1, upstream revision keys', () => {
    const doc = plan(DEPLOYMENT.replace('apiVersion: pacer.dev/v1alpha1', 'apiVersion: apps/v1'));
    expect(doc.actions.map((a) => a.verb)).to.deep.equal(['create', 'update', 'updateStatus']);
    const rs = doc.objects[1];
    expect(rs.metadata.ownerReferences![0]).to.deep.include({ apiVersion: 'apps/v1', kind: 'Deployment' });
    expect(rs.metadata.annotations).to.deep.include({ 'deployment.kubernetes.io/revision': '1' });
    expect(Object.keys(rs.metadata.annotations ?? {}).filter((k) => k.startsWith('pacer.dev/'))).to.deep.equal([]);
  });

  it('JSON input works as well as YAML', () => {
    const obj = parse(DEPLOYMENT);
    expect(plan(JSON.stringify(obj)).actions[0].verb).to.equal('create');
  });
});
