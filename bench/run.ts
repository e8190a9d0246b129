// Runs every benchmark under bench/ (or those named on the command line) one after the other, each
// in its own process so that one's garbage does not slow the next, and prints their JSON lines.
//   npm run bench                 # all
//   npm run bench -- engine       # bench/engine.bench.ts only

import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const benches = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.startsWith(w)))
  .sort();
if (benches.length === 0) {
  process.stderr.write(
    `error: no benchmark matches ${wanted.join(', ')}; have: ${readdirSync(dir)
      .filter((f) => f.endsWith('.bench.ts'))
      .join(', ')}\n`,
  );
  process.exit(2);
}
let failed = 0;
for (const f of benches) {
  const r = spawnSync(process.execPath, [join(dir, f)], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) {
    failed++;
    process.stderr.write(`${f}: exited ${r.status ?? r.signal}\n`);
  }
}
process.exit(failed === 0 ? 0 : 1);
