// The page's actions, carried out by the very code of `kubectl pacer rollout pause|resume|undo`
// (src/plugin/), so that they do what the commands do, read and write as the same user, and fail
// with the same words: a refusal by RBAC comes back as kubectl prints it, `Error from server
// (Forbidden): deployments.pacer.dev "web" is forbidden: User "..." cannot patch resource ...`,
// with the API server's status code.

import type { KubeClient } from '../kube/client.ts';
import { KubeError } from '../kube/errors.ts';
import { PluginError, describeError } from '../plugin/errors.ts';
import type { Session } from '../plugin/options.ts';
import { runPause } from '../plugin/pause.ts';
import { runRolloutUndo } from '../plugin/undo.ts';
import type { Action, ActionRequest, ActionResult } from './api.ts';

export interface ActionOutcome {
  /** The HTTP status of the answer. */
  status: number;
  result: ActionResult;
}

export type Act = (namespace: string, name: string, action: Action, req: ActionRequest) => Promise<ActionOutcome>;

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
      else await runPause(s, name, action === 'pause');
      const warnings = lines(err);
      return { status: 200, result: { ok: true, message: out.trim(), ...(warnings.length ? { warnings } : {}) } };
    } catch (e) {
      return { status: statusOf(e), result: { ok: false, message: describeError(e, { server: client.server, name }) } };
    }
  };
}
