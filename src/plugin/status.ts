// `kubectl pacer rollout status NAME`: kubectl's DeploymentStatusViewer (the same checks, in the
// same order, with the same words) over a list-then-watch of the one Deployment.

import type { Deployment } from '../api/types.ts';
import { PROGRESSING, REASON, REVISION_ANNOTATION, inPacerKeys } from '../engine/index.ts';
import { PluginError } from './errors.ts';
import type { Session } from './options.ts';
import { follow } from './watch.ts';
import { PACER_KIND } from './target.ts';

export interface RolloutStatus {
  /** The line to print (with its trailing newline), or '' with an error. */
  message: string;
  done: boolean;
  /** A failure: printed as `error: <error>`, exit 1. */
  error?: string;
}

export const STATUS_MESSAGES = {
  revisionMismatch: (want: number, running: string) =>
    `desired revision (${want}) is different from the running revision (${running})`,
  waitingObserved: 'Waiting for deployment spec update to be observed...\n',
  deadlineExceeded: (name: string) => `deployment "${name}" exceeded its progress deadline`,
  updated: (name: string, updated: number, desired: number) =>
    `Waiting for deployment "${name}" rollout to finish: ${updated} out of ${desired} new replicas have been updated...\n`,
  oldPending: (name: string, n: number) =>
    `Waiting for deployment "${name}" rollout to finish: ${n} old replicas are pending termination...\n`,
  available: (name: string, available: number, updated: number) =>
    `Waiting for deployment "${name}" rollout to finish: ${available} of ${updated} updated replicas are available...\n`,
  done: (name: string) => `deployment "${name}" successfully rolled out\n`,
  deleted: 'object has been deleted',
  timedOut: 'timed out waiting for the condition',
} as const;

/** The status of one Deployment as `kubectl rollout status` reports it; `revision` 0 = any. */
export function rolloutStatus(d: Deployment, revision = 0): RolloutStatus {
  const name = d.metadata.name ?? '';
  if (revision > 0) {
    const running = d.metadata.annotations?.[REVISION_ANNOTATION] ?? '';
    if (running !== String(revision))
      return { message: '', done: false, error: STATUS_MESSAGES.revisionMismatch(revision, running) };
  }
  const s = d.status ?? {};
  if ((d.metadata.generation ?? 0) > (s.observedGeneration ?? 0))
    return { message: STATUS_MESSAGES.waitingObserved, done: false };
  const progressing = s.conditions?.find((c) => c.type === PROGRESSING);
  if (progressing?.reason === REASON.timedOut)
    return { message: '', done: false, error: STATUS_MESSAGES.deadlineExceeded(name) };
  const desired = d.spec.replicas ?? 1;
  const updated = s.updatedReplicas ?? 0;
  const replicas = s.replicas ?? 0;
  const available = s.availableReplicas ?? 0;
  if (updated < desired) return { message: STATUS_MESSAGES.updated(name, updated, desired), done: false };
  if (replicas > updated) return { message: STATUS_MESSAGES.oldPending(name, replicas - updated), done: false };
  if (available < updated) return { message: STATUS_MESSAGES.available(name, available, updated), done: false };
  return { message: STATUS_MESSAGES.done(name), done: true };
}

/** A positive --revision, as kubectl validates it. */
export function parseRevisionFlag(v: string | undefined): number {
  if (v === undefined) return 0;
  if (!/^-?[0-9]+$/.test(v))
    throw new PluginError(
      `invalid argument "${v}" for "--revision" flag: strconv.ParseInt: parsing "${v}": invalid syntax`,
    );
  const n = Number(v);
  if (n < 0) throw new PluginError(`revision must be a positive integer: ${v}`);
  return n;
}

export interface StatusOptions {
  watch: boolean;
  /** 0 = wait forever. */
  timeoutMs: number;
  revision: number;
}

/** Runs the command; returns the exit code (errors are thrown as PluginError / KubeError). */
export async function runRolloutStatus(s: Session, name: string, o: StatusOptions): Promise<number> {
  // A plain GET first: a missing object or CRD gets kubectl's NotFound line, not "No resources found".
  // An apps/v1 Deployment's revision is under upstream's key: read in Pacer's.
  const kind = s.kind ?? PACER_KIND;
  const read = (d: Deployment): Deployment => (kind.native ? inPacerKeys(d) : d);
  const first = read(await s.client.getDeployment(s.namespace, name));
  if (!o.watch) return report(s, rolloutStatus(first, o.revision));

  const stop = new AbortController();
  const signals = [stop.signal, ...(s.signal ? [s.signal] : [])];
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  if (o.timeoutMs > 0)
    timer = setTimeout(() => {
      timedOut = true;
      stop.abort();
    }, o.timeoutMs);
  let result: number | undefined;
  let failure: unknown;
  const see = (d: Deployment): boolean => {
    const st = rolloutStatus(read(d), o.revision);
    if (st.error) {
      failure = new PluginError(st.error);
      return true;
    }
    s.io.stdout.write(st.message);
    if (st.done) {
      result = 0;
      return true;
    }
    return false;
  };
  try {
    await follow<Deployment>(
      s.client,
      kind.type,
      s.namespace,
      { fieldSelector: `metadata.name=${name}` },
      {
        onList(items) {
          const d = items.find((i) => i.metadata.name === name);
          if (!d) {
            failure = new PluginError(STATUS_MESSAGES.deleted);
            return true;
          }
          return see(d);
        },
        onEvent(type, d) {
          if (d.metadata.name !== name) return false;
          if (type === 'DELETED') {
            failure = new PluginError(STATUS_MESSAGES.deleted);
            return true;
          }
          return see(d);
        },
      },
      AbortSignal.any(signals),
    );
  } finally {
    if (timer) clearTimeout(timer);
  }
  if (failure) throw failure;
  if (result !== undefined) return result;
  if (timedOut) throw new PluginError(STATUS_MESSAGES.timedOut);
  return 130; // interrupted (Ctrl-C)
}

function report(s: Session, st: RolloutStatus): number {
  if (st.error) throw new PluginError(st.error);
  s.io.stdout.write(st.message);
  return 0;
}
