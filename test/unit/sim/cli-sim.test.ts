import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { simConfig } from '../../../src/cli/sim.ts';
import type { SimFlags } from '../../../src/cli/sim.ts';

const defaults: SimFlags = {
  kubeconfig: './pacer-sim.kubeconfig',
  port: '0',
  nodes: '3',
  zones: 'a,b,c',
  podsPerNode: '110',
};

describe('pacer sim: flags', () => {
  it('defaults give a config with an absolute kubeconfig path', () => {
    const cfg = simConfig(defaults);
    expect(cfg).to.deep.equal({
      kubeconfigPath: join(process.cwd(), 'pacer-sim.kubeconfig'),
      port: 0,
      nodes: 3,
      zones: ['a', 'b', 'c'],
      podsPerNode: 110,
    });
  });
  const bad: Array<[Partial<SimFlags>, string]> = [
    [{ port: '70000' }, '--port must be between 0 and 65535, got 70000'],
    [{ port: 'x' }, '--port must be an integer between 0 and 65535, got "x"'],
    [{ nodes: '-1' }, '--nodes must be an integer between 0 and 10000, got "-1"'],
    [{ podsPerNode: '0' }, '--pods-per-node must be between 1 and 100000, got 0'],
    [{ zones: 'a,,b' }, '--zones must be a comma-separated list of zone names'],
    [{ podStartMs: '1.5' }, '--pod-start-ms must be an integer'],
    [{ podReadyMs: '-3' }, '--pod-ready-ms must be an integer'],
    [{ faults: 'error=500@2' }, '--faults: invalid faults spec: error rate 2 must be between 0 and 1'],
    [{ faults: 'bogus=1' }, '--faults: invalid faults spec: unknown fault "bogus"'],
  ];
  for (const [flags, message] of bad) {
    it(`${JSON.stringify(flags)} → ${message}`, () => {
      const cfg = simConfig({ ...defaults, ...flags });
      expect(cfg)
        .to.have.property('error')
        .that.satisfies((e: string) => e.startsWith(message));
    });
  }
});

describe('pacer sim: process', function () {
  this.timeout(30_000);
  const entry = fileURLToPath(new URL('../../../src/cli/pacer.ts', import.meta.url));

  it('prints one ready line, serves (pacer-system there), and exits 0 on SIGTERM', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pacer-sim-cli-'));
    try {
      const child = spawn(process.execPath, [entry, 'sim', '--kubeconfig', join(dir, 'kc'), '--nodes', '1'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('\n')) resolve();
        });
        child.on('exit', () => reject(new Error(`exited early: ${out}`)));
      });
      expect(out).to.equal(`pacer sim ready: KUBECONFIG=${join(dir, 'kc')}\n`);
      const kc = await readFile(join(dir, 'kc'), 'utf8');
      const url = /server: (\S+)/.exec(kc)![1];
      const version = (await (await fetch(`${url}/version`)).json()) as { minor: string };
      expect(version.minor).to.equal('36');
      // The namespace the controller's defaults need (its leader election Lease, the freeze switch).
      expect((await fetch(`${url}/api/v1/namespaces/pacer-system`)).status).to.equal(200);
      const code = await new Promise<number | null>((resolve) => {
        child.on('exit', (c) => resolve(c));
        child.kill('SIGTERM');
      });
      expect(code).to.equal(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('exits 2 naming the flag when a value is out of range', async () => {
    const child = spawn(process.execPath, [entry, 'sim', '--pods-per-node', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(code).to.equal(2);
    expect(err).to.equal('error: --pods-per-node must be between 1 and 100000, got 0\n');
  });
});
