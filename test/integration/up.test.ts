// `pacer` / `pacer up`, the README's run command, in-process: with no kubeconfig it brings up the
// simulated cluster, the CRD, the controller and examples/, and says how to reach them; with one it
// only runs the controller against that cluster.

import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { runUp } from '../../src/cli/up.ts';
import type { Up } from '../../src/cli/up.ts';
import { KubeClient, loadKubeConfig, DEPLOYMENTS } from '../../src/kube/client.ts';
import type { Deployment } from '../../src/api/types.ts';
import { silentLogger } from '../../src/observe/logger.ts';
import { condition, eventually, startCluster } from './fixtures/cluster.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

function collect(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (b: Buffer) => (text += b.toString()));
  return { stream, text: () => text };
}

describe('pacer up (the main job)', function () {
  this.timeout(60_000);
  let dir: string;
  let up: Up | undefined;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'pacer-up-'))));
  afterEach(async () => {
    await up?.stop();
    up = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  const common = {
    port: 0,
    examples: join(ROOT, 'examples'),
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    apiBindAddress: '0',
    logLevel: 'error' as const,
    logFormat: 'text' as const,
    podStartMs: 20,
    podReadyMs: 20,
    logger: silentLogger(),
  };

  it('without a kubeconfig: simulated cluster, CRD, controller and examples, and how to reach them', async () => {
    const out = collect();
    const kubeconfig = join(dir, 'pacer-sim.kubeconfig');
    const saved = process.env.KUBECONFIG;
    delete process.env.KUBECONFIG;
    try {
      up = await runUp({ ...common, simKubeconfig: kubeconfig, out: out.stream });
    } finally {
      if (saved !== undefined) process.env.KUBECONFIG = saved;
    }
    expect(up.sim, 'a simulated cluster').to.not.equal(undefined);
    expect(existsSync(kubeconfig)).to.equal(true);
    const lines = out.text().split('\n');
    expect(lines).to.include(`  export KUBECONFIG=${kubeconfig}`);
    expect(lines.find((l) => l.startsWith('pacer: applied examples: '))).to.include('web');
    expect(lines.some((l) => l.includes('kubectl pacer rollout status web'))).to.equal(true);

    // The examples roll out through the controller, as a user would see them with that kubeconfig.
    const client = new KubeClient(loadKubeConfig({ kubeconfig }));
    const web = await eventually('web to be available', async () => {
      const d = await client.get<Deployment>(DEPLOYMENTS, 'default', 'web');
      return condition(d, 'Available')?.status === 'True' && (d.status?.availableReplicas ?? 0) === d.spec.replicas ? d : undefined;
    }, 30_000);
    expect(web.status?.ready).to.equal('3/3');
    await up.stop();
    up = undefined;
    await client.get(DEPLOYMENTS, 'default', 'web').then(
      () => expect.fail('the simulated cluster should be gone after stop'),
      (err: Error) => expect(err.message).to.match(/ECONNREFUSED|connect|fetch failed/i),
    );
  });

  it('with a kubeconfig: only the controller, against that cluster', async () => {
    const cluster = await startCluster({ podStartMs: 20, podReadyMs: 20 });
    await cluster.ctl.stop(); // this test runs its own
    const kubeconfig = join(dir, 'cluster.kubeconfig');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(kubeconfig, cluster.sim.kubeconfig);
    try {
      up = await runUp({ ...common, webhookBindAddress: '0', kubeconfig, simKubeconfig: join(dir, 'unused.kubeconfig'), out: collect().stream });
      expect(up.sim, 'no simulated cluster of its own').to.equal(undefined);
      expect(existsSync(join(dir, 'unused.kubeconfig'))).to.equal(false);
      await eventually('the controller to sync', () => up!.controller.ready());
    } finally {
      await up?.stop();
      up = undefined;
      await cluster.stop();
    }
  });
});
