// A memory cgroup for a bench's child process: the kernel's own limit, as a container's memory
// limit is, so that Node sizes its heap as it does in a container of that size (it reads the
// cgroup's limit at start: nodejs/node#27508; in a 1 GiB one Node 24 gives a 512 MiB old
// generation and a 560 MiB heap limit) and a process over the limit is killed as a pod would be.
// cgroup v2 (a `memory.max` file under /sys/fs/cgroup) and v1 (/sys/fs/cgroup/memory) are both
// taken; making one needs root.

import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface MemoryCgroup {
  /** The directory made for it. */
  readonly dir: string;
  /** `command args` run inside the cgroup: a shell that enters it, then execs the command (same pid). */
  wrap(command: string, args: readonly string[]): [string, string[]];
  /** The cgroup's highest memory use so far, MiB (memory.peak, or v1's max_usage_in_bytes); undefined if the kernel keeps none. */
  peakMiB(): number | undefined;
  /** Whether the kernel killed a process in it for memory (the oom_kill count of memory.events, or of v1's memory.oom_control); undefined if the kernel keeps none. */
  oomKilled(): boolean | undefined;
  /** Lifts the limit (for work after the measured part that is not the process's own, such as a heap snapshot). */
  unlimit(): void;
  /** Removes it; its processes must have exited. */
  remove(): void;
}

const ROOT = '/sys/fs/cgroup';

/** A new memory cgroup of `limitMiB`, or an Error naming what could not be done. */
export function memoryCgroup(name: string, limitMiB: number): MemoryCgroup {
  const v2 = existsSync(join(ROOT, 'cgroup.controllers'));
  const dir = v2 ? join(ROOT, name) : join(ROOT, 'memory', name);
  if (!v2 && !existsSync(join(ROOT, 'memory'))) throw new Error(`no memory cgroup controller under ${ROOT}`);
  try {
    mkdirSync(dir);
    writeFileSync(join(dir, v2 ? 'memory.max' : 'memory.limit_in_bytes'), String(limitMiB * 2 ** 20));
  } catch (err) {
    throw new Error(`making a memory cgroup of ${limitMiB} MiB at ${dir} (needs root): ${(err as Error).message}`);
  }
  const read = (file: string): string | undefined => {
    try {
      return readFileSync(join(dir, file), 'utf8');
    } catch {
      return undefined;
    }
  };
  return {
    dir,
    wrap: (command, args) => [
      '/bin/sh',
      ['-c', 'echo $$ > "$0" && exec "$@"', join(dir, 'cgroup.procs'), command, ...args],
    ],
    peakMiB: () => {
      const bytes = read(v2 ? 'memory.peak' : 'memory.max_usage_in_bytes');
      return bytes === undefined ? undefined : Number(bytes) / 2 ** 20;
    },
    oomKilled: () => {
      const events = read(v2 ? 'memory.events' : 'memory.oom_control');
      const m = events?.match(/^oom_kill (\d+)$/m);
      return m ? Number(m[1]) > 0 : undefined;
    },
    unlimit: () => writeFileSync(join(dir, v2 ? 'memory.max' : 'memory.limit_in_bytes'), v2 ? 'max' : '-1'),
    remove: () => rmdirSync(dir),
  };
}
