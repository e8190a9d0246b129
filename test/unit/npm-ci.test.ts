// scripts/npm-ci.sh, the install behind `make run`: run by an npm on Node 20, `npm ci` printed 25
// lines of EBADENGINE warnings (test/fixtures/npm/ci-node20.stderr, npm 11.19.1 on Node 20.20.2,
// for this repository's lock file). The script folds them into one line that says why, keeps every
// other line of npm's, and keeps npm's exit status. A stub npm replays that output.

import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const RECORDED = join(ROOT, 'test', 'fixtures', 'npm', 'ci-node20.stderr');

function run(stub: { extraStderr?: string; exit?: number }): Promise<{ code: number; stdout: string; stderr: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'pacer-npm-ci-'));
  writeFileSync(
    join(dir, 'npm'),
    [
      '#!/usr/bin/env bash',
      `cat ${JSON.stringify(RECORDED)} >&2`,
      ...(stub.extraStderr ? [`printf '%s\\n' ${JSON.stringify(stub.extraStderr)} >&2`] : []),
      'echo "added 182 packages in 14s"',
      `exit ${stub.exit ?? 0}`,
    ].join('\n'),
  );
  writeFileSync(join(dir, 'node'), '#!/usr/bin/env bash\necho v20.20.2\n');
  chmodSync(join(dir, 'npm'), 0o755);
  chmodSync(join(dir, 'node'), 0o755);
  return new Promise((resolve) => {
    const child = spawn(join(ROOT, 'scripts', 'npm-ci.sh'), [], {
      env: { ...process.env, PATH: `${dir}:/usr/bin:/bin` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => {
      rmSync(dir, { recursive: true, force: true });
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

const FOLDED =
  "npm ran on Node v20.20.2: 5 packages (Pacer among them) ask for a newer Node than this one; they run on the Node 24 this install put in node_modules/.bin (npm's EBADENGINE warnings folded into this line; `npm ci` shows them)\n";

describe('scripts/npm-ci.sh: the install on a Node older than Pacer needs', function () {
  this.timeout(20_000);

  it("25 EBADENGINE lines become one that says why; npm's output otherwise as printed", async () => {
    const r = await run({});
    expect(r.code).to.equal(0);
    expect(r.stdout).to.equal('added 182 packages in 14s\n');
    expect(r.stderr).to.equal(FOLDED);
  });

  it("another warning is kept, and npm's failure is the script's", async () => {
    const r = await run({ extraStderr: 'npm error code ETARGET', exit: 1 });
    expect(r.code).to.equal(1);
    expect(r.stderr).to.equal(`npm error code ETARGET\n${FOLDED}`);
  });
});

describe('one Node requirement everywhere', () => {
  // bin/launch.js's MIN_NODE, the Node it re-runs Pacer on the pinned one below.
  const m = /export const MIN_NODE = \[(\d+), (\d+)\];/.exec(readFileSync(join(ROOT, 'bin', 'launch.js'), 'utf8'));
  const min = `${m?.[1]}.${m?.[2]}`;
  it(`package.json's engines, the launcher, the README and the plugin's docs all say ${min}`, () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.engines.node).to.equal(`>=${min}`);
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).to.contain(`Pacer runs on Node.js ${min} or newer`);
    expect(readFileSync(join(ROOT, 'docs', 'plugin.md'), 'utf8')).to.contain(`Node.js >= ${min}`);
  });
});
