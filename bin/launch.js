// Starts a TypeScript entry point of Pacer on a Node.js that can run it.
// Pacer's sources are TypeScript run directly through Node's type stripping (Node >= 22.19, MIN_NODE).
// When the current node is older (the machines here ship Node 20), re-run the entry with the
// Node 24 that the `node` devDependency pins, so `npx pacer` and a kubectl plugin on PATH both work.
// An entry may also have a bundle (the kubectl plugin: dist/plugin/, scripts/build-plugin.ts): it is
// run instead of the sources, with Node's compile cache on, while it is newer than every file it
// was built from; missing or older, the sources run as before (docs/plugin.md, "Start-up time").
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import module from 'node:module';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The oldest Node that runs Pacer, package.json's `engines` (type stripping came in 22.18; undici,
 * under @kubernetes/client-node, asks for 22.19).
 */
export const MIN_NODE = [22, 19];

function canRun() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  return major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
}

/**
 * The bundle in `dir` (relative to `base`, the repository by default) when it may run: `{ file }`;
 * else `{ why }`, what keeps it from running. Its inputs.json names the bundle and the files it was
 * built from, relative to `base`; the bundle is current while none of them is newer than it (or gone).
 */
export function bundleState(dir, base = root) {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(join(base, dir, 'inputs.json'), 'utf8'));
  } catch {
    return { why: `there is no bundle in ${dir}/` };
  }
  const file = join(base, dir, manifest.bundle);
  const built = statSync(file, { throwIfNoEntry: false })?.mtimeMs;
  if (built === undefined) return { why: `there is no bundle in ${dir}/` };
  for (const input of manifest.inputs) {
    const changed = statSync(join(base, input), { throwIfNoEntry: false })?.mtimeMs;
    if (changed === undefined) return { why: `${input}, which ${dir}/ was built from, is gone` };
    if (changed > built) return { why: `${dir}/ is older than ${input}` };
  }
  return { file };
}

/**
 * Runs `entry` (a TypeScript file, relative to the repository). `opts.bundle`: the folder of its
 * bundle, run instead while it is current; `opts.name` names the command in the note printed (on
 * a terminal only) when the sources run instead of a bundle.
 */
export async function launch(entry, opts = {}) {
  let file = join(root, entry);
  // PACER_FROM_SOURCES=1: the sources even when the bundle is current (source lines in stack
  // traces; bench/plugin.bench.ts's comparison).
  if (opts.bundle && process.env.PACER_FROM_SOURCES !== '1') {
    const bundle = bundleState(opts.bundle);
    if (bundle.file) {
      file = bundle.file;
    } else if (process.stderr.isTTY) {
      process.stderr.write(
        `${opts.name ?? entry}: running from the TypeScript sources, which starts slower: ${bundle.why} (\`make\` builds it)\n`,
      );
    }
  }
  if (canRun()) {
    // Compiled code kept on disk (os.tmpdir()/node-compile-cache, NODE_COMPILE_CACHE elsewhere):
    // a bundle is compiled once, not on every command.
    if (file.endsWith('.mjs')) module.enableCompileCache?.();
    await import(file);
    return;
  }
  const pinned = join(root, 'node_modules', 'node', 'bin', 'node');
  if (!existsSync(pinned)) {
    process.stderr.write(
      `error: Pacer needs Node.js >= ${MIN_NODE.join('.')} (found ${process.version}); run "npm ci" to install the pinned Node 24 or use Node 24 LTS\n`,
    );
    process.exit(1);
  }
  const env = file.endsWith('.mjs')
    ? { ...process.env, NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? join(tmpdir(), 'node-compile-cache') }
    : process.env;
  const child = spawn(pinned, [file, ...process.argv.slice(2)], { stdio: 'inherit', env });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 + 1 : 1)));
}
