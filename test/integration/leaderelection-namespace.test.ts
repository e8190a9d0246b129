// A controller that cannot campaign for its leader election Lease at all (`pacer sim` before it
// made pacer-system, or a --leader-election-namespace that does not exist) says so once, as an
// error with the fix, not as a warning repeated at each retry; /readyz answers 503 with the same
// words instead of a silent 200 standby that never leads. Once the namespace exists it leads.

import { expect } from 'chai';
import { PassThrough } from 'node:stream';
import { runController } from '../../src/cli/controller.ts';
import type { RunningController } from '../../src/cli/controller.ts';
import { createLogger } from '../../src/observe/logger.ts';
import type { SimCluster } from '../../src/sim/index.ts';
import { createNamespace, eventually, startSimWithCrds } from './fixtures/cluster.ts';

const PROBLEM =
  'cannot campaign for leadership: the Lease\'s namespace "pacer-system" does not exist ' +
  '(create lease pacer-system/pacer-controller: namespaces "pacer-system" not found); ' +
  'no reconcile runs until it does: kubectl create namespace pacer-system, or --leader-election-namespace=<an existing namespace>';

describe('leader election: a Lease namespace that does not exist', function () {
  this.timeout(60_000);
  let sim: SimCluster;
  let ctl: RunningController | undefined;
  const lines: Array<{ level: string; message: string }> = [];

  before(async () => {
    ({ sim } = await startSimWithCrds());
    const stream = new PassThrough();
    stream.on('data', (b: Buffer) => {
      for (const l of b.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l));
    });
    ctl = await runController({
      kubeconfigText: sim.kubeconfig,
      metricsBindAddress: '0',
      healthProbeBindAddress: '127.0.0.1:0',
      apiBindAddress: '0',
      webhookBindAddress: '0',
      leaderElect: true,
      leaseDurationMs: 1500,
      renewDeadlineMs: 1000,
      retryPeriodMs: 100,
      logger: createLogger({ level: 'debug', format: 'json', stream }),
    });
  });
  after(async () => {
    await ctl?.stop();
    await sim.stop();
  });

  it('says so once, as an error with the fix, however often it retries', async () => {
    // Several failed attempts to create the Lease, each seen by the API server.
    await eventually('three attempts at the Lease', () =>
      sim.audit.entries({ verb: 'create', resource: 'leases' }).length >= 3 ? true : undefined,
    );
    const errors = lines.filter((l) => l.level === 'error');
    expect(errors.map((l) => l.message)).to.deep.equal([PROBLEM]);
    expect(
      lines.filter((l) => l.level === 'warn' && l.message.includes('pacer-system')),
      'no repeated warning',
    ).to.deep.equal([]);
  });

  it('/readyz: 503 with the same words, not a silent 200 standby', async () => {
    const r = await fetch(`http://127.0.0.1:${ctl!.healthPort}/readyz`);
    expect(r.status).to.equal(503);
    expect(await r.text()).to.equal(`${PROBLEM}\n`);
  });

  it('once the namespace exists, it leads and is ready', async () => {
    createNamespace(sim, 'pacer-system');
    await eventually('to lead', () => ctl!.manager.isLeader());
    const r = await fetch(`http://127.0.0.1:${ctl!.healthPort}/readyz`);
    expect([r.status, await r.text()]).to.deep.equal([200, 'ok\n']);
  });
});
