// `pacer` / `pacer up`, the README's run command, in-process: with no kubeconfig it brings up the
// simulated cluster, the CRD, the controller and examples/, and says how to reach them; with one it
// only runs the controller against that cluster.

import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { runPlugin } from '../../src/plugin/program.ts';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { countDeployments, runUp } from '../../src/cli/up.ts';
import { HttpMethod } from '@kubernetes/client-node';
import { CliError } from '../../src/cli/controller.ts';
import type { Up } from '../../src/cli/up.ts';
import { KubeClient, DEPLOYMENTS } from '../../src/kube/client.ts';
import { loadKubeConfig } from '../../src/kube/clientnode.ts';
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
  // The dashboard's page as the sources have it now (make does the same before make run).
  before(async function () {
    this.timeout(120_000);
    const r = spawnSync(join(ROOT, 'node_modules', '.bin', 'node'), [join(ROOT, 'scripts', 'build-dashboard.ts')], {
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`build-dashboard failed: ${r.stdout}${r.stderr}`);
  });
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
    dashboardBindAddress: '0',
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
      up = await runUp({ ...common, dashboardBindAddress: '127.0.0.1:0', simKubeconfig: kubeconfig, out: out.stream });
    } finally {
      if (saved !== undefined) process.env.KUBECONFIG = saved;
    }
    expect(up.sim, 'a simulated cluster').to.not.equal(undefined);
    // The dashboard (its page built by this test's before hook), every namespace, on the simulated cluster.
    const dashboard =
      /^pacer: dashboard: (http:\/\/127\.0\.0\.1:[0-9]+\/) \(every namespace; open it in a browser\)$/m.exec(
        out.text(),
      );
    expect(dashboard, out.text()).to.not.equal(null);
    expect((await fetch(dashboard![1])).status).to.equal(200);
    await eventually('the dashboard to list web', async () => {
      const r = await fetch(`${dashboard![1]}api/v1/deployments`);
      return r.status === 200 && ((await r.json()) as Array<{ name: string }>).some((d) => d.name === 'web');
    });
    expect(existsSync(kubeconfig)).to.equal(true);
    const lines = out.text().split('\n');
    expect(lines).to.include(`  export KUBECONFIG=${kubeconfig}`);
    expect(lines.find((l) => l.startsWith('pacer: applied examples: '))).to.include('web');
    expect(lines.some((l) => l.includes('kubectl pacer rollout status web'))).to.equal(true);
    // The Deployments among what was applied (a NodeGroup is named with its kind: `NodeGroup workers`).
    const examples = lines
      .find((l) => l.startsWith('pacer: applied examples: '))!
      .slice('pacer: applied examples: '.length)
      .split(', ')
      .filter((name) => !name.includes(' ')).length;

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
      // A new connection is refused; the pooled one was closed under it (undici's words).
      (err: Error) =>
        expect(err.message).to.match(/: (dial tcp 127\.0\.0\.1:\d+: connect: connection refused|other side closed)$/),
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

  it('a second run with the same kubeconfig refuses before touching anything, naming the running one', async () => {
    const kubeconfig = join(dir, 'pacer-sim.kubeconfig');
    const logFile = join(dir, '.pacer', 'controller.log');
    up = await withoutKubeconfigEnv(() =>
      runUp({
        ...common,
        logger: undefined,
        logLevel: 'info',
        logFile,
        simKubeconfig: kubeconfig,
        out: collect().stream,
      }),
    );
    await eventually('the controller to log its start', async () =>
      readFileSync(logFile, 'utf8').includes('pacer controller started') ? true : undefined,
    );
    const kubeconfigBefore = readFileSync(kubeconfig, 'utf8');
    const logBefore = readFileSync(logFile, 'utf8');
    const second = collect();
    const err = await withoutKubeconfigEnv(() =>
      runUp({ ...common, logger: undefined, logLevel: 'info', logFile, simKubeconfig: kubeconfig, out: second.stream }),
    ).then(
      (u) => {
        void u.stop();
        return expect.fail('the second run should refuse');
      },
      (e: unknown) => e as CliError,
    );
    expect(err).to.be.instanceOf(CliError);
    expect(err.exitCode).to.equal(1);
    expect(err.message).to.equal(
      `pacer is already running here: pid ${process.pid}, simulated cluster at ${up.sim!.url}, its kubeconfig ${kubeconfig}, ` +
        'metrics off, health probes off, deployments view off. ' +
        `Use that one (export KUBECONFIG=${kubeconfig}), or stop it first (Ctrl-C in its terminal, or kill ${process.pid}); ` +
        `nothing of it was changed (its record: ${join(dir, '.pacer', 'up.json')})`,
    );
    expect(second.text(), 'nothing printed').to.equal('');
    expect(readFileSync(kubeconfig, 'utf8'), 'the kubeconfig untouched').to.equal(kubeconfigBefore);
    expect(readFileSync(logFile, 'utf8').startsWith(logBefore), 'the log not truncated').to.equal(true);
    // The first one still serves at the address its kubeconfig names.
    const client = new KubeClient(loadKubeConfig({ kubeconfig }));
    expect((await client.get<Deployment>(DEPLOYMENTS, 'default', 'web')).metadata.name).to.equal('web');
    // Once it stops, its record goes, and a new run starts.
    await up.stop();
    up = undefined;
    expect(existsSync(join(dir, '.pacer', 'up.json'))).to.equal(false);
    up = await withoutKubeconfigEnv(() => runUp({ ...common, simKubeconfig: kubeconfig, out: collect().stream }));
    expect(readFileSync(kubeconfig, 'utf8')).to.contain(up.sim!.url);
  });

  it('a record left by a run that is gone (killed) is taken over', async () => {
    const kubeconfig = join(dir, 'pacer-sim.kubeconfig');
    mkdirSync(join(dir, '.pacer'));
    // A pid no process has: one beyond the kernel's largest.
    writeFileSync(
      join(dir, '.pacer', 'up.json'),
      JSON.stringify({ pid: 4_194_305, server: 'http://127.0.0.1:1', kubeconfig }),
    );
    up = await withoutKubeconfigEnv(() => runUp({ ...common, simKubeconfig: kubeconfig, out: collect().stream }));
    const record = JSON.parse(readFileSync(join(dir, '.pacer', 'up.json'), 'utf8'));
    expect(record.pid).to.equal(process.pid);
    expect(record.server).to.equal(up.sim!.url);
  });

  it('a port to listen on is taken: refused before the kubeconfig is written', async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as AddressInfo).port;
    const kubeconfig = join(dir, 'pacer-sim.kubeconfig');
    try {
      const err = await withoutKubeconfigEnv(() =>
        runUp({
          ...common,
          healthProbeBindAddress: `127.0.0.1:${port}`,
          simKubeconfig: kubeconfig,
          out: collect().stream,
        }),
      ).then(
        () => expect.fail('the run should refuse'),
        (e: unknown) => e as CliError,
      );
      expect(err.message).to.equal(
        `--health-probe-bind-address 127.0.0.1:${port}: the port is in use (by another pacer, or another program); ` +
          'pass another address (--health-probe-bind-address=127.0.0.1:0 for any free port, or 0 to switch it off); nothing was started or written',
      );
      expect(existsSync(kubeconfig), 'no kubeconfig written').to.equal(false);
      expect(existsSync(join(dir, '.pacer', 'up.json')), 'no record left').to.equal(false);
    } finally {
      await new Promise<void>((r) => taken.close(() => r()));
    }
  });

  it('the instructions: the kubeconfig, the plugin on PATH, and the views with the token they print', async () => {
    const out = collect();
    const kubeconfig = join(dir, 'pacer-sim.kubeconfig');
    up = await withoutKubeconfigEnv(() =>
      runUp({ ...common, apiBindAddress: '127.0.0.1:0', simKubeconfig: kubeconfig, out: out.stream }),
    );
    const lines = out.text().split('\n');
    const i = lines.indexOf(`  export KUBECONFIG=${kubeconfig}`);
    expect(i).to.be.greaterThan(0);
    expect(lines[i + 1]).to.equal(`  export PATH=${join(ROOT, 'bin')}:$PATH   # kubectl pacer: the plugin`);
    // kubectl finds a plugin by its file name, kubectl-pacer, on PATH.
    expect(realpathSync(join(ROOT, 'bin', 'kubectl-pacer'))).to.equal(
      realpathSync(join(ROOT, 'bin', 'kubectl-pacer.js')),
    );
    const curl = lines.find((l) => l.includes('curl '));
    const m = /^ {2}curl -H "Authorization: Bearer ([^"]+)" (http:\/\/127\.0\.0\.1:\d+\/v2\/deployments) {3}# /.exec(
      curl ?? '',
    );
    expect(m, curl).to.not.equal(null);
    expect(m![2]).to.equal(`http://127.0.0.1:${up.controller.apiPort}/v2/deployments`);
    // The token printed is the kubeconfig's own, and the view answers it.
    expect(readFileSync(kubeconfig, 'utf8')).to.contain(`token: ${m![1]}`);
    await eventually('the views to be ready', () => up!.controller.ready());
    const answer = await fetch(m![2], { headers: { Authorization: `Bearer ${m![1]}` } });
    expect(answer.status).to.equal(200);
    expect(Array.isArray(await answer.json())).to.equal(true);
    expect((await fetch(m![2])).status, 'no token: 401').to.equal(401);
  });

  it('the examples work together: Deployments, then the Plan and the NodeRoll, which replaces its group', async function () {
    this.timeout(180_000);
    const out = collect();
    const kubeconfig = join(dir, 'pacer-sim.kubeconfig');
    up = await withoutKubeconfigEnv(() => runUp({ ...common, simKubeconfig: kubeconfig, out: out.stream }));
    const lines = out.text().split('\n');
    expect(lines).to.include('pacer: once they have rolled out: Plan regions, NodeRoll upgrade-workers');
    expect(lines.find((l) => l.startsWith('pacer: applied examples: '))).to.not.include('never-ready');
    await eventually(
      'the Plan and the NodeRoll to be applied',
      () =>
        out.text().includes('pacer: the Deployments have rolled out; applied Plan regions, NodeRoll upgrade-workers\n')
          ? true
          : undefined,
      60_000,
    );
    const client = new KubeClient(loadKubeConfig({ kubeconfig }));
    const roll = await eventually(
      'the node roll to complete',
      async () => {
        const r = await client.request<{ status?: { phase?: string; message?: string } }>(
          HttpMethod.GET,
          '/apis/pacer.dev/v1alpha1/noderolls/upgrade-workers',
        );
        return r.status?.phase === 'Complete' ? r : undefined;
      },
      120_000,
    );
    expect(roll.status?.message).to.equal('every original node has been replaced; zones a 1, b 1, c 1 (balanced)');
    // Every Deployment complete again, and each with its own app label: no label selects another's pods.
    const all = (await client.list<Deployment>(DEPLOYMENTS, undefined)).items;
    const counts = countDeployments(all);
    expect([counts.complete, counts.total]).to.deep.equal([all.length, all.length]);
    const apps = all.map((d) => d.spec.selector?.matchLabels?.app);
    expect(new Set(apps).size, JSON.stringify(apps)).to.equal(all.length);
    const plan = await client.request<{ status?: { status?: string } }>(
      HttpMethod.GET,
      '/apis/pacer.dev/v1alpha1/namespaces/default/plans/regions',
    );
    // Applied after its Deployments' first rollout, the plan has nothing to hold: COMPLETE until
    // their next change (which it holds: examples/custom-plan.yaml).
    expect(plan.status?.status).to.equal('COMPLETE');
  });
});
