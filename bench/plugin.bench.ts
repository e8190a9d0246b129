// How long a `kubectl pacer` command takes, start to exit, as a user types it: through the real
// kubectl, which finds bin/kubectl-pacer on PATH, against the simulated cluster of `pacer up` (its
// own process, with the examples applied and rolled out). Beside it, as the anchor, `kubectl get`
// of the same object. Each command runs --runs times (default 30), the three taking turns, so a
// change in the machine's load meets all three alike. Prints one JSON line per command:
//   {command, runs, p50Ms, p90Ms, minMs, maxMs, cpuP50Ms, cpuP90Ms, launch, loadAverage}
// (wall time, start to exit; and the CPU time its processes used, user + system, which the other
// work on the machine hardly changes: with two cores, what the command would take on its own).
// `launch` says what the plugin ran: "bundle" (dist/plugin/, built first by this bench) or
// "sources" (--sources: PACER_FROM_SOURCES=1, the TypeScript sources, for the comparison).
//   npx node bench/plugin.bench.ts [--runs 30] [--sources]

import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { bundleState } from '../bin/launch.js';
import { FlagError, given, readNumber } from './flags.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The value at quantile q (0..1) of sorted `xs`, nearest rank. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) throw new Error('quantile of no values');
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i];
}

/** kubectl of the release the tests use (hack/kube, cached), or the one on PATH. */
function kubectlDir(): string | undefined {
  try {
    return execFileSync(join(ROOT, 'hack', 'kube', 'build.sh'), ['kubectl'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim();
  } catch {
    return undefined;
  }
}

/** Seconds in bash's `times` notation (`0m0.123s`). */
function seconds(t: string): number {
  const m = /^(\d+)m([\d.]+)s$/.exec(t);
  if (!m) throw new Error(`not a time of bash's times: ${JSON.stringify(t)}`);
  return Number(m[1]) * 60 + Number(m[2]);
}

/**
 * Runs `argv` to its end under bash, which reports the CPU time (user + system) of the processes it
 * waited for (`times`): its wall time and that CPU time in ms, or an error with its output when it
 * fails. CPU time hardly changes with the machine's load, wall time does.
 */
function timed(argv: string[], env: NodeJS.ProcessEnv): Promise<{ wallMs: number; cpuMs: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('bash', ['-c', '"$@"; rc=$?; times >&3; exit $rc', 'bash', ...argv], {
      env,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let times = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (d: Buffer) => (times += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      if (code !== 0) return reject(new Error(`${argv.join(' ')} exited ${code}: ${out.trim()}`));
      // Two lines: bash's own user and system time, then its children's.
      const children = times.trim().split('\n')[1]?.trim().split(/\s+/) ?? [];
      if (children.length !== 2) return reject(new Error(`bash's times printed ${JSON.stringify(times)}`));
      resolve({ wallMs, cpuMs: (seconds(children[0]) + seconds(children[1])) * 1000 });
    });
  });
}

/** `pacer up` in `dir` on free ports; resolves once it has printed its instructions. */
function startUp(dir: string): Promise<{ child: ChildProcess; kubeconfig: string }> {
  const kubeconfig = join(dir, 'pacer-sim.kubeconfig');
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'bin', 'pacer.js'),
      'up',
      '--sim-kubeconfig',
      kubeconfig,
      '--log-file',
      join(dir, 'controller.log'),
      '--metrics-bind-address=127.0.0.1:0',
      '--health-probe-bind-address=127.0.0.1:0',
      '--api-bind-address=127.0.0.1:0',
    ],
    { cwd: dir, env: { ...process.env, KUBECONFIG: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('export KUBECONFIG=')) resolve({ child, kubeconfig });
    });
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => reject(new Error(`pacer up exited ${code} before it was ready: ${out.trim()}`)));
  });
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const runs = readNumber(argv, '--runs', 30, { min: 1, integer: true });
  const sources = given(argv, '--sources');
  const kubectl = kubectlDir();
  if (!kubectl) {
    process.stderr.write('plugin.bench: no kubectl: hack/kube/build.sh kubectl could not build it (needs Go)\n');
    process.exit(2);
  }
  if (!sources) execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-plugin.ts')], { stdio: 'inherit' });
  const state = bundleState('dist/plugin');
  if (!sources && !state.file)
    throw new Error(`the bundle was just built, yet the launcher would not run it: ${state.why}`);

  const dir = mkdtempSync(join(tmpdir(), 'pacer-plugin-bench-'));
  const up = await startUp(dir);
  try {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      KUBECONFIG: up.kubeconfig,
      PATH: `${join(ROOT, 'bin')}:${kubectl}:${process.env.PATH ?? ''}`,
      PACER_FROM_SOURCES: sources ? '1' : '0',
    };
    const k = join(kubectl, 'kubectl');
    // Once: web has rolled out (status waits for it), and every command works.
    await timed([k, 'pacer', 'rollout', 'status', 'web', '--timeout=120s'], env);
    const commands: Array<{ name: string; argv: string[]; launch: string }> = [
      { name: 'kubectl get pdeploy web', argv: [k, 'get', 'pdeploy', 'web'], launch: 'kubectl' },
      {
        name: 'kubectl pacer rollout status web',
        argv: [k, 'pacer', 'rollout', 'status', 'web'],
        launch: sources ? 'sources' : 'bundle',
      },
      { name: 'kubectl pacer get web', argv: [k, 'pacer', 'get', 'web'], launch: sources ? 'sources' : 'bundle' },
    ];
    // One unmeasured round: the compile cache and the page cache warm, as for a user's second command.
    for (const c of commands) await timed(c.argv, env);
    const wall = commands.map(() => [] as number[]);
    const cpu = commands.map(() => [] as number[]);
    const load = [loadavg()[0]];
    for (let i = 0; i < runs; i++) {
      for (const [j, c] of commands.entries()) {
        const t = await timed(c.argv, env);
        wall[j].push(t.wallMs);
        cpu[j].push(t.cpuMs);
      }
    }
    load.push(loadavg()[0]);
    const sort = (xs: number[]) => [...xs].sort((a, b) => a - b);
    for (const [j, c] of commands.entries()) {
      const sorted = sort(wall[j]);
      process.stdout.write(
        `${JSON.stringify({
          command: c.name,
          runs,
          p50Ms: Math.round(quantile(sorted, 0.5)),
          p90Ms: Math.round(quantile(sorted, 0.9)),
          minMs: Math.round(sorted[0]),
          maxMs: Math.round(sorted[sorted.length - 1]),
          cpuP50Ms: Math.round(quantile(sort(cpu[j]), 0.5)),
          cpuP90Ms: Math.round(quantile(sort(cpu[j]), 0.9)),
          launch: c.launch,
          loadAverage: { before: load[0], after: load[1], cores: cpus().length },
        })}\n`,
      );
    }
  } finally {
    up.child.kill('SIGTERM');
    await new Promise((r) => up.child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`plugin.bench: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(err instanceof FlagError ? 2 : 1);
});
