// A graceful leader hand-over, repeated: two `pacer controller` processes elect a leader on one
// simulated cluster; the leader is SIGTERMed, the standby takes over, a fresh replica is started as
// the next standby, and so on. Each hand-over is timed from the SIGTERM to the standby's "became
// the leader" log line, and (on the sim's clock) from the release to the acquiring write. The
// standbys' retry period is the default 2 s, so a hand-over slower than a watch event shows.
// Prints one JSON line.
//   node bench/handover.bench.ts [--runs N]

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubeconfigYaml } from '../src/sim/kubeconfig.ts';
import { createNamespace, startSimWithCrds } from '../test/integration/fixtures/cluster.ts';
import { numberFlag } from './flags.ts';

const RUNS = numberFlag('--runs', 20, { integer: true, min: 1 });
const FIXTURE = new URL('../test/integration/fixtures/pacer-controller.ts', import.meta.url).pathname;

interface Replica {
  child: ChildProcess;
  exited: Promise<number | null>;
  /** When (ms) `msg` was first logged; waits for it. */
  logged(msg: string): Promise<number>;
}

const dir = mkdtempSync(join(tmpdir(), 'pacer-handover-'));
const { sim } = await startSimWithCrds({ podStartMs: 20, podReadyMs: 30 });
createNamespace(sim, 'pacer-system');
const all: Replica[] = [];

function start(name: string): Replica {
  const kubeconfig = join(dir, `${name}.kubeconfig`);
  writeFileSync(kubeconfig, kubeconfigYaml(sim.url, name));
  const child = spawn(
    process.execPath,
    [
      FIXTURE,
      'controller',
      '--kubeconfig',
      kubeconfig,
      '--metrics-bind-address',
      '0',
      '--health-probe-bind-address',
      '0',
      '--api-bind-address',
      '0',
      '--webhook-bind-address',
      '0',
      '--log-format',
      'json',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, KUBECONFIG: '' } },
  );
  const seen = new Map<string, number>();
  const waiters: Array<{ msg: string; resolve(t: number): void }> = [];
  let buf = '';
  child.stderr!.on('data', (b: Buffer) => {
    buf += b.toString();
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      let msg: string | undefined;
      try {
        msg = (JSON.parse(line) as { message?: string }).message;
      } catch {
        continue;
      }
      if (msg === undefined || seen.has(msg)) continue;
      const at = Date.now();
      seen.set(msg, at);
      for (const w of waiters.filter((x) => x.msg === msg)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(at);
      }
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const r: Replica = {
    child,
    exited,
    logged: (msg) =>
      new Promise((resolve, reject) => {
        const at = seen.get(msg);
        if (at !== undefined) return resolve(at);
        waiters.push({ msg, resolve });
        void exited.then((code) => reject(new Error(`${name} exited (${code}) before logging "${msg}"`)));
      }),
  };
  all.push(r);
  return r;
}

const seconds: number[] = [];
try {
  let leader = start('replica-0');
  await leader.logged('became the leader; starting workers');
  for (let i = 1; i <= RUNS; i++) {
    const standby = start(`replica-${i}`);
    await standby.logged('caches synced; campaigning for leadership');
    const termAt = Date.now();
    leader.child.kill('SIGTERM');
    const took = await standby.logged('became the leader; starting workers');
    const code = await leader.exited;
    if (code !== 0) throw new Error(`replica-${i - 1} exited ${code} on SIGTERM`);
    seconds.push((took - termAt) / 1000);
    leader = standby;
  }
} finally {
  for (const r of all) r.child.kill('SIGKILL');
  await Promise.all(all.map((r) => r.exited));
  await sim.stop();
  rmSync(dir, { recursive: true, force: true });
}
const sorted = [...seconds].sort((a, b) => a - b);
const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
process.stdout.write(
  `${JSON.stringify({
    bench: 'handover',
    runs: RUNS,
    retryPeriodSeconds: 2,
    p50Seconds: at(0.5),
    maxSeconds: sorted[sorted.length - 1],
    underOneSecond: seconds.filter((s) => s < 1).length,
    seconds: seconds.map((s) => Number(s.toFixed(3))),
  })}\n`,
);
