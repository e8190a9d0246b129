// The Node.js settings advised for a controller run outside a container (`pacer controller` on a
// VM, `make run`), to be given as NODE_OPTIONS: nothing sets them there (a V8 heap flag cannot be
// changed once the process runs), and the start-up log line names them when they are missing.
// scale.bench.ts gives them to its controller. Why, with the figures: docs/install.md#memory.
//
// --max-semi-space-size=8: V8's young generation (two semi-spaces, where new objects are made)
// capped at 8 MiB a semi-space. Node sizes it from the memory it sees: with Node 24, 1 MiB in a
// container of 512 MiB or less, 16 MiB at 1 GiB, 32 MiB at 2 GiB and above (measured in memory
// cgroups, docs/install.md#memory), and with no container limit on a large machine the
// controller's grew to 128 MiB committed (bench/RESULTS.md), which it fills with watch events'
// parsed objects and passes' snapshots: that is RSS, and each scavenge copies whatever of it is
// still alive, a pause that grows with it. 8 MiB lies between what Node gives a 512 MiB and a
// 1 GiB container. The image does not set it: in a container, Node's own choice.
// Node's CLI docs describe the flag and its default:
// https://nodejs.org/api/cli.html#--max-semi-space-sizesize-in-mib
export const CONTROLLER_NODE_OPTIONS = '--max-semi-space-size=8';

/**
 * Whether V8's young generation is capped in this process (NODE_OPTIONS or Node's own flags), for
 * the controller's start-up log line.
 */
export function youngGeneration(
  nodeOptions = process.env.NODE_OPTIONS ?? '',
  execArgv: readonly string[] = process.execArgv,
): string {
  const flag = [...nodeOptions.split(/\s+/), ...execArgv].findLast((f) => /^--max[-_]semi[-_]space[-_]size=/.test(f));
  return flag !== undefined
    ? `${flag.slice(flag.indexOf('=') + 1)} MiB a semi-space`
    : `Node's default, sized from the memory it sees (outside a container: NODE_OPTIONS=${CONTROLLER_NODE_OPTIONS}, docs/install.md#memory)`;
}
