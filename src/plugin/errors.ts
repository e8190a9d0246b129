// One-line errors in kubectl's words. Every command throws; the entry point prints
// `describeError(...)` on stderr and exits with the code it carries (1, like kubectl).

import { KubeError } from '../kube/errors.ts';
import { STALE_SIM_HINT } from '../kube/simulated.ts';
import { GROUP, PLURAL } from '../api/types.ts';

/** The resource as kubectl names it in errors: `deployments.pacer.dev`. */
export const RESOURCE = `${PLURAL}.${GROUP}`;
/** The object prefix kubectl prints before a verb: `deployment.pacer.dev/web paused`. */
export const OBJECT_PREFIX = `deployment.${GROUP}/`;

export const CRD_MISSING =
  `the server doesn't have a resource type "${PLURAL}" in group "${GROUP}": Pacer's CRD is not installed ` +
  `(from a Pacer clone: kubectl apply -f crds/)`;

/** The same for a resource of Pacer's other than the Deployment (`analysisruns`: the analysis CRDs). */
export function crdMissing(plural: string): string {
  if (plural === PLURAL) return CRD_MISSING;
  const what =
    plural.startsWith('analysis') || plural === 'clusteranalysistemplates'
      ? "Pacer's analysis CRDs are"
      : `Pacer's ${plural} CRD is`;
  return `the server doesn't have a resource type "${plural}" in group "${GROUP}": ${what} not installed (from a Pacer clone: kubectl apply -f crds/)`;
}

/** A failure the plugin explains itself; printed as is (with `error: ` unless `raw`). */
export class PluginError extends Error {
  readonly exitCode: number;
  /** Printed without the `error: ` prefix (kubectl's `Error from server (...)` lines). */
  readonly raw: boolean;
  constructor(message: string, opts: { exitCode?: number; raw?: boolean } = {}) {
    super(message);
    this.name = 'PluginError';
    this.exitCode = opts.exitCode ?? 1;
    this.raw = opts.raw ?? false;
  }
}

export interface ErrorContext {
  /** The API server URL (for "connection refused"). */
  server?: string;
  /** The Deployment the command was about, for a NotFound without details. */
  name?: string;
  /** True when the API server does not serve the command's resource (checked after a 404). */
  crdMissing?: boolean;
  /** The plural of the pacer.dev resource the command is about (default: deployments). */
  resource?: string;
  /** Its group (default pacer.dev; apps for an apps/v1 Deployment). */
  group?: string;
  /** The kubeconfig is a simulated cluster's: an unreachable server gets a hint (it is likely gone). */
  simulated?: boolean;
}

function hostPort(server: string | undefined): string {
  if (!server) return 'localhost:8080';
  try {
    const u = new URL(server);
    return u.port ? u.host : `${u.hostname}:${u.protocol === 'https:' ? 443 : 80}`;
  } catch {
    return server;
  }
}

/** The text of a server Status without client-side prefixes. */
function serverMessage(e: KubeError): string {
  return e.status?.message ?? e.message;
}

/** The line kubectl would print for `err` (without the trailing newline). */
export function describeError(err: unknown, ctx: ErrorContext = {}): string {
  if (err instanceof PluginError) return err.raw ? err.message : `error: ${err.message}`;
  if (!(err instanceof KubeError)) return `error: ${err instanceof Error ? err.message : String(err)}`;
  if (ctx.crdMissing) return `error: ${crdMissing(ctx.resource ?? PLURAL)}`;
  switch (err.kind) {
    case 'Unreachable': {
      const hint = ctx.simulated ? `\nhint: ${STALE_SIM_HINT}` : '';
      if (err.reason === 'ECONNREFUSED') {
        return `The connection to the server ${hostPort(ctx.server)} was refused - did you specify the right host or port?${hint}`;
      }
      return `Unable to connect to the server: ${err.message.replace(/^[^:]*: /, '')}${hint}`;
    }
    case 'NotFound':
      if (err.status?.details?.name === undefined && ctx.name !== undefined) {
        return `Error from server (NotFound): ${ctx.resource ?? PLURAL}.${ctx.group ?? GROUP} "${ctx.name}" not found`;
      }
      return `Error from server (NotFound): ${serverMessage(err)}`;
    case 'Forbidden':
      if (err.code === 401) return 'error: You must be logged in to the server (Unauthorized)';
      return `Error from server (Forbidden): ${serverMessage(err)}`;
    case 'Invalid':
      // kubectl prints an Invalid status's message alone: `The Deployment "web" is invalid: ...`.
      return serverMessage(err);
    default: {
      const reason = err.status?.reason ?? err.reason;
      if (err.code !== undefined) return `Error from server${reason ? ` (${reason})` : ''}: ${serverMessage(err)}`;
      return `error: ${err.message}`;
    }
  }
}
