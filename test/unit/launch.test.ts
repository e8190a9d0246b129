// bin/launch.js: when the kubectl plugin's bundle runs instead of its sources (docs/plugin.md,
// "Start-up time"), and bin/kubectl-pacer.js's first line, which the shell runs and Node skips.

import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleState } from '../../bin/launch.js';

const ROOT = join(import.meta.dirname, '..', '..');

describe('bin/launch.js: the plugin bundle or the sources', () => {
  let base: string;
  const T0 = new Date('2026-11-27T08:00:00Z');
  const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

  /** A repository in `base`: src/a.ts and src/b.ts, and dist/plugin/ built from them at T0. */
  function lay(opts: { manifest?: boolean; bundle?: boolean } = {}): void {
    mkdirSync(join(base, 'src'), { recursive: true });
    mkdirSync(join(base, 'dist', 'plugin'), { recursive: true });
    for (const f of ['src/a.ts', 'src/b.ts']) {
      writeFileSync(join(base, f), '');
      utimesSync(join(base, f), at(-60), at(-60));
    }
    if (opts.manifest !== false)
      writeFileSync(
        join(base, 'dist', 'plugin', 'inputs.json'),
        JSON.stringify({ bundle: 'kubectl-pacer.mjs', inputs: ['src/a.ts', 'src/b.ts'] }),
      );
    if (opts.bundle !== false) {
      writeFileSync(join(base, 'dist', 'plugin', 'kubectl-pacer.mjs'), '');
      utimesSync(join(base, 'dist', 'plugin', 'kubectl-pacer.mjs'), T0, T0);
    }
  }

  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'pacer-launch-'));
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  const rows: Array<{
    name: string;
    lay?: { manifest?: boolean; bundle?: boolean };
    after?: () => void;
    want: string;
  }> = [
    { name: 'every input older than the bundle: the bundle', want: 'file' },
    {
      name: 'an input edited after the build: the sources, naming it',
      after: () => utimesSync(join(base, 'src/b.ts'), at(5), at(5)),
      want: 'dist/plugin/ is older than src/b.ts',
    },
    {
      name: 'an input written in the same instant as the bundle: still the bundle',
      after: () => utimesSync(join(base, 'src/a.ts'), T0, T0),
      want: 'file',
    },
    {
      name: 'an input gone: the sources, naming it',
      after: () => rmSync(join(base, 'src/a.ts')),
      want: 'src/a.ts, which dist/plugin/ was built from, is gone',
    },
    {
      name: 'never built (a fresh clone): the sources',
      lay: { manifest: false, bundle: false },
      want: 'there is no bundle in dist/plugin/',
    },
    {
      name: 'a list of inputs but no bundle: the sources',
      lay: { bundle: false },
      want: 'there is no bundle in dist/plugin/',
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      lay(row.lay);
      row.after?.();
      const state = bundleState('dist/plugin', base);
      if (row.want === 'file') expect(state).to.deep.equal({ file: join(base, 'dist', 'plugin', 'kubectl-pacer.mjs') });
      else expect(state).to.deep.equal({ why: row.want });
    });
  }

  it('bin/kubectl-pacer.js run by the shell through a link elsewhere finds its Node and its sources', function () {
    this.timeout(60_000);
    // A link to the link, as a user's ~/.local/bin/kubectl-pacer → bin/kubectl-pacer → kubectl-pacer.js.
    symlinkSync(join(ROOT, 'bin', 'kubectl-pacer'), join(base, 'kubectl-pacer'));
    const out = execFileSync(join(base, 'kubectl-pacer'), ['--help'], {
      encoding: 'utf8',
      env: { ...process.env, PACER_FROM_SOURCES: '1' },
    });
    expect(out).to.match(/^Usage: kubectl pacer \[options\] \[command\]/);
  });
});
