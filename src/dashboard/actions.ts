// The page's actions, carried out by the very code of `kubectl pacer rollout pause|resume|restart|undo`
// and `kubectl pacer set image` (src/plugin/), so that they do what the commands do, read and write as the same user, and fail
// with the same words: a refusal by RBAC comes back as kubectl prints it, `Error from server
// (Forbidden): deployments.pacer.dev "web" is forbidden: User "..." cannot patch resource ...`,
// with the API server's status code.

import type { KubeClient } from '../kube/client.ts';
import { KubeError } from '../kube/errors.ts';
import { PluginError, describeError } from '../plugin/errors.ts';
import type { Session } from '../plugin/options.ts';
import { runFreezeOff, runFreezeOn } from '../plugin/freeze.ts';
import { runPlanCancel } from '../plugin/deployments.ts';
import { runNodeRollPause, runNodeRollResume, runNodeRollSkip } from '../plugin/noderoll.ts';
import { PLUGIN_COMPONENT } from '../plugin/options.ts';
import { runPause } from '../plugin/pause.ts';
import { runRestart } from '../plugin/restart.ts';
import { runSetImage } from '../plugin/setimage.ts';
import { runRolloutUndo } from '../plugin/undo.ts';
import { operate } from '../planops/service.ts';
import { unknownPlanMessage } from '../engine/index.ts';
import type { Action, ActionRequest, ActionResult, Operation } from './api.ts';

export interface ActionOutcome {
  /** The HTTP status of the answer. */
  status: number;
  result: ActionResult;
}

export type Act = (namespace: string, name: string, action: Action, req: ActionRequest) => Promise<ActionOutcome>;

/** The actions on node rolls, the freeze switch and a service's plans. */
export type Operate = (op: Operation) => Promise<ActionOutcome>;

/**
 * The status for a failure: the API server's own (403, 404, 409, 422...); 409 for the command's
 * refusals (already paused, a paused Deployment cannot be rolled back, no such revision: the
 * Deployment is not in a state for it); 502 when the API server could not be reached.
 */
export function statusOf(err: unknown): number {
  if (err instanceof KubeError) {
    if (err.code !== undefined && err.code >= 400) return err.code;
    return err.kind === 'Unreachable' ? 502 : 500;
  }
  if (err instanceof PluginError) return 409;
  return 500;
}

const lines = (text: string): string[] =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

/** The actions through `client`: each one a plugin command with its output captured. */
export function pluginActions(client: KubeClient): Act {
  return async (namespace, name, action, req) => {
    let out = '';
    let err = '';
    const s: Session = {
      client,
      namespace,
      io: { stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (err += t) } },
    };
    try {
      if (action === 'undo') await runRolloutUndo(s, name, { toRevision: req.toRevision ?? 0, dryRun: 'none' });
      else if (action === 'restart') await runRestart(s, name);
      // CONTAINER=IMAGE as the command's argument: a bad one is refused in the command's words.
      else if (action === 'setImage') await runSetImage(s, name, [`${req.container ?? ''}=${req.image ?? ''}`]);
      else await runPause(s, name, action === 'pause');
      const warnings = lines(err);
      return { status: 200, result: { ok: true, message: out.trim(), ...(warnings.length ? { warnings } : {}) } };
    } catch (e) {
      return { status: statusOf(e), result: { ok: false, message: describeError(e, { server: client.server, name }) } };
    }
  };
}

/** A session whose output is kept: what the command printed, and its warnings. */
function captured(client: KubeClient, namespace: string) {
  const out = { stdout: '', stderr: '' };
  const s: Session = {
    client,
    namespace,
    io: { stdout: { write: (t: string) => (out.stdout += t) }, stderr: { write: (t: string) => (out.stderr += t) } },
  };
  const done = (): ActionOutcome => {
    const warnings = lines(out.stderr).map((w) => w.replace(/^Warning: /, ''));
    return { status: 200, result: { ok: true, message: out.stdout.trim(), ...(warnings.length ? { warnings } : {}) } };
  };
  return { s, done };
}

/** How long a cancel from the page waits for the controller's outcome on each app (the plugin's --timeout). */
export const CANCEL_WAIT_MS = 30_000;

/**
 * The node roll, freeze and plan actions through `client`: `kubectl pacer node-roll pause|resume
 * [--skip-analysis]|skip`, `freeze on|off` (the switch in `pacerNamespace`), the plan operations of
 * `kubectl pacer plan` (src/planops/, whose answers keep the SDK's codes: 208 for nothing to do, 400
 * and 404 refused), and `kubectl pacer deployment cancel ID [--force]` among the Deployments of
 * `served` (null: every namespace), which waits for each app's outcome and answers with its lines
 * (an app that could not be cancelled makes it a 409, its line among them).
 */
export function pluginOperations(client: KubeClient, pacerNamespace: string, served: string | null = null): Operate {
  return async (op) => {
    const { s, done } = captured(
      client,
      op.kind === 'plan' ? op.namespace : op.kind === 'marathon' ? (served ?? 'default') : pacerNamespace,
    );
    const name = op.kind === 'nodeRoll' ? op.name : op.kind === 'plan' ? op.service : undefined;
    try {
      if (op.kind === 'marathon') {
        let out = '';
        let err = '';
        let code: number;
        try {
          code = await runPlanCancel(
            {
              ...s,
              io: { stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (err += t) } },
            },
            op.id,
            { force: op.force, allNamespaces: served === null, wait: true, timeoutMs: CANCEL_WAIT_MS },
          );
        } catch (e) {
          // Marathon's 404 for an unknown id; a wait that ran out is the gateway's 504 (the request stays).
          if (!(e instanceof PluginError)) throw e;
          const status = e.message === unknownPlanMessage(op.id) ? 404 : e.message.startsWith('timed out') ? 504 : 409;
          return { status, result: { ok: false, message: describeError(e, { server: client.server }) } };
        }
        const message = [...lines(out), ...lines(err)].join('\n');
        return { status: code === 0 ? 200 : 409, result: { ok: code === 0, message } };
      }
      if (op.kind === 'nodeRoll') {
        if (op.action === 'pause') await runNodeRollPause(s, op.name);
        else if (op.action === 'resume')
          await runNodeRollResume(s, op.name, op.skipAnalysis ? { skipAnalysis: true } : {});
        else await runNodeRollSkip(s, op.name, op.node ?? '');
        return done();
      }
      if (op.kind === 'freeze') {
        if (op.action === 'on') await runFreezeOn(s, pacerNamespace, op.reason);
        else await runFreezeOff(s, pacerNamespace);
        return done();
      }
      const warnings: string[] = [];
      const r = await operate(
        { client, namespace: op.namespace, component: PLUGIN_COMPONENT, warn: (m) => warnings.push(m) },
        op.service,
        {
          op: op.action,
          plan: op.plan,
          ...(op.phase !== undefined ? { phase: op.phase } : {}),
          ...(op.step !== undefined ? { step: op.step } : {}),
          ...(op.parameters !== undefined ? { parameters: op.parameters } : {}),
        },
      );
      const all = [...new Set([...r.warnings, ...warnings])];
      const more = all.length ? { warnings: all } : {};
      if (r.code === 400 || r.code === 404)
        return { status: r.code, result: { ok: false, message: r.message, ...more } };
      return { status: r.code, result: { ok: true, message: r.message, ...more } };
    } catch (e) {
      return {
        status: statusOf(e),
        result: { ok: false, message: describeError(e, { server: client.server, ...(name ? { name } : {}) }) },
      };
    }
  };
}
