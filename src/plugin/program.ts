// The `kubectl pacer` command tree (commander). Flags follow kubectl's conventions: -n, -A,
// --kubeconfig, --context, -o json|yaml, `--flag=true|false` for booleans, Go durations for
// --timeout. Every failure ends as one kubectl-like line on stderr and exit code 1.

import { Command, CommanderError } from 'commander';
import { ANALYSIS_RUN_PLURAL } from '../api/analysis.ts';
import { runAnalysisList, runAnalysisShow, runRolloutAbort, runRolloutRetry } from './analysis.ts';
import { PluginError, describeError } from './errors.ts';
import { parseGoDuration } from './format.ts';
import { parseParameters, runPlanNames, runPlanOperation, runPlanShow } from './plan.ts';
import { runPlanCancel, runPlanList } from './deployments.ts';
import { runGet } from './get.ts';
import { runRolloutHistory } from './history.ts';
import { runList } from './list.ts';
import { addCommonOptions, connect, reportErrors } from './options.ts';
import type { CommonOptions, Session, Streams } from './options.ts';
import { runPause } from './pause.ts';
import { parseAddress, parsePort, runDashboard } from './dashboard.ts';
import { pacerNamespace } from './configmaps.ts';
import { runFreezeOff, runFreezeOn, runFreezeStatus } from './freeze.ts';
import { runWindowsClear, runWindowsSet, runWindowsStatus } from './windows.ts';
import { runNodeRollPause, runNodeRollResume, runNodeRollSkip, runNodeRollStatus } from './noderoll.ts';
import { runRestart } from './restart.ts';
import { runSetImage } from './setimage.ts';
import { parseRevisionFlag, runRolloutStatus } from './status.ts';
import { parseDeploymentArg } from './target.ts';
import { parseDryRun, runRolloutUndo } from './undo.ts';

/** Boolean flags that may be written `--flag=true|false` (kubectl/pflag style). */
const BOOL_FLAGS: Record<string, string> = {
  '--watch': 'watch',
  '-w': 'watch',
  '--wait': 'wait',
  '--all-namespaces': 'all-namespaces',
  '-A': 'all-namespaces',
  '--read-only': 'read-only',
};

/** kubectl's global flags that take a value: accepted anywhere on the command line. */
const GLOBAL_FLAGS = new Set(['--kubeconfig', '--context', '-n', '--namespace']);

/**
 * kubectl's flag spellings that commander does not know: `--watch=false` → `--no-watch`,
 * `--watch=true` → `--watch` (and --wait alike), and a bare `--dry-run` → `--dry-run=client`. kubectl's global flags
 * may come anywhere, before the command too (`kubectl pacer -n prod rollout status web`), while
 * commander knows them only on each command: they are moved after the command's own arguments.
 */
export function normalizeArgs(args: readonly string[]): string[] {
  const out: string[] = [];
  const globals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') {
      out.push(...globals, ...args.slice(i));
      return out;
    }
    if (GLOBAL_FLAGS.has(a) && i + 1 < args.length) {
      globals.push(a, args[++i]);
      continue;
    }
    if (GLOBAL_FLAGS.has(a.split('=')[0])) {
      globals.push(a);
      continue;
    }
    const m = /^(-{1,2}[A-Za-z-]+)=(true|false)$/.exec(a);
    if (m && BOOL_FLAGS[m[1]] !== undefined) {
      out.push(m[2] === 'true' ? `--${BOOL_FLAGS[m[1]]}` : `--no-${BOOL_FLAGS[m[1]]}`);
    } else if (a === '--dry-run') {
      out.push('--dry-run=client');
    } else {
      out.push(a);
    }
  }
  return [...out, ...globals];
}

/** A Go duration flag value in ms, with kubectl's error wording. */
export function durationFlag(flag: string, v: string | undefined): number {
  if (v === undefined) return 0;
  try {
    const ms = parseGoDuration(v);
    return Math.max(ms, 0);
  } catch (err) {
    throw new PluginError(`invalid argument "${v}" for "${flag}" flag: ${(err as Error).message}`);
  }
}

function intFlag(flag: string, v: string | undefined): number {
  if (v === undefined) return 0;
  if (!/^-?[0-9]+$/.test(v))
    throw new PluginError(
      `invalid argument "${v}" for "${flag}" flag: strconv.ParseInt: parsing "${v}": invalid syntax`,
    );
  return Number(v);
}

