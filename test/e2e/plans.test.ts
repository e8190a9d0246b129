// The DC/OS SDK's plan walk-through with the real kubectl and `kubectl pacer plan` against each test
// bed and an in-process controller: examples/hello-world.yaml (hello, then world depending on it)
// applied; `kubectl pacer plan show hello` polled while the pods are created, scheduled, started
// and become ready. The trees it prints follow the SDK's statuses in order, world waits for hello,
// and the last one is the document's finished deploy plan.

import { expect } from 'chai';
import { join } from 'node:path';
import { eventually } from '../integration/fixtures/cluster.ts';
import { BEDS, ROOT, kubectlEnv } from './fixtures.ts';

const ORDER = ['PENDING', 'PREPARED', 'STARTING', 'STARTED', 'COMPLETE'];

for (const bed of BEDS) describe(`e2e (${bed}): a service's deploy plan with kubectl pacer plan`, function () {
  this.timeout(90_000);
  const k = kubectlEnv({ bed, tmpPrefix: 'pacer-plans-', plugin: true, sim: { podStartMs: 1500, podReadyMs: 1500 } });
  const { kubectl, ok } = k;

  before(function () { return k.start(this); });
  after(() => k.stop());

  it('installs the CRD and starts the controller', async () => {
    await ok(kubectl('apply', '-f', join(ROOT, 'crds')));
    await eventually('the CRD to be served', async () => (await kubectl('get', 'pdeploy')).code === 0);
    await k.startController();
  });

  it('an unknown service: kubectl\'s NotFound; an unknown plan: the SDK\'s message', async () => {
    const r = await kubectl('pacer', 'plan', 'show', 'nope');
    expect([r.code, r.stderr]).to.deep.equal([1, 'Error from server (NotFound): deployments.pacer.dev "nope" not found\n']);
  });

  it('hello then world: the trees move through the SDK\'s statuses, world waiting for hello, to the finished plan', async () => {
    // hello applied paused: no pod yet, so the plan is the SDK's initial one; resumed, it goes.
    const paused = await k.editedExample('hello-world.yaml', [['  replicas: 1\n', '  replicas: 1\n  paused: true\n']]);
    expect(await ok(kubectl('apply', '-f', paused))).to.equal('deployment.pacer.dev/hello created\ndeployment.pacer.dev/world created\n');
    const trees = [await ok(kubectl('pacer', 'plan', 'show', 'hello'))];
    expect(await ok(kubectl('pacer', 'rollout', 'resume', 'hello'))).to.equal('deployment.pacer.dev/hello resumed\n');
    const done = await eventually('the deploy plan to complete', async () => {
      const tree = await ok(kubectl('pacer', 'plan', 'show', 'hello'));
      if (trees.at(-1) !== tree) trees.push(tree);
      return tree.startsWith('deploy (serial strategy) (COMPLETE)') && tree;
    }, 60_000);
    expect(done).to.equal([
      'deploy (serial strategy) (COMPLETE)',
      '├─ hello (serial strategy) (COMPLETE)',
      '│  └─ hello-0:[server] (COMPLETE)',
      '└─ world (serial strategy) (COMPLETE)',
      '   ├─ world-0:[server, sidecar] (COMPLETE)',
      '   └─ world-1:[server, sidecar] (COMPLETE)',
      '',
    ].join('\n'));
    const statusOf = (tree: string, step: string) => new RegExp(`${step.replace(/[[\]]/g, '\\$&')} \\((\\w+)\\)`).exec(tree)![1];
    const hello = trees.map((t) => statusOf(t, 'hello-0:[server]'));
    // Observed in the SDK's order (a poll may miss a short-lived status, never reverse one).
    expect(hello.map((s) => ORDER.indexOf(s))).to.deep.equal([...hello.map((s) => ORDER.indexOf(s))].sort((a, b) => a - b));
    expect(hello, 'hello-0 seen starting, started and complete').to.include.members(['STARTING', 'STARTED', 'COMPLETE']);
    for (const t of trees) {
      if (statusOf(t, 'hello-0:[server]') !== 'COMPLETE') {
        expect(statusOf(t, 'world-0:[server, sidecar]'), 'world waits for hello').to.equal('PENDING');
        expect(statusOf(t, 'world-1:[server, sidecar]')).to.equal('PENDING');
      }
    }
    // The plan follows its step: STARTING and STARTED all the way up, as the SDK's document draws it.
    const starting = trees.find((t) => statusOf(t, 'hello-0:[server]') === 'STARTING')!;
    expect(starting.split('\n').slice(0, 2)).to.deep.equal(['deploy (serial strategy) (STARTING)', '├─ hello (serial strategy) (STARTING)']);
    // The first tree is the SDK's initial one; world's phase is serial: world-1 waits for world-0.
    expect(trees[0]).to.equal([
      'deploy (serial strategy) (PENDING)',
      '├─ hello (serial strategy) (PENDING)',
      '│  └─ hello-0:[server] (PENDING)',
      '└─ world (serial strategy) (PENDING)',
      '   ├─ world-0:[server, sidecar] (PENDING)',
      '   └─ world-1:[server, sidecar] (PENDING)',
      '',
    ].join('\n'));
    for (const t of trees) {
      if (statusOf(t, 'world-0:[server, sidecar]') !== 'COMPLETE') expect(statusOf(t, 'world-1:[server, sidecar]'), 'world-1 waits for world-0').to.equal('PENDING');
    }
  });

  it('plan list, and -o json: the SDK\'s plan JSON', async () => {
    expect(await ok(kubectl('pacer', 'plan', 'list', 'world'))).to.equal('deploy\n');
    const json = JSON.parse(await ok(kubectl('pacer', 'plan', 'show', 'world', 'deploy', '-o', 'json')));
    expect(json).to.include({ status: 'COMPLETE', strategy: 'serial' });
    expect(json.phases.map((p: { name: string }) => p.name)).to.deep.equal(['hello', 'world']);
    expect(json.phases[1].steps[1]).to.include({ name: 'world-1:[server, sidecar]', status: 'COMPLETE' });
    expect(json.phases[1].steps[1].id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-/);
    const r = await kubectl('pacer', 'plan', 'show', 'world', 'recovery');
    expect([r.code, r.stderr]).to.deep.equal([1, 'error: Plan recovery not found\n']);
  });
});
