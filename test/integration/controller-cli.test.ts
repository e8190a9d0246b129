// `pacer controller` as a process: exit codes, one-line errors, graceful stop on SIGTERM.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { startSim } from '../../src/sim/index.ts';
import type { SimCluster } from '../../src/sim/index.ts';
import { KubeClient, CRDS, DEPLOYMENTS } from '../../src/kube/client.ts';
import { loadKubeConfig } from '../../src/kube/clientnode.ts';
import { eventually } from './fixtures/cluster.ts';

const FIXTURE = new URL('./fixtures/pacer-controller.ts', import.meta.url).pathname;
/** Prints `client-node loaded: yes|no` at the process's exit (test/fixtures/clientnode-probe.ts). */
const PROBE = new URL('../fixtures/clientnode-probe.ts', import.meta.url).pathname;
const CRD_FILE = new URL('../../crds/deployments.pacer.dev.yaml', import.meta.url).pathname;

interface Run {
  code: number | null;
  stderr: string;
}

function run(
  args: string[],
  opts: { until?: (stderr: string) => boolean; signal?: NodeJS.Signals; probe?: boolean } = {},
): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [...(opts.probe ? ['--import', PROBE] : []), FIXTURE, 'controller', ...args],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, KUBECONFIG: '' },
      },
    );
    let stderr = '';
    let signalled = false;
    child.stderr.on('data', (b: Buffer) => {
      stderr += b.toString();
      if (!signalled && opts.until?.(stderr)) {
        signalled = true;
        child.kill(opts.signal ?? 'SIGTERM');
      }
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe('pacer controller (process)', function () {
  this.timeout(60_000);
  let dir: string;
  let sim: SimCluster;
  let kubeconfig: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pacer-ctl-'));
    sim = await startSim({ port: 0, controlPlane: false });
    kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, sim.kubeconfig);
  });
  after(async () => {
    await sim?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const common = [
    '--metrics-bind-address',
    '0',
    '--health-probe-bind-address',
    '0',
    '--api-bind-address',
    '0',
    '--webhook-bind-address',
    '0',
  ];

  const badFlags: Array<[string[], RegExp]> = [
    [['--workers', 'many'], /^error: --workers: must be an integer/m],
    [['--workers', '0'], /^error: --workers: /m],
    [['--log-format', 'xml'], /^error: --log-format: must be json or text/m],
    [['--kube-api-qps', 'fast'], /^error: --kube-api-qps: must be a non-negative number, got "fast"$/m],
    [['--kube-api-qps', '-5'], /^error: --kube-api-qps: must be a non-negative number, got "-5"$/m],
    [['--kube-api-burst', '0'], /^error: --kube-api-burst: must be an integer of at least 1, got "0"$/m],
    [['--kube-api-burst', '2.5'], /^error: --kube-api-burst: must be an integer of at least 1, got "2.5"$/m],
    [['--metrics-bind-address', 'nope'], /^error: --metrics-bind-address: /m],
    [['--leader-elect=maybe'], /^error: --leader-elect: must be true or false, got "maybe"$/m],
    [['--metrics-secure=perhaps'], /^error: --metrics-secure: must be true or false, got "perhaps"$/m],
    [
      ['--metrics-cert-dir', '/nonexistent/certs'],
      /^error: --metrics-cert-dir: "\/nonexistent\/certs" holds no tls.crt and tls.key$/m,
    ],
    [
      ['--leader-election-retry-period', 'soon'],
      /^error: --leader-election-retry-period: must be a positive duration such as 15s, 1m or 500ms, got "soon"$/m,
    ],
    [
      ['--leader-election-lease-duration', '5s'],
      /^error: --leader-election-lease-duration, --leader-election-renew-deadline, --leader-election-retry-period: the lease duration \(5s\) must be greater than the renew deadline \(10s\)$/m,
    ],
    [
      ['--leader-election-namespace', 'Pacer_System'],
      /^error: --leader-election-namespace: "Pacer_System" is not a valid namespace name/m,
    ],
    [['--no-such-flag'], /unknown option '--no-such-flag'/],
  ];
  for (const [args, msg] of badFlags) {
    it(`${args.join(' ')} → exit 2 naming the flag`, async () => {
      const r = await run(['--kubeconfig', kubeconfig, ...common, ...args]);
      expect(r.code).to.equal(2);
      expect(r.stderr).to.match(msg);
    });
  }

  it('a missing CRD → exit 1 with the install hint', async () => {
    const r = await run(['--kubeconfig', kubeconfig, ...common]);
    expect(r.code).to.equal(1);
    expect(r.stderr.trim()).to.equal('error: deployments.pacer.dev is not installed: kubectl apply -f crds/');
  });

  it('SIGTERM after start → graceful stop, exit 0', async () => {
    const client = new KubeClient(loadKubeConfig({ kubeconfigText: sim.kubeconfig }));
    const crd = parseYaml(readFileSync(CRD_FILE, 'utf8')) as {
      spec: {
        versions: Array<{ schema?: { openAPIV3Schema?: { properties?: Record<string, Record<string, unknown>> } } }>;
      };
    };
    await client.create(CRDS, undefined, crd);
    await eventually('the CRD to be served', async () => {
      await client.list(DEPLOYMENTS, 'default');
      return true;
    });
    const r = await run(['--kubeconfig', kubeconfig, ...common, '--log-format', 'text'], {
      until: (s) => s.includes('caches synced'),
      probe: true,
    });
    expect(r.stderr).to.contain('received SIGTERM, stopping');
    expect(r.code).to.equal(0);
    // The simulated cluster's kubeconfig needs nothing of client-node: Node's http carried it all.
    expect(r.stderr).to.contain('client-node loaded: no\n');
  });

  it('a kubeconfig with an exec credential plugin goes through client-node, which runs the plugin', async () => {
    // Run after the test above, which installs the CRD.
    const marker = join(dir, 'exec-ran');
    const credential = JSON.stringify({
      apiVersion: 'client.authentication.k8s.io/v1beta1',
      kind: 'ExecCredential',
      status: { token: 'from-exec' },
    });
    const script = `require('node:fs').writeFileSync(${JSON.stringify(marker)}, ''); console.log(${JSON.stringify(credential)})`;
    const cfg = parseYaml(sim.kubeconfig) as { users: Array<{ user: Record<string, unknown> }> };
    cfg.users[0].user = {
      exec: {
        apiVersion: 'client.authentication.k8s.io/v1beta1',
        command: process.execPath,
        args: ['-e', script],
        interactiveMode: 'Never',
      },
    };
    const execKubeconfig = join(dir, 'exec-kubeconfig');
    writeFileSync(execKubeconfig, JSON.stringify(cfg));
    const r = await run(['--kubeconfig', execKubeconfig, ...common, '--log-format', 'text'], {
      until: (s) => s.includes('caches synced'),
      probe: true,
    });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.contain('client-node loaded: yes\n');
    expect(existsSync(marker), 'the exec plugin ran').to.equal(true);
  });
});
