// `pacer` / `pacer up`, the README's run command, in-process: with no kubeconfig it brings up the
// simulated cluster, the CRD, the controller and examples/, and says how to reach them; with one it
// only runs the controller against that cluster.

import { expect } from 'chai';
import { runPlugin } from '../../src/plugin/program.ts';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
    statusIntervalMs: 50,
    logger: silentLogger(),
  };

  async function withoutKubeconfigEnv<T>(f: () => Promise<T>): Promise<T> {
    const saved = process.env.KUBECONFIG;
    delete process.env.KUBECONFIG;
    try {
      return await f();
    } finally {
      if (saved !== undefined) process.env.KUBECONFIG = saved;
    }
  }

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
    const examples = lines
      .find((l) => l.startsWith('pacer: applied examples: '))!
      .slice('pacer: applied examples: '.length)
      .split(', ').length;

    // The examples roll out through the controller, as a user would see them with that kubeconfig.
    const client = new KubeClient(loadKubeConfig({ kubeconfig }));
    const web = await eventually(
      'web to be available',
      async () => {
        const d = await client.get<Deployment>(DEPLOYMENTS, 'default', 'web');
        return condition(d, 'Available')?.status === 'True' && (d.status?.availableReplicas ?? 0) === d.spec.replicas
          ? d
          : undefined;
      },
      30_000,
    );
    expect(web.status?.ready).to.equal('3/3');
    // Pacer's namespace is there, so the freeze switch works against the embedded cluster.
    const freeze = await runPlugin(['freeze', 'on', '--reason', 'up', '--kubeconfig', kubeconfig], {
      stdout: { write: () => true },
      stderr: { write: () => true },
    });
    expect(freeze, 'kubectl pacer freeze on').to.equal(0);
    expect(
      await runPlugin(['freeze', 'off', '--kubeconfig', kubeconfig], {
        stdout: { write: () => true },
        stderr: { write: () => true },
      }),
    ).to.equal(0);

    // The status line, a plain line per change on a stream that is not a TTY: every example
    // Deployment counted, and it moves as they complete.
    await eventually('a status line with a complete Deployment', async () =>
      /^pacer: \d+ Deployments: [1-9]\d* complete/m.test(out.text()) ? true : undefined,
    );
    const status = out
      .text()
      .split('\n')
      .filter((l) => /^pacer: \d+ Deployments?: /.test(l));
    expect(status[0]).to.equal(`pacer: ${examples} Deployments: 0 complete, ${examples} progressing`);
    expect(new Set(status).size, 'printed on change only').to.equal(status.length);
    await up.stop();
    up = undefined;
    await client.get(DEPLOYMENTS, 'default', 'web').then(
      () => expect.fail('the simulated cluster should be gone after stop'),
      (err: Error) => expect(err.message).to.match(/: dial tcp 127\.0\.0\.1:\d+: connect: connection refused$/),
    );
  });

  it('without a logger: the controller logs to the log file, and the instructions say where', async () => {
    const out = collect();
    const logFile = join(dir, 'logs', 'controller.log');
    up = await withoutKubeconfigEnv(() =>
      runUp({
        ...common,
        logger: undefined,
        logLevel: 'info',
        logFile,
        simKubeconfig: join(dir, 'k'),
        out: out.stream,
      }),
    );
    expect(up.logFile).to.equal(logFile);
    expect(out.text().split('\n')).to.include(
      `pacer: controller logs: ${logFile} (tail -f it; -v or --log-to-stderr shows them here)`,
    );
    await eventually('the controller to log its start', async () =>
      existsSync(logFile) && readFileSync(logFile, 'utf8').includes('pacer controller started') ? true : undefined,
    );
    expect(out.text(), 'no log line among the instructions').to.not.include('pacer controller started');
    await up.stop();
    up = undefined;
    expect(readFileSync(logFile, 'utf8')).to.match(/INFO +pacer controller started/);
  });

  it('--log-to-stderr: no log file', async () => {
    const out = collect();
    const cwdDefault = join(process.cwd(), '.pacer', 'controller.log');
    const before = existsSync(cwdDefault) ? readFileSync(cwdDefault, 'utf8') : undefined;
    up = await withoutKubeconfigEnv(() =>
      runUp({
        ...common,
        logger: undefined,
        logLevel: 'error',
        logToStderr: true,
        logFile: join(dir, 'never.log'),
        simKubeconfig: join(dir, 'k'),
        out: out.stream,
      }),
    );
    expect(up.logFile).to.equal(undefined);
    expect(existsSync(join(dir, 'never.log'))).to.equal(false);
    expect(
      existsSync(cwdDefault) ? readFileSync(cwdDefault, 'utf8') : undefined,
      'the default file untouched',
    ).to.equal(before);
    expect(out.text().split('\n')).to.include('pacer: controller logs: on stderr');
  });

  it('with a kubeconfig: only the controller, against that cluster', async () => {
    const cluster = await startCluster({ podStartMs: 20, podReadyMs: 20 });
    await cluster.ctl.stop(); // this test runs its own
    const kubeconfig = join(dir, 'cluster.kubeconfig');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(kubeconfig, cluster.sim.kubeconfig);
    try {
      up = await runUp({
        ...common,
        webhookBindAddress: '0',
        kubeconfig,
        simKubeconfig: join(dir, 'unused.kubeconfig'),
        out: collect().stream,
      });
      expect(up.sim, 'no simulated cluster of its own').to.equal(undefined);
      expect(up.status, "no status line: the controller's logs are the output").to.equal(undefined);
      expect(existsSync(join(dir, 'unused.kubeconfig'))).to.equal(false);
      await eventually('the controller to sync', () => up!.controller.ready());
    } finally {
      await up?.stop();
      up = undefined;
      await cluster.stop();
    }
  });
});
