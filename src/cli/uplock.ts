// One `pacer up` on the simulated cluster per kubeconfig: a second `make run` in the same directory
// would rewrite the first one's kubeconfig (pointing the first terminal's kubectl at nothing) and
// truncate its log before failing on a port in use. So before it touches anything, `pacer up`
// claims a small record beside the kubeconfig (`.pacer/up.json`: its pid, the simulated cluster's
// address, the ports) and checks that the ports it is about to listen on are free; a run that finds
// a live record, or a port taken, refuses with the running one's pid and address and writes nothing.
// A record whose process is gone (a SIGKILL, a crash) is taken over.

import { mkdirSync, openSync, closeSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { parseBindAddress } from '../server/http.ts';
import { CliError } from './controller.ts';

/** What a running `pacer up` says about itself. */
export interface UpRecord {
  pid: number;
  /** The simulated cluster's URL, once it serves. */
  server?: string;
  kubeconfig: string;
  logFile?: string;
  /** The controller's endpoints, once they listen ("metrics http://127.0.0.1:8443/metrics", ...). */
  endpoints?: string[];
}

/** Where the record of the run whose kubeconfig is `kubeconfig` lives. */
export function upRecordPath(kubeconfig: string): string {
  return join(dirname(kubeconfig), '.pacer', 'up.json');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readRecord(path: string): UpRecord | undefined {
  try {
    const r = JSON.parse(readFileSync(path, 'utf8')) as UpRecord;
    return typeof r.pid === 'number' ? r : undefined;
  } catch {
    return undefined;
  }
}

/** The refusal naming the running one. */
export function runningMessage(r: UpRecord, recordPath: string): string {
  const where = r.server ? `, simulated cluster at ${r.server}` : ' (still starting)';
  return (
    `pacer is already running here: pid ${r.pid}${where}, its kubeconfig ${r.kubeconfig}` +
    `${r.endpoints?.length ? `, ${r.endpoints.join(', ')}` : ''}. ` +
    `Use that one (export KUBECONFIG=${r.kubeconfig}), or stop it first (Ctrl-C in its terminal, or kill ${r.pid}); ` +
    `nothing of it was changed (its record: ${recordPath})`
  );
}

/** Throws CliError(…, 1) when one of the addresses cannot be listened on now; the port is left free. */
export async function checkPortsFree(addresses: Array<[flag: string, address: string | undefined]>): Promise<void> {
  for (const [flag, address] of addresses) {
    if (address === undefined) continue;
    const bind = parseBindAddress(address);
    if (!bind || bind.port === 0) continue;
    await new Promise<void>((resolve, reject) => {
      const probe = createServer();
      probe.once('error', (err: NodeJS.ErrnoException) =>
        reject(
          new CliError(
            `${flag} ${address}: ${err.code === 'EADDRINUSE' ? 'the port is in use (by another pacer, or another program)' : err.message}; ` +
              `pass another address (${flag}=127.0.0.1:0 for any free port, or 0 to switch it off); nothing was started or written`,
            1,
          ),
        ),
      );
      probe.listen({ host: bind.host, port: bind.port, exclusive: true }, () => probe.close(() => resolve()));
    });
  }
}

/** A claimed record: update it as the run comes up, release it when the run stops. */
export interface UpClaim {
  path: string;
  update(patch: Partial<UpRecord>): void;
  release(): void;
}

/**
 * Claims the record for a run that will write `kubeconfig`; throws CliError(…, 1) naming the
 * running one when another live process holds it. Nothing else is written before this succeeds.
 */
export function claimUp(kubeconfig: string, extra: Partial<UpRecord> = {}): UpClaim {
  const path = upRecordPath(kubeconfig);
  mkdirSync(dirname(path), { recursive: true });
  let record: UpRecord = { pid: process.pid, kubeconfig, ...extra };
  for (let attempt = 0; ; attempt++) {
    try {
      closeSync(openSync(path, 'wx'));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw err;
      const held = readRecord(path);
      if (held && alive(held.pid)) throw new CliError(runningMessage(held, path), 1);
      rmSync(path, { force: true }); // its process is gone: take it over
    }
  }
  const write = (): void => writeFileSync(path, `${JSON.stringify(record, null, 2)}\n`);
  write();
  let released = false;
  return {
    path,
    update(patch) {
      if (released) return;
      record = { ...record, ...patch };
      write();
    },
    release() {
      if (released) return;
      released = true;
      if (readRecord(path)?.pid === process.pid) rmSync(path, { force: true });
    },
  };
}
