// `kubectl pacer deployments` (the table) and `deployment cancel ID [--force]` (what it pauses,
// the 404, the rollback's order and per-app plan), without a cluster.

import { expect } from 'chai';
import type { Deployment, DeploymentStatus } from '../../../src/api/types.ts';
import { activePlans } from '../../../src/engine/plans.ts';
import type { DeploymentPlan } from '../../../src/engine/plans.ts';
import { CANCEL_MESSAGES, forceCancelPlan, planCancelRollback, plansTable, rollbackOrder } from '../../../src/plugin/plans.ts';
import { runPlugin } from '../../../src/plugin/program.ts';
import { T0, deployment, replicaSet } from './fixtures.ts';

function buffers() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s) } }, out, err };
}

/** A rollout under way: revision 2, one old replica left. */
const rolling: DeploymentStatus = {
  observedGeneration: 2, replicas: 4, updatedReplicas: 1, availableReplicas: 3,
  conditions: [{ type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', lastTransitionTime: new Date(T0).toISOString() }],
};

function app(name: string, o: { deps?: string[]; paused?: boolean; deleting?: boolean } = {}): Deployment {
  const d = deployment(name, { generation: 2, status: rolling, annotations: { 'pacer.dev/revision': '2' }, ...(o.paused ? { paused: true } : {}) });
  if (o.deps) d.spec.dependencies = o.deps;
  if (o.deleting) d.metadata.deletionTimestamp = new Date(T0 + 1000).toISOString();
  return d;
}

describe('plugin/plans', () => {
  it('the table: ID, AFFECTED APPS, STEP, CURRENT ACTIONS, laid out like kubectl get', () => {
    const active: DeploymentPlan[] = [{
      id: '0b6a2a4c-1d2e-8f00-9abc-0123456789ab', version: '2026-03-01T10:00:00.000Z', affectedApps: ['/default/app', '/default/db'], affectedPods: [],
      steps: [{ actions: [{ action: 'RestartApplication', app: '/default/db' }] }, { actions: [{ action: 'RestartApplication', app: '/default/app' }] }],
      currentActions: [{ action: 'RestartApplication', app: '/default/db', readinessCheckResults: [] }], currentStep: 1, totalSteps: 2,
    }, {
      id: '11111111-2222-8333-8444-555555555555', version: '2026-03-01T10:00:01.000Z', affectedApps: ['/shop/web'], affectedPods: [],
      steps: [{ actions: [{ action: 'StartApplication', app: '/shop/web' }] }, { actions: [{ action: 'ScaleApplication', app: '/shop/web' }] }],
      currentActions: [{ action: 'ScaleApplication', app: '/shop/web', readinessCheckResults: [] }], currentStep: 2, totalSteps: 2,
    }];
    expect(plansTable(active)).to.equal(
      'ID                                     AFFECTED APPS              STEP   CURRENT ACTIONS\n' +
      '0b6a2a4c-1d2e-8f00-9abc-0123456789ab   /default/app,/default/db   1/2    RestartApplication /default/db\n' +
      '11111111-2222-8333-8444-555555555555   /shop/web                  2/2    ScaleApplication /shop/web\n');
  });

  describe('cancel --force: every affected app paused where it stands', () => {
    const rows: Array<[string, Deployment[], string[]]> = [
      ['db ← app rolling: both paused', [app('db'), app('app', { deps: ['db'] })], ['pause default/app', 'pause default/db']],
      ['one already paused: left as it is', [app('db', { paused: true }), app('app', { deps: ['db'] })], ['pause default/app', 'already-paused default/db']],
      ['one being deleted: not paused', [app('db', { deleting: true }), app('app', { deps: ['db'], deleting: true })], ['deleting default/app', 'deleting default/db']],
    ];
    for (const [name, items, want] of rows) {
      it(name, () => {
        const active = activePlans(items, T0);
        expect(active).to.have.length(1);
        expect(forceCancelPlan(items, active, active[0].id).map((p) => `${p.verb} ${p.namespace}/${p.name}`)).to.deep.equal(want);
      });
    }
    it('an unknown ID: Marathon\'s 404 message', () => {
      const items = [app('db')];
      expect(() => forceCancelPlan(items, activePlans(items, T0), 'nope')).to.throw('DeploymentPlan nope does not exist');
    });
    it('kubectl-like lines', () => {
      expect(CANCEL_MESSAGES.paused('db')).to.equal('deployment.pacer.dev/db paused');
    });
  });

  describe('cancel (rollback): reverse dependency order, each app back to the revision it had before, forced', () => {
    const order: Array<[string, Deployment[], string[]]> = [
      ['db ← app: app first', [app('db'), app('app', { deps: ['db'] })], ['default/app', 'default/db']],
      ['a; b→a; c→a; d→b: d, then b and c, then a', [app('a'), app('b', { deps: ['a'] }), app('c', { deps: ['a'] }), app('d', { deps: ['b'] })], ['default/d', 'default/b', 'default/c', 'default/a']],
      ['one being deleted: left out', [app('db'), app('app', { deps: ['db'], deleting: true })], ['default/db']],
    ];
    for (const [name, items, want] of order) {
      it(name, () => {
        const active = activePlans(items, T0);
        expect(rollbackOrder(items, active, active[0].id).map((d) => `${d.metadata.namespace}/${d.metadata.name}`)).to.deep.equal(want);
      });
    }
    it('an unknown ID: Marathon\'s 404 message', () => {
      expect(() => rollbackOrder([app('db')], activePlans([app('db')], T0), 'nope')).to.throw('DeploymentPlan nope does not exist');
    });

    const templateOf = (plan: ReturnType<typeof planCancelRollback>) => plan.kind === 'patch' ? (plan.patch.find((op) => op.path === '/spec/template')!.value as { spec: { containers: Array<{ image: string }> } }).spec.containers[0].image : undefined;
    it('rolled out (its template has a ReplicaSet): back to the previous revision, with the force annotation', () => {
      const d = deployment('db', { image: 'nginx:1.28', annotations: { 'pacer.dev/revision': '2' } });
      const plan = planCancelRollback(d, [replicaSet(d, 'aaa', { revision: 1, image: 'nginx:1.27' }), replicaSet(d, 'bbb', { revision: 2, image: 'nginx:1.28' })]);
      expect(templateOf(plan)).to.equal('nginx:1.27');
      expect(plan.kind === 'patch' && plan.patch.find((op) => op.path === '/metadata/annotations')!.value).to.deep.include({ 'pacer.dev/force': 'true' });
    });
    it('waited on its dependencies (no ReplicaSet for its template yet): back to the latest revision', () => {
      const d = deployment('app', { image: 'nginx:1.29', annotations: { 'pacer.dev/revision': '2' } });
      const plan = planCancelRollback(d, [replicaSet(d, 'aaa', { revision: 1, image: 'nginx:1.27' }), replicaSet(d, 'bbb', { revision: 2, image: 'nginx:1.28' })]);
      expect(templateOf(plan)).to.equal('nginx:1.28');
    });
    it('no history: kubectl\'s error', () => {
      const d = deployment('app', { image: 'nginx:1.27' });
      expect(() => planCancelRollback(d, [replicaSet(d, 'aaa', { revision: 1, image: 'nginx:1.27' })])).to.throw('no rollout history found for deployment "app"');
    });
  });

  it('cancel without a reachable cluster: the connection error, exit 1', async () => {
    const b = buffers();
    expect(await runPlugin(['deployment', 'cancel', 'abc', '--kubeconfig', '/nonexistent/kubeconfig'], b.io)).to.equal(1);
    expect(b.err.join('')).to.match(/^error: /);
    expect(b.out).to.deep.equal([]);
  });

  it('deployments --help names its flags', async () => {
    const b = buffers();
    expect(await runPlugin(['deployments', '--help'], b.io)).to.equal(0);
    expect(b.out.join('')).to.match(/^Usage: kubectl pacer deployments \[options\]/);
    expect(b.out.join('')).to.contain('--all-namespaces').and.contain('--output <format>');
  });
});
