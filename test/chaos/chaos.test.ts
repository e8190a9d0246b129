// The chaos run at its CI size (test/chaos/chaos.ts says what it does and checks): 28 Deployments of
// every strategy (deploy-plan gates and a custom Plan among them) changed 8 times a second for 40 s,
// an operator's plan commands among the changes, while a NodeRoll replaces the 3 nodes of a group
// they partly run on, while the simulated API server injects 10%
// errors (500, 429, and 409 on writes), latency, dropped watches and expired resourceVersions, and
// the controller is SIGKILLed 8 times; then two replicas electing a leader, whose kills move
// leadership; then three replicas sharing three shards (docs/sharding.md), the fleet spread over a
// namespace of each, whose kills move shards. `make chaos` (bench/chaos.bench.ts) runs the big size
// (`node bench/chaos.bench.ts --shards 3` sharded).

import { expect } from 'chai';
import { runChaos } from './chaos.ts';

describe('chaos: Deployments of every strategy under API faults and controller kills (simulated cluster, CI size)', function () {
  this.timeout(300_000);

  it('keeps every promise at every sample, and every rollout converges once the chaos stops', async () => {
    const f = await runChaos({
      deployments: 28,
      kills: 8,
      churnMs: 40_000,
      changesPerSecond: 8,
      seed: Number(process.env.PACER_CHAOS_SEED ?? 20261124),
      faults:
        'error=500@0.05;error=429@0.03;error=409@0.02:verb=update|patch;latency=0ms-5ms;drop-watches=7s;expire=11s',
      convergeTimeoutMs: 120_000,
    });
    expect(f.kills, 'kills').to.equal(8);
    expect(f.changes, 'changes').to.be.greaterThan(250);
    expect(
      Object.values(f.faults.errors).reduce((a, b) => a + b, 0),
      'errors injected',
    ).to.be.greaterThan(0);
    expect(f.faults.watchDrops, 'watches dropped').to.be.greaterThan(0);
    expect(f.samples, 'samples').to.be.greaterThan(1000);
    expect(
      Object.keys(f.operations).filter((k) => k.endsWith(' 200')),
      'plan commands carried out',
    ).to.not.be.empty;
    expect(f.violations, 'promises broken').to.deep.equal([]);
    expect(f.unconverged, 'not converged').to.deep.equal([]);
    expect(f.endState, 'end state').to.deep.equal([]);
    expect(f.roll, 'the node roll').to.deep.include({ phase: 'Complete', replaced: 3 });
  });

  it('the same with two replicas electing a leader: the kills move leadership, no promise broken', async () => {
    const f = await runChaos({
      deployments: 14,
      replicas: 2,
      kills: 6,
      churnMs: 25_000,
      changesPerSecond: 5,
      seed: Number(process.env.PACER_CHAOS_SEED ?? 20261124) + 1,
      faults:
        'error=500@0.05;error=429@0.03;error=409@0.02:verb=update|patch;latency=0ms-5ms;drop-watches=7s;expire=11s',
      convergeTimeoutMs: 120_000,
    });
    expect(f.kills).to.equal(6);
    expect(f.violations, 'promises broken').to.deep.equal([]);
    expect(f.unconverged, 'not converged').to.deep.equal([]);
    expect(f.endState, 'end state').to.deep.equal([]);
    expect(f.roll, 'the node roll').to.deep.include({ phase: 'Complete', replaced: 3 });
  });

  it('sharded: three replicas over three shards, the kills move shards, no promise broken', async () => {
    const f = await runChaos({
      deployments: 15,
      replicas: 3,
      shards: 3,
      kills: 6,
      churnMs: 25_000,
      changesPerSecond: 5,
      seed: Number(process.env.PACER_CHAOS_SEED ?? 20261124) + 2,
      faults:
        'error=500@0.05;error=429@0.03;error=409@0.02:verb=update|patch;latency=0ms-5ms;drop-watches=7s;expire=11s',
      convergeTimeoutMs: 120_000,
    });
    expect(f.kills).to.equal(6);
    expect(f.changes, 'changes').to.be.greaterThan(100);
    expect(f.violations, 'promises broken').to.deep.equal([]);
    expect(f.unconverged, 'not converged').to.deep.equal([]);
    expect(f.endState, 'end state').to.deep.equal([]);
    expect(f.roll, 'the node roll').to.deep.include({ phase: 'Complete', replaced: 3 });
  });
});
