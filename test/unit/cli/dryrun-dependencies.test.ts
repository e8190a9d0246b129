// `pacer plan` with dependencies: further Deployments in the input are the states of the decided
// one's dependencies and dependents; `--name` picks which one is decided.

import { expect } from 'chai';
import type { Deployment } from '../../../src/api/types.ts';
import { runPlan, type PlanDocument } from '../../../src/cli/dryrun.ts';
import { activePlans } from '../../../src/engine/marathon/deploymentplans.ts';

const NOW = '2025-03-01T10:00:00.000Z';

function manifest(name: string, deps: string[] = [], status?: Record<string, unknown>): string {
  return `apiVersion: pacer.dev/v1alpha1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: 3
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
        - name: ${name}
          image: nginx:1
${deps.length ? `  dependencies: [${deps.join(', ')}]\n` : ''}${status ? `status: ${JSON.stringify(status)}\n` : ''}`;
}

const dbComplete = { observedGeneration: 1, replicas: 3, updatedReplicas: 3, availableReplicas: 3, readyReplicas: 3 };
const dbStarting = { observedGeneration: 1, replicas: 3, updatedReplicas: 3, availableReplicas: 1, readyReplicas: 1 };

function plan(input: string, opts: Parameters<typeof runPlan>[2] = {}): PlanDocument {
  const r = runPlan(input, 'deps.yaml', { now: NOW, ...opts });
  expect(r.stderr).to.equal('');
  expect(r.code).to.equal(0);
  return JSON.parse(r.stdout) as PlanDocument;
}

const dependenciesReady = (doc: PlanDocument) => doc.status.conditions?.find((c) => c.type === 'DependenciesReady');
const verbs = (doc: PlanDocument) => doc.actions.map((a) => `${a.verb} ${a.kind}`);

describe('pacer plan: dependencies', () => {
  const rows: Array<{
    name: string;
    input: string;
    opts?: { name?: string };
    verbs: string[];
    condition?: { status: string; reason: string; message: string };
  }> = [
    {
      name: 'app alone: db is missing, app waits',
      input: manifest('app', ['db']),
      verbs: ['updateStatus Deployment'],
      condition: { status: 'False', reason: 'DependencyMissing', message: 'default/db not found' },
    },
    {
      name: 'app with db starting: app waits, saying what for',
      input: `${manifest('app', ['db'])}---\n${manifest('db', [], dbStarting)}`,
      verbs: ['updateStatus Deployment'],
      condition: {
        status: 'False',
        reason: 'DependenciesNotReady',
        message: 'waiting for default/db: 1 of 3 updated replicas are available',
      },
    },
    {
      name: 'app with db complete: app starts',
      input: `${manifest('app', ['db'])}---\n${manifest('db', [], dbComplete)}`,
      verbs: ['create ReplicaSet', 'update Deployment', 'updateStatus Deployment'],
      condition: { status: 'True', reason: 'DependenciesReady', message: 'default/db is complete' },
    },
    {
      name: '--name db: db starts and takes the dependents finalizer (app is in the input)',
      input: `${manifest('app', ['db'])}---\n${manifest('db')}`,
      opts: { name: 'db' },
      verbs: ['create ReplicaSet', 'update Deployment', 'updateStatus Deployment'],
    },
    {
      name: 'a cycle is named (web, depended on by api, also takes the finalizer: the last write)',
      input: `${manifest('web', ['api'])}---\n${manifest('api', ['web'], dbComplete)}`,
      verbs: ['updateStatus Deployment', 'update Deployment'],
      condition: { status: 'False', reason: 'DependencyCycle', message: 'dependency cycle: web → api → web' },
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const doc = plan(row.input, row.opts ?? {});
      expect(verbs(doc)).to.deep.equal(row.verbs);
      if (row.condition) expect(dependenciesReady(doc)).to.include(row.condition);
    });
  }

  it('the finalizer for db, and the other Deployments printed back unchanged for the next pass', () => {
    const doc = plan(`${manifest('app', ['db'])}---\n${manifest('db')}`, { name: 'default/db' });
    expect(doc.deployment).to.equal('default/db');
    expect(doc.objects[0].metadata.finalizers).to.deep.equal(['pacer.dev/dependents']);
    const names = doc.objects.map((o) => `${o.kind}/${o.metadata.name}`);
    expect(names[names.length - 1]).to.equal('Deployment/app');
  });

  it('one Deployment alone keeps its finalizers (its dependents are unknown)', () => {
    const input = manifest('db').replace('  name: db\n', '  name: db\n  finalizers: [pacer.dev/dependents]\n');
    const doc = plan(input);
    expect(doc.objects[0].metadata.finalizers).to.deep.equal(['pacer.dev/dependents']);
  });

  it('--name that matches nothing is an input error', () => {
    const r = runPlan(manifest('app'), 'deps.yaml', { now: NOW, name: 'nope' });
    expect(r.code).to.equal(2);
    expect(r.stderr).to.equal('error: deps.yaml: no Deployment "nope" (found default/app)\n');
  });

  it('a cancel request shows its fan-out: the other app stamped, then the request swapped for the stamp (and the stamp printed on it)', () => {
    // The first pass prints both Deployments with the uids the plan gave them: their plan id is computed from those.
    const first = plan(`${manifest('app', ['db'])}---\n${manifest('db', [], dbStarting)}`);
    const deployments = first.objects.filter((o): o is Deployment => o.kind === 'Deployment');
    const [active] = activePlans(deployments, Date.parse(NOW));
    const request = `rollback:${active.id}`;
    const withRequest = deployments.map((d) =>
      d.metadata.name === 'app'
        ? {
            ...d,
            metadata: {
              ...d.metadata,
              annotations: { ...d.metadata.annotations, 'pacer.dev/cancel-request': request },
            },
          }
        : d,
    );
    const r = runPlan(JSON.stringify({ apiVersion: 'v1', kind: 'List', items: withRequest }), 'cancel.json', {
      now: NOW,
      output: 'text',
    });
    expect(r.stderr).to.equal('');
    expect(r.stdout.split('\n').slice(0, 4)).to.deep.equal([
      'Deployment default/app',
      `  annotate Deployment default/db: pacer.dev/cancel=${request}`,
      `  annotate Deployment default/app: pacer.dev/cancel-request- pacer.dev/cancel=${request}`,
      `    event Normal DeploymentPlanCancelling: Deployment plan ${active.id}: cancelling (rollback) /default/app, /default/db`,
    ]);
    const doc = plan(JSON.stringify({ apiVersion: 'v1', kind: 'List', items: withRequest }));
    const db = doc.objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'db')!;
    expect(db.metadata.annotations, 'the next pass sees db stamped').to.include({ 'pacer.dev/cancel': request });
  });
});

