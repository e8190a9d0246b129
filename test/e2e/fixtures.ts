// The scaffolding of the end-to-end tests: the real kubectl (built by make test, first on PATH) against an in-process
// simulated cluster, in a temp dir of its own (kubeconfig, kubectl's cache, edited examples and,
// when asked, a `kubectl-pacer` link so kubectl finds the plugin), with an in-process controller.
//
//   const k = kubectlEnv({ tmpPrefix: 'pacer-x-', sim: { podStartMs: 30, podReadyMs: 60 } });
//   before(function () { return k.start(this); });
//   after(() => k.stop());
//   const { kubectl, ok } = k;

import { expect } from 'chai';
import { execFile } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSim } from '../../src/sim/index.ts';
import type { SimCluster, SimOptions } from '../../src/sim/index.ts';
import { runController } from '../../src/cli/controller.ts';
import type { RunControllerOptions, RunningController } from '../../src/cli/controller.ts';
import { silentLogger } from '../../src/observe/logger.ts';
import { KUBECTL_HOW, requireTool } from '../fixtures/tools.ts';

/** The repository's root (crds/, examples/, bin/). */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** What a finished command left: its exit code and its output. */
export interface CommandResult { code: number; stdout: string; stderr: string }

/** One change to an example: the first match of `from` (which must be there) becomes `to`. */
export type Edit = [from: string | RegExp, to: string];

export interface KubectlEnvOptions {
  /** The temp dir's name starts with it (`pacer-quickstart-`). */
  tmpPrefix: string;
  /** The simulated cluster's options; the fixture adds port 0 and the kubeconfig file. */
  sim: Omit<SimOptions, 'port' | 'kubeconfigPath'>;
  /**
   * Put a `kubectl-pacer` link on PATH so that `kubectl pacer` finds the plugin. The kubeconfig
   * then travels in KUBECONFIG (the plugin reads it too); without the plugin, kubectl gets
   * `--kubeconfig`.
   */
  plugin?: boolean;
  /** A command still running after this long is killed (default 30 s). */
  timeoutMs?: number;
}

export interface KubectlEnv {
  /** The temp dir (after start). */
  readonly dir: string;
  /** The simulated cluster (after start). */
  readonly sim: SimCluster;
  /** The environment commands run with (KUBECONFIG and PATH with the plugin). */
  readonly env: NodeJS.ProcessEnv;
  /** The controller, once startController has run. */
  readonly controller: RunningController | undefined;
  /** For `before`: skips the suite without kubectl (fails under CI=true); else makes the dir and starts the cluster. */
  start(suite: Mocha.Context): Promise<void>;
  /** For `after`: kills what still runs, stops the controller and the cluster, removes the dir. */
  stop(): Promise<void>;
  /** kubectl's full argument list: the per-run cache (and kubeconfig) flags, then `args`. */
  kubectlArgs(args: string[]): string[];
  /** Runs kubectl; `kubectl pacer ...` gets no flags first (kubectl would not find the plugin). */
  kubectl(...args: string[]): Promise<CommandResult>;
  /** Runs any command with the env, without blocking the event loop (the cluster is in-process). */
  run(cmd: string, args: string[]): Promise<CommandResult>;
  /** Kills `child` in stop if it still runs. */
  track<C extends ChildProcess>(child: C): C;
  /** The stdout of a command that must succeed: empty stderr, exit 0. */
  ok(result: Promise<CommandResult>): Promise<string>;
  /** examples/`file` with `edits` applied, written to the dir as `out` (default `file`); its path. */
  editedExample(file: string, edits: Edit[], out?: string): Promise<string>;
  /** Starts the controller on the cluster: every server off unless `opts` binds it. */
  startController(opts?: RunControllerOptions): Promise<RunningController>;
}

export function kubectlEnv(options: KubectlEnvOptions): KubectlEnv {
  const timeout = options.timeoutMs ?? 30_000;
  let dir: string | undefined;
  let sim: SimCluster | undefined;
  let controller: RunningController | undefined;
  let env: NodeJS.ProcessEnv = process.env;
  const children: ChildProcess[] = [];
  // The command line of each result, for ok's failure message.
  const commands = new WeakMap<CommandResult, string>();

  const started = () => {
    if (dir === undefined || sim === undefined) throw new Error('kubectlEnv: start() has not run');
    return { dir, sim };
  };
  const track = <C extends ChildProcess>(child: C): C => {
    children.push(child);
    return child;
  };
  const exec = (cmd: string, args: string[], label: string): Promise<CommandResult> =>
    new Promise((resolve) => {
      track(execFile(cmd, args, { env, timeout }, (err, stdout, stderr) => {
        const result = { code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout: String(stdout), stderr: String(stderr) };
        commands.set(result, label);
        resolve(result);
      }));
    });
  const kubectlArgs = (args: string[]): string[] => {
    const d = started().dir;
    if (args[0] === 'pacer') return args;
    const kubeconfig = options.plugin ? [] : ['--kubeconfig', join(d, 'kubeconfig')];
    return [...kubeconfig, '--cache-dir', join(d, 'cache'), ...args];
  };

  return {
    get dir() { return started().dir; },
    get sim() { return started().sim; },
    get env() { return env; },
    get controller() { return controller; },

    async start(suite) {
      requireTool(suite, 'kubectl', KUBECTL_HOW);
      dir = await mkdtemp(join(tmpdir(), options.tmpPrefix));
      const kubeconfigPath = join(dir, 'kubeconfig');
      if (options.plugin) {
        // kubectl finds plugins on PATH: a link named kubectl-pacer to the launcher in bin/.
        await mkdir(join(dir, 'bin'));
        await symlink(join(ROOT, 'bin', 'kubectl-pacer.js'), join(dir, 'bin', 'kubectl-pacer'));
        env = { ...process.env, KUBECONFIG: kubeconfigPath, PATH: `${join(dir, 'bin')}:${process.env.PATH ?? ''}` };
      }
      sim = await startSim({ ...options.sim, port: 0, kubeconfigPath });
    },

    async stop() {
      for (const c of children) if (c.exitCode === null) c.kill();
      await controller?.stop();
      await sim?.stop();
      if (dir) await rm(dir, { recursive: true, force: true });
    },

    kubectlArgs,
    kubectl: (...args) => exec('kubectl', kubectlArgs(args), `kubectl ${args.join(' ')}`),
    run: (cmd, args) => exec(cmd, args, `${cmd} ${args.join(' ')}`),
    track,

    async ok(result) {
      const r = await result;
      expect(r.stderr, commands.get(r)).to.equal('');
      expect(r.code).to.equal(0);
      return r.stdout;
    },

    async editedExample(file, edits, out = file) {
      let text = await readFile(join(ROOT, 'examples', file), 'utf8');
      for (const [from, to] of edits) {
        if (typeof from === 'string') expect(text).to.contain(from);
        else expect(text).to.match(from);
        text = text.replace(from, to);
      }
      const path = join(started().dir, out);
      await writeFile(path, text);
      return path;
    },

    async startController(opts = {}) {
      controller = await runController({
        kubeconfigText: started().sim.kubeconfig, metricsBindAddress: '0', healthProbeBindAddress: '0', apiBindAddress: '0', webhookBindAddress: '0', logger: silentLogger(),
        ...opts,
      });
      return controller;
    },
  };
}