export interface ProgramContext {
  io: Streams;
  /** Aborted on Ctrl-C. */
  signal?: AbortSignal;
  /** The exit code of the command that ran. */
  exitCode: number;
}

/** The command tree; actions set `ctx.exitCode`. */
export function pluginProgram(ctx: ProgramContext): Command {
  const { io } = ctx;
  const run = async (
    name: string | undefined,
    o: CommonOptions,
    fn: (s: Session) => Promise<number>,
    resource?: string,
  ): Promise<void> => {
    let session: Session | undefined;
    ctx.exitCode = await reportErrors(
      io,
      name,
      () => session,
      async () => {
        session = connect(o, io, ctx.signal);
        return fn(session);
      },
      resource,
    );
  };

  /**
   * `run` for a command on one Deployment: `arg` is NAME (Pacer's kind) or TYPE/NAME
   * (`deployment.apps/NAME`: an apps/v1 Deployment in native mode; target.ts); `fn` gets the name,
   * with the session's client on that kind's resource.
   */
  const runOn = async (arg: string, o: CommonOptions, fn: (s: Session, name: string) => Promise<number>) => {
    let target: ReturnType<typeof parseDeploymentArg>;
    try {
      target = parseDeploymentArg(arg);
    } catch (err) {
      ctx.exitCode = await reportErrors(
        io,
        arg,
        () => undefined,
        () => Promise.reject(err),
      );
      return;
    }
    const { name, kind } = target;
    let session: Session | undefined;
    ctx.exitCode = await reportErrors(
      io,
      name,
      () => session,
      async () => {
        const s = connect(o, io, ctx.signal);
        session = { ...s, client: s.client.forDeployments(kind.type), kind };
        return fn(session, name);
      },
      kind.type.plural,
      kind.type.group,
    );
  };

  /** A command on one Deployment (run through `runOn`): its verb, its help line, and its NAME argument. */
  const onDeployment = (verb: string, description: string): Command =>
    new Command(verb)
      .description(description)
      .argument('<name>', 'the Deployment: NAME, or deployment.apps/NAME for an apps/v1 one (native mode)');

  const program = new Command('kubectl pacer')
    .description(
      'Rollout commands for Pacer Deployments (deployments.pacer.dev): the `kubectl rollout` verbs, a live tree view, list and set image, and the analysis runs that judge rollouts',
    )
    .showHelpAfterError(false);

  const rollout = new Command('rollout').description('Manage the rollout of a Pacer Deployment (like kubectl rollout)');
  program.addCommand(rollout);

  rollout.addCommand(
    addCommonOptions(
      onDeployment('status', 'Watch a rollout until it completes (exit 0) or misses its progress deadline (exit 1)')
        .option('-w, --watch', 'keep watching until the rollout finishes (--watch=false: print once)', true)
        .option('--no-watch', 'print the status once and exit')
        .option('--timeout <duration>', 'give up after this long (Go duration: 30s, 2m; 0 = forever)', '0s')
        .option('--revision <n>', 'require this revision to be the one rolling out (0 = any)'),
    ).action((name: string, o: CommonOptions & { watch: boolean; timeout?: string; revision?: string }) =>
      runOn(name, o, (s, name) =>
        runRolloutStatus(s, name, {
          watch: o.watch,
          timeoutMs: durationFlag('--timeout', o.timeout),
          revision: parseRevisionFlag(o.revision),
        }),
      ),
    ),
  );

  rollout.addCommand(
    addCommonOptions(
      onDeployment('history', "The revisions of a Deployment, or one revision's pod template").option(
        '--revision <n>',
        "show this revision's pod template",
      ),
      { output: true },
    ).action((name: string, o: CommonOptions & { revision?: string }) =>
      runOn(name, o, (s, name) =>
        runRolloutHistory(s, name, { revision: intFlag('--revision', o.revision), output: o.output }),
      ),
    ),
  );

  rollout.addCommand(
    addCommonOptions(
      onDeployment('undo', 'Roll back to the previous revision, or to --to-revision')
        .option('--to-revision <n>', 'the revision to roll back to (0 = the previous one)', '0')
        .option('--dry-run <strategy>', '"none", "client" (print the template) or "server"', 'none'),
    ).action((name: string, o: CommonOptions & { toRevision?: string; dryRun?: string }) =>
      runOn(name, o, (s, name) =>
        runRolloutUndo(s, name, { toRevision: intFlag('--to-revision', o.toRevision), dryRun: parseDryRun(o.dryRun) }),
      ),
    ),
  );

  for (const [verb, paused] of [
    ['pause', true],
    ['resume', false],
  ] as const) {
    rollout.addCommand(
      addCommonOptions(
        onDeployment(
          verb,
          paused ? 'Pause a rollout (spec.paused=true): template changes wait' : 'Resume a paused rollout',
        ),
      ).action((name: string, o: CommonOptions) => runOn(name, o, (s, name) => runPause(s, name, paused))),
    );
  }

  for (const [verb, description, run] of [
    [
      'restart',
      'Replace every pod through a rollout (pod-template annotation kubectl.kubernetes.io/restartedAt)',
      runRestart,
    ],
    [
      'retry',
      'Retry the analysis of the new revision: its run ended Failed, Error or Inconclusive; the next attempt starts (annotation pacer.dev/analysis-retry)',
      runRolloutRetry,
    ],
    [
      'abort',
      'Go back to the stable revision (status.stableRS) as a failed analysis would, the spec unchanged (annotation pacer.dev/abort)',
      runRolloutAbort,
    ],
  ] as const) {
    rollout.addCommand(
      addCommonOptions(onDeployment(verb, description)).action((name: string, o: CommonOptions) =>
        runOn(name, o, (s, name) => run(s, name)),
      ),
    );
  }

  program.addCommand(
    addCommonOptions(
      onDeployment('get', 'A Deployment as a tree of revisions, ReplicaSets and pods; -w redraws on every change')
        .option('-w, --watch', 'keep redrawing until Ctrl-C', false)
        .option('--no-watch', 'draw once')
        .option('--timeout <duration>', 'with -w: stop after this long (Go duration; 0 = until Ctrl-C)', '0s'),
      { output: true },
    ).action((name: string, o: CommonOptions & { watch: boolean; timeout?: string }) =>
      runOn(name, o, (s, name) =>
        runGet(s, name, { watch: o.watch, timeoutMs: durationFlag('--timeout', o.timeout), output: o.output }),
      ),
    ),
  );

  program.addCommand(
    addCommonOptions(
      new Command('list').description(
        'One line per Deployment: strategy, desired, updated, available and rollout state',
      ),
      { output: true, allNamespaces: true },
    ).action((o: CommonOptions) =>
      run(undefined, o, (s) => runList(s, { allNamespaces: o.allNamespaces === true, output: o.output })),
    ),
  );

  program.addCommand(
    addCommonOptions(
      new Command('deployments').description(
        'The active deployments, as Marathon shows them: the changed apps joined through their dependencies, step by step',
      ),
      { output: true, allNamespaces: true },
    ).action((o: CommonOptions) =>
      run(undefined, o, (s) => runPlanList(s, { allNamespaces: o.allNamespaces === true, output: o.output })),
    ),
  );

  const analysis = new Command('analysis').description(
    'The AnalysisRuns (analysisruns.pacer.dev) that judge rollouts by their metrics',
  );
  program.addCommand(analysis);
  analysis.addCommand(
    addCommonOptions(
      new Command('list').description(
        'One line per AnalysisRun: its Deployment and revision, phase, measurements taken and age',
      ),
      { output: true, allNamespaces: true },
    ).action((o: CommonOptions) =>
      run(
        undefined,
        o,
        (s) => runAnalysisList(s, { allNamespaces: o.allNamespaces === true, output: o.output }),
        ANALYSIS_RUN_PLURAL,
      ),
    ),
  );
  analysis.addCommand(
    addCommonOptions(
      new Command('show')
        .description(
          "A run's phase and message, then each metric: its provider and query, conditions, limits, counts and kept measurements (-o json|yaml: the object)",
        )
        .argument('<run>', 'the AnalysisRun'),
      { output: true },
    ).action((runName: string, o: CommonOptions) =>
      run(runName, o, (s) => runAnalysisShow(s, runName, { output: o.output }), ANALYSIS_RUN_PLURAL),
    ),
  );

  const deployment = new Command('deployment').description(
    'Act on one active deployment (the ID from kubectl pacer deployments)',
  );
  program.addCommand(deployment);
  deployment.addCommand(
    addCommonOptions(
      new Command('cancel')
        .description(
          'Cancel a deployment: the controller rolls every affected app back to the revision it had before; with --force it only stops it (every affected app paused where it stands). One request, carried out on the server side',
        )
        .argument('<id>', 'the deployment ID')
        .option('--force', 'only stop it: pause every affected app (spec.paused=true)', false)
        .option(
          '--wait',
          'wait for the controller to carry the cancel out and print what it did to each app (--wait=false: return once it is requested)',
          true,
        )
        .option('--no-wait', 'return once the cancel is requested')
        .option('--timeout <duration>', 'with --wait: give up after this long (Go duration; 0 = forever)', '60s'),
      { allNamespaces: true },
    ).action(async (id: string, o: CommonOptions & { force: boolean; wait: boolean; timeout?: string }) => {
      await run(undefined, o, (s) =>
        runPlanCancel(s, id, {
          force: o.force === true,
          allNamespaces: o.allNamespaces === true,
          wait: o.wait,
          timeoutMs: durationFlag('--timeout', o.timeout),
        }),
      );
    }),
  );

  const plan = new Command('plan').description(
    "A service's plans, as the DC/OS SDK shows them: plan → phases → steps with their statuses",
  );
  program.addCommand(plan);
  plan.addCommand(
    addCommonOptions(
      new Command('list')
        .description(
          'The plans of a service (a Deployment and those joined to it through spec.dependencies), in priority order',
        )
        .argument('<service>', 'a Deployment of the service'),
      { output: true },
    ).action((service: string, o: CommonOptions) =>
      run(service, o, (s) => runPlanNames(s, service, { output: o.output })),
    ),
  );
  plan.addCommand(
    addCommonOptions(
      new Command('show')
        .alias('status')
        .description("A plan as a tree with every element's status (-o json|yaml: the SDK's plan JSON)")
        .argument('<service>', 'a Deployment of the service')
        .argument('[plan]', 'the plan (default: deploy; node-roll for noderoll/NAME)')
        .option('-w, --watch', 'print the tree again on every change, until Ctrl-C', false)
        .option('--no-watch', 'print once')
        .option('--timeout <duration>', 'with -w: stop after this long (Go duration; 0 = until Ctrl-C)', '0s'),
      { output: true },
    ).action((service: string, name: string | undefined, o: CommonOptions & { watch: boolean; timeout?: string }) =>
      run(service, o, (s) =>
        runPlanShow(s, service, name, {
          output: o.output,
          watch: o.watch,
          timeoutMs: durationFlag('--timeout', o.timeout),
        }),
      ),
    ),
  );
  for (const [op, alias, what] of [
    [
      'continue',
      'resume',
      'Continue a plan, or one phase: clears its interrupt; a canary phase releases its next canary step (a plan-level continue releases none)',
    ],
    [
      'interrupt',
      'pause',
      'Interrupt a plan, or one phase: no new step starts (steps under way carry on); ignored by a canary phase still waiting for its continues',
    ],
  ] as const) {
    plan.addCommand(
      addCommonOptions(
        new Command(op)
          .alias(alias)
          .description(what)
          .argument('<service>', 'a Deployment of the service')
          .argument('[plan]', 'the plan', 'deploy')
          .argument('[phase]', 'the phase (a Deployment of the service)'),
      ).action((service: string, name: string, phase: string | undefined, o: CommonOptions) =>
        run(service, o, (s) =>
          runPlanOperation(s, service, { op, plan: name, ...(phase !== undefined ? { phase } : {}) }),
        ),
      ),
    );
  }
  plan.addCommand(
    addCommonOptions(
      new Command('start')
        .description(
          'Start a plan: clears its interrupt; -p parameters go into every pod template of the service as environment variables (a new rollout); a finished plan runs again (a rollout restart)',
        )
        .argument('<service>', 'a Deployment of the service')
        .argument('[plan]', 'the plan', 'deploy')
        .option('-p, --parameter <KEY=VALUE>', 'a parameter (repeatable)', (v: string, all: string[] = []) => [
          ...all,
          v,
        ]),
    ).action((service: string, name: string, o: CommonOptions & { parameter?: string[] }) =>
      run(service, o, (s) =>
        runPlanOperation(s, service, { op: 'start', plan: name, parameters: parseParameters(o.parameter ?? []) }),
      ),
    ),
  );
  plan.addCommand(
    addCommonOptions(
      new Command('stop')
        .description(
          'Stop a plan: interrupts it and starts every step again (a rollout restart of its Deployments), held until start or continue',
        )
        .argument('<service>', 'a Deployment of the service')
        .argument('[plan]', 'the plan', 'deploy'),
    ).action((service: string, name: string, o: CommonOptions) =>
      run(service, o, (s) => runPlanOperation(s, service, { op: 'stop', plan: name })),
    ),
  );
  for (const [cmd, op, alias, what] of [
    [
      'force-complete',
      'forceComplete',
      'force',
      'Mark a step, every step of a phase, or the whole plan COMPLETE: the gate moves on, and the rollout counts the forced pods as available',
    ],
    [
      'restart',
      'restart',
      'force-restart',
      'Start a step again (its pod is replaced), or a phase or the plan (a rollout restart of its Deployments)',
    ],
  ] as const) {
    plan.addCommand(
      addCommonOptions(
        new Command(cmd)
          .alias(alias)
          .description(what)
          .argument('<service>', 'a Deployment of the service')
          .argument('[plan]', 'the plan', 'deploy')
          .argument('[phase]', 'the phase (a Deployment of the service)')
          .argument('[step]', 'the step, e.g. web-0:[app] (needs its phase)'),
      ).action((service: string, name: string, phase: string | undefined, step: string | undefined, o: CommonOptions) =>
        run(service, o, (s) =>
          runPlanOperation(s, service, {
            op,
            plan: name,
            ...(phase !== undefined ? { phase } : {}),
            ...(step !== undefined ? { step } : {}),
          }),
        ),
      ),
    );
  }

  const roll = new Command('node-roll').description(
    "A NodeRoll (noderolls.pacer.dev): its progress, and the operator's levers",
  );
  program.addCommand(roll);
  roll.addCommand(
    addCommonOptions(
      new Command('status')
        .description(
          "Phase, what it does or waits for, each original node's step, the pause (-o json|yaml: the object)",
        )
        .argument('<name>', 'the NodeRoll'),
      { output: true },
    ).action((name: string, o: CommonOptions) => run(name, o, (s) => runNodeRollStatus(s, name, { output: o.output }))),
  );
  roll.addCommand(
    addCommonOptions(
      new Command('pause')
        .description('Hold the roll where it is (spec.paused): nothing new is cordoned, evicted or terminated')
        .argument('<name>', 'the NodeRoll'),
    ).action((name: string, o: CommonOptions) => run(name, o, (s) => runNodeRollPause(s, name))),
  );
  roll.addCommand(
    addCommonOptions(
      new Command('resume')
        .description(
          "Go on from the checkpoint: lifts spec.paused, or the pause a timeout or a node's analysis set (every wait under way starts its clock again; a run that ended badly is followed by a new one for that node)",
        )
        .argument('<name>', 'the NodeRoll')
        .option('--skip-analysis', "paused on a node's analysis: let that node pass its gate without a run"),
    ).action((name: string, o: CommonOptions & { skipAnalysis?: boolean }) =>
      run(name, o, (s) => runNodeRollResume(s, name, { skipAnalysis: o.skipAnalysis === true })),
    ),
  );
  roll.addCommand(
    addCommonOptions(
      new Command('skip')
        .description('Move a blocked node to the end: the roll goes on with the others and comes back to it')
        .argument('<name>', 'the NodeRoll')
        .argument('<node>', 'an original node not yet terminated'),
    ).action((name: string, node: string, o: CommonOptions) => run(name, o, (s) => runNodeRollSkip(s, name, node))),
  );

  const freeze = new Command('freeze').description(
    "The freeze switch: stop every new disruption Pacer would cause, rollouts and node rolls alike (-n: Pacer's namespace, default pacer-system)",
  );
  program.addCommand(freeze);
  freeze.addCommand(
    addCommonOptions(
      new Command('on')
        .description(
          'Freeze: no new rollout step, eviction or node termination (pods already starting finish; a larger spec.replicas still scales up)',
        )
        .option('--reason <text>', 'why, shown in every status the freeze holds'),
    ).action((o: CommonOptions & { reason?: string }) =>
      run('', o, (s) => runFreezeOn(s, pacerNamespace(o.namespace), o.reason)),
    ),
  );
  freeze.addCommand(
    addCommonOptions(
      new Command('off').description(
        'Lift the freeze: rollouts and node rolls go on (their waits start their clocks again)',
      ),
    ).action((o: CommonOptions) => run('', o, (s) => runFreezeOff(s, pacerNamespace(o.namespace)))),
  );
  freeze.addCommand(
    addCommonOptions(
      new Command('status').description('Whether Pacer is frozen, why and for how long (-o json|yaml: the ConfigMap)'),
      { output: true },
    ).action((o: CommonOptions) =>
      run('', o, (s) => runFreezeStatus(s, pacerNamespace(o.namespace), { output: o.output })),
    ),
  );

  const windows = new Command('windows').description(
    "The cluster's default maintenance windows, beside the freeze switch: when NodeRolls without windows of their own may disrupt (-n: Pacer's namespace, default pacer-system)",
  );
  program.addCommand(windows);
  windows.addCommand(
    addCommonOptions(
      new Command('set')
        .description(
          'Set the default windows from a file: "windows" and "blackouts" in the shape of a NodeRoll\'s spec.windows and spec.blackouts (checked before anything is written)',
        )
        .option('-f, --filename <file>', 'the YAML or JSON file ("-": stdin)'),
    ).action((o: CommonOptions & { filename?: string }) =>
      run('', o, (s) => runWindowsSet(s, pacerNamespace(o.namespace), o.filename)),
    ),
  );
  windows.addCommand(
    addCommonOptions(
      new Command('status').description(
        'The default windows and blackouts, and whether one is open now for a NodeRoll without its own (-o json|yaml: the same as a document)',
      ),
      { output: true },
    ).action((o: CommonOptions) =>
      run('', o, (s) => runWindowsStatus(s, pacerNamespace(o.namespace), { output: o.output })),
    ),
  );
  windows.addCommand(
    addCommonOptions(
      new Command('clear').description(
        'Remove the default windows: NodeRolls without windows of their own may roll at any time',
      ),
    ).action((o: CommonOptions) => run('', o, (s) => runWindowsClear(s, pacerNamespace(o.namespace)))),
  );

  program.addCommand(
    addCommonOptions(
      new Command('dashboard')
        .description(
          'Serve the web dashboard on this machine with your kubeconfig: every Deployment of the namespace (or of all with -A) live, and pause, resume and undo under your own RBAC',
        )
        .option('--port <port>', 'the port to listen on (0: any free port)', '3100')
        .option('--address <address>', 'the address to listen on (an IP address or localhost)', '127.0.0.1')
        .option('--read-only', 'show only: every action is refused', false)
        .option('--no-read-only', 'allow the actions (the default)'),
      { allNamespaces: true },
    ).action(async (o: CommonOptions & { port?: string; address?: string; readOnly: boolean }) => {
      let port: number;
      let address: string;
      try {
        port = parsePort(o.port);
        address = parseAddress(o.address);
      } catch (err) {
        io.stderr.write(`${describeError(err)}\n`);
        ctx.exitCode = 1;
        return;
      }
      await run(undefined, o, (s) =>
        runDashboard(s, {
          port,
          address,
          namespace: o.allNamespaces === true ? undefined : s.namespace,
          readOnly: o.readOnly === true,
        }),
      );
    }),
  );

  const set = new Command('set').description('Change a Deployment (like kubectl set)');
  program.addCommand(set);
  set.addCommand(
    addCommonOptions(
      onDeployment(
        'image',
        'Set container images: NAME CONTAINER=IMAGE ... (CONTAINER "*" = every container)',
      ).argument('<container=image...>', 'the images to set'),
    ).action((name: string, images: string[], o: CommonOptions) =>
      runOn(name, o, (s, name) => runSetImage(s, name, images)),
    ),
  );

  // addCommand() does not pass these settings down: every command writes to `io` and throws
  // instead of exiting (so tests and the entry point decide the exit code).
  const configure = (c: Command): void => {
    c.configureOutput({ writeOut: (t) => io.stdout.write(t), writeErr: (t) => io.stderr.write(t) }).exitOverride();
    c.commands.forEach(configure);
  };
  configure(program);
  return program;
}

/** Parses and runs `args` (without node and the script); returns the exit code. */
export async function runPlugin(args: readonly string[], io: Streams, signal?: AbortSignal): Promise<number> {
  const ctx: ProgramContext = { io, signal, exitCode: 0 };
  const program = pluginProgram(ctx);
  try {
    await program.parseAsync(normalizeArgs(args), { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError)
      return err.exitCode === 0 || err.code === 'commander.helpDisplayed' || err.code === 'commander.help' ? 0 : 1;
    io.stderr.write(`error: ${(err as Error).message}\n`);
    return 1;
  }
  return ctx.exitCode;
}