describe("pacer plan: the plan of the decided Deployment's service", () => {
  it("text ends with the service's deploy plan, phases in dependency order; JSON carries the SDK's plan JSON", () => {
    const input = `${manifest('db')}---\n${manifest('app', ['db'])}---\n${manifest('lone')}`;
    const text = runPlan(input, 'deps.yaml', { now: NOW, output: 'text', name: 'app' });
    expect(text.code).to.equal(0);
    expect(text.stdout.split('Plan of its service:\n')[1]).to.equal(
      [
        '  deploy (serial strategy) (PENDING)',
        '  ├─ db (parallel strategy) (PENDING)',
        '  │  ├─ db-0:[db] (PENDING)',
        '  │  ├─ db-1:[db] (PENDING)',
        '  │  └─ db-2:[db] (PENDING)',
        '  └─ app (parallel strategy) (PENDING)',
        '     ├─ app-0:[app] (PENDING)',
        '     ├─ app-1:[app] (PENDING)',
        '     └─ app-2:[app] (PENDING)',
        '',
      ].join('\n'),
    );
    const doc = JSON.parse(runPlan(input, 'deps.yaml', { now: NOW, name: 'lone' }).stdout) as PlanDocument;
    expect(doc.plans!.map((p) => [p.name, p.plan.status, p.plan.phases.map((ph) => ph.name)])).to.deep.equal([
      ['deploy', 'PENDING', ['lone']],
    ]);
  });
});

describe('pacer plan: Plan resources in the input (custom plans)', () => {
  const plans = `apiVersion: pacer.dev/v1alpha1
kind: Plan
metadata: {name: waves}
spec:
  phases:
    - {name: first, steps: [db]}
    - {name: then, steps: [lone]}
`;
  it("a Plan not yet started holds the decided Deployment's rollout (no pod for the new ReplicaSet); the text shows the plan", () => {
    // lone is new: its first rollout is held by the plan, which has never been started.
    const input = `${manifest('db', [], dbComplete)}---\n${manifest('lone')}---\n${plans}`;
    const text = runPlan(input, 'waves.yaml', { now: NOW, output: 'text', name: 'lone' });
    expect(text.stderr).to.equal('');
    expect(text.stdout).to.match(/\n {2}create ReplicaSet lone-\S+ with 0 replicas\n/);
    expect(text.stdout).to.include(
      '  Progressing=Unknown PlanWaiting: Deployment waits for plan waves to be started: kubectl pacer plan start lone waves\n',
    );
    expect(text.stdout.split('Custom plan:\n')[1]).to.equal(
      [
        '  waves (serial strategy) (WAITING)',
        '  ├─ first (serial strategy) (COMPLETE)',
        '  │  └─ db (COMPLETE)',
        '  └─ then (serial strategy) (PENDING)',
        '     └─ lone (PENDING)',
        '',
      ].join('\n'),
    );
    const doc = plan(input, { name: 'lone' });
    expect(doc.plans!.map((p) => [p.name, p.plan.status])).to.deep.equal([
      ['deploy', 'PENDING'],
      ['waves', 'WAITING'],
    ]);
  });

  it('a Plan without phases is refused, naming it', () => {
    const r = runPlan(
      `${manifest('lone')}---\napiVersion: pacer.dev/v1alpha1\nkind: Plan\nmetadata: {name: p}\nspec: {}\n`,
      'waves.yaml',
      { now: NOW },
    );
    expect([r.code, r.stderr]).to.deep.equal([2, 'error: waves.yaml: document 2: Plan "p": spec.phases is required\n']);
  });
});
