// Custom plans on the simulated cluster with the controller in-process, driven by the one
// implementation of the plan commands (src/planops/): a canary phase then a parallel one over three
// Deployments; start, continue on the canary, a force-complete that lets the plan go on without a
// step, and stop (every Deployment restarted and held). What the controller shows is checked on
// the Deployments (Progressing, ReplicaSet sizes) and on the Plan (its status, its Events).

import { expect } from 'chai';
import type { PlanResource, ReplicaSet } from '../../src/api/types.ts';
import { DEPLOYMENTS, PLANS, REPLICASETS } from '../../src/kube/client.ts';
import { operate } from '../../src/planops/service.ts';
import type { PlanCommand } from '../../src/planops/service.ts';
import {
  condition,
  createNamespace,
  deploymentManifest,
  eventually,
  startCluster,
  waitComplete,
} from './fixtures/cluster.ts';
import type { Cluster } from './fixtures/cluster.ts';

describe('custom plans: a Plan resource steered by the plan commands (simulated cluster)', function () {
  this.timeout(120_000);
  const ns = 'regions';
  let c: Cluster;
  const names = ['eu', 'us', 'ap'];
  const run = (cmd: PlanCommand) => operate({ client: c.client, namespace: ns, component: 'test' }, 'eu', cmd);
  const progressing = async (name: string) => condition(await c.client.getDeployment(ns, name), 'Progressing');
  const planStatus = async () => (await c.client.get<PlanResource>(PLANS, ns, 'waves')).status;
  /** "revision:replicas" of each ReplicaSet of `name`, by revision. */
  async function sizes(name: string): Promise<string[]> {
    const list = await c.client.list<ReplicaSet>(REPLICASETS, ns);
    return list.items
      .filter((rs) => rs.metadata.name?.startsWith(`${name}-`))
      .map((rs) => `${rs.metadata.annotations?.['pacer.dev/revision']}:${rs.spec.replicas}`)
      .sort();
  }
  const setImage = (name: string, image: string) =>
    c.client.patchDeployment(ns, name, { spec: { template: { spec: { containers: [{ name, image }] } } } });

  before(async () => {
    c = await startCluster({ podStartMs: 20, podReadyMs: 30 });
    createNamespace(c.sim, ns);
    for (const name of names) await c.client.create(DEPLOYMENTS, ns, deploymentManifest(ns, name, { replicas: 2 }));
  });
  after(() => c?.stop());

  it('setup: three Deployments complete; a Plan with a canary phase (one continue) and a parallel one', async () => {
    for (const name of names) await waitComplete(c.client, ns, name, '1');
    await c.client.create<PlanResource>(PLANS, ns, {
      apiVersion: 'pacer.dev/v1alpha1',
      kind: 'Plan',
      metadata: { name: 'waves', namespace: ns },
      spec: {
        phases: [
          { name: 'canary', strategy: 'serial-canary', requiredProceeds: 1, steps: ['eu'] },
          { name: 'rest', strategy: 'parallel', steps: ['us', 'ap'] },
        ],
      },
    });
    await eventually('the plan COMPLETE', async () => (await planStatus())?.status === 'COMPLETE');
  });

  it('start, then continue on the canary: eu waits for its continue, us and ap for their turn, then all roll', async () => {
    for (const name of names) await setImage(name, 'nginx:2');
    expect(await run({ op: 'start', plan: 'waves' })).to.deep.equal({
      code: 200,
      message: 'Received cmd: start waves with parameters: {}',
      warnings: [],
    });
    await eventually(
      'eu waits for the canary continue',
      async () =>
        (await progressing('eu'))?.message ===
        'Deployment waits for plan waves: canary step eu waits for kubectl pacer plan continue eu waves canary',
    );
    await eventually('us waits its turn', async () => (await progressing('us'))?.reason === 'PlanPending');
    expect(await progressing('us')).to.include({
      status: 'Unknown',
      message: 'Deployment waits for its turn in plan waves (phase rest)',
    });
    for (const name of names) expect(await sizes(name), name).to.deep.equal(['1:2', '2:0']);
    expect((await run({ op: 'continue', plan: 'waves', phase: 'canary' })).code).to.equal(200);
    for (const name of names) await waitComplete(c.client, ns, name, '2');
    await eventually('the plan COMPLETE', async () => (await planStatus())?.status === 'COMPLETE');
  });

  it('force-complete: a change to eu alone waits (a new run); forcing its step lets the plan go on without it', async () => {
    await setImage('eu', 'nginx:3');
    await eventually(
      'eu held, the plan not started',
      async () =>
        (await progressing('eu'))?.message ===
        'Deployment waits for plan waves to be started: kubectl pacer plan start eu waves',
    );
    const forced = await run({ op: 'forceComplete', plan: 'waves', phase: 'canary', step: 'eu' });
    expect(forced).to.deep.equal({
      code: 200,
      message: 'Received cmd: forceComplete for Plan: waves, Phase: canary, Step: eu',
      warnings: [],
    });
    await eventually(
      'the forced step shown',
      async () => (await planStatus())?.phases?.[0]?.steps[0]?.message === 'forced complete by an operator',
    );
    const again = await run({ op: 'forceComplete', plan: 'waves', phase: 'canary', step: 'eu' });
    expect(again.code, 'already complete').to.equal(208);
  });

  it('stop: every Deployment restarted and held by the interrupted plan; continue lets them roll', async () => {
    await eventually('eu rolled on its own once forced', async () => (await sizes('eu')).join() === '1:0,2:0,3:2');
    expect((await run({ op: 'stop', plan: 'waves' })).code).to.equal(200);
    for (const name of names) {
      await eventually(
        `${name} held`,
        async () =>
          (await progressing(name))?.message ===
          `Deployment waits for plan waves, which is interrupted: kubectl pacer plan continue ${name} waves`,
      );
    }
    expect(await sizes('us'), "the restart's ReplicaSet has no pod").to.include('3:0');
    const events = await c.client.list<{ reason?: string; involvedObject?: { kind?: string; name?: string } }>(
      { group: '', version: 'v1', plural: 'events', kind: 'Event', namespaced: true },
      ns,
    );
    const onPlan = events.items
      .filter((e) => e.involvedObject?.kind === 'Plan' && e.involvedObject.name === 'waves')
      .map((e) => e.reason);
    expect(onPlan).to.include.members(['PlanStart', 'PlanContinue', 'PlanForceComplete', 'PlanStop']);
    expect((await run({ op: 'continue', plan: 'waves' })).code).to.equal(200);
    // This run began with eu's change (a new run arms the canary, as the SDK's rebuilt plan does) and
    // its canary was never continued: a plan-level continue releases no canary step.
    await eventually(
      'eu waits for the canary continue',
      async () =>
        (await progressing('eu'))?.message ===
        'Deployment waits for plan waves: canary step eu waits for kubectl pacer plan continue eu waves canary',
    );
    expect((await run({ op: 'continue', plan: 'waves', phase: 'canary' })).code).to.equal(200);
    for (const name of names) await waitComplete(c.client, ns, name);
    await eventually('the plan COMPLETE', async () => (await planStatus())?.status === 'COMPLETE');
  });

  it('bad commands change nothing: an unknown phase (404), a step without its phase (400)', async () => {
    const before = JSON.stringify((await c.client.get<PlanResource>(PLANS, ns, 'waves')).metadata.annotations);
    expect(await run({ op: 'continue', plan: 'waves', phase: 'nope' })).to.deep.include({
      code: 404,
      message: 'Phase nope not found',
    });
    expect(await run({ op: 'forceComplete', plan: 'waves', step: 'eu' })).to.deep.include({ code: 400 });
    expect(JSON.stringify((await c.client.get<PlanResource>(PLANS, ns, 'waves')).metadata.annotations)).to.equal(
      before,
    );
  });
});
