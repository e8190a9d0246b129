// A graceful leader hand-over, repeated: two `pacer controller` processes elect a leader on one
// simulated cluster; the leader is SIGTERMed, the standby takes over, a fresh replica is started as
// the next standby, and so on. Each hand-over is timed from the SIGTERM to the standby's "became
// the leader" log line. The standbys' retry period is the default 2 s, so a hand-over slower than
// a watch event shows.
// Prints one JSON line.
//   node bench/handover.bench.ts [--runs N]

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubeconfigYaml } from '../src/sim/kubeconfig.ts';
import { createNamespace, startSimWithCrds } from '../test/integration/fixtures/cluster.ts';
import { spawnController } from '../test/fixtures/controllerprocess.ts';
import type { SpawnedController } from '../test/fixtures/controllerprocess.ts';
import { numberFlag } from './flags.ts';

const RUNS = numberFlag('--runs', 20, { integer: true, min: 1 });

const dir = mkdtempSync(join(tmpdir(), 'pacer-handover-'));
const { sim } = await startSimWithCrds({ podStartMs: 20, podReadyMs: 30 });
createNamespace(sim, 'pacer-system');
const all: SpawnedController[] = [];

/** A replica with a token of its own (its name in the sim's audit log), its log read. */
function start(name: string): SpawnedController {
  const kubeconfig = join(dir, `${name}.kubeconfig`);
  writeFileSync(kubeconfig, kubeconfigYaml(sim.url, name));
  const r = spawnController(kubeconfig, ['--log-format', 'json'], { logs: true, name });
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
