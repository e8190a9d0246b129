// The Node.js settings the controller's image runs with: its NODE_OPTIONS (the Dockerfile's ENV,
// scripts/image.ts's config; test/unit/api/manifests.test.ts holds the Dockerfile to this value).
// Why, with the figures: docs/install.md#memory.
//
// --max-semi-space-size=8: V8's young generation (two semi-spaces, where new objects are made)
// capped at 8 MiB a semi-space. Left to itself Node 24 grows it to 64 MiB a semi-space (128 MiB
// committed) on a machine or container with a gigabyte or more, which the controller fills with a
// watch event's parse and a pass's snapshot: that is RSS, and each scavenge copies whatever of it
// is still alive, a pause that grows with it. Node's CLI docs describe the flag:
// https://nodejs.org/api/cli.html#--max-semi-space-sizesize-in-mib
export const CONTROLLER_NODE_OPTIONS = '--max-semi-space-size=8';

/**
 * Whether V8's young generation is capped in this process (NODE_OPTIONS or Node's own flags), for
 * the controller's start-up log line: outside the image a controller runs with Node's default.
 */
export function youngGeneration(
  nodeOptions = process.env.NODE_OPTIONS ?? '',
  execArgv: readonly string[] = process.execArgv,
): string {
  const flag = [...nodeOptions.split(/\s+/), ...execArgv].findLast((f) => /^--max[-_]semi[-_]space[-_]size=/.test(f));
  return flag !== undefined
    ? `${flag.slice(flag.indexOf('=') + 1)} MiB a semi-space`
    : `Node's default (the image sets NODE_OPTIONS=${CONTROLLER_NODE_OPTIONS}: docs/install.md#memory)`;
}
