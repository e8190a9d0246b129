// Starts a TypeScript entry point of Pacer on a Node.js that can run it.
// Pacer's sources are TypeScript run directly through Node's type stripping (Node >= 22.19, MIN_NODE).
// When the current node is older (the machines here ship Node 20), re-run the entry with the
// Node 24 that the `node` devDependency pins, so `npx pacer` and a kubectl plugin on PATH both work.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
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

export async function launch(entry) {
  const file = join(root, entry);
  if (canRun()) {
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
  const child = spawn(pinned, [file, ...process.argv.slice(2)], { stdio: 'inherit' });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 + 1 : 1)));
}
