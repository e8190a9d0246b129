// The README's Quick start as a new user types it: in a fresh copy of the repository (its tracked
// files only: no .pacer/, no kubeconfig; node_modules linked from this checkout, as `make install`
// would have made it), `make run`'s command starts Pacer, and the README's second block is run
// verbatim, line by line, in one bash session in that directory (so `$PWD`, the two `export`s and
// kubectl's plugin discovery are the user's). Each line must succeed, or fail, as its comment
// says: a column header is printed, a quoted line is the last one printed, an `error:` is the
// error printed (exit 1), any other comment is exit 0. `get -w` is left with Ctrl-C (SIGINT), as
// the README says. A second run in the same directory refuses and changes nothing of the first.
//
// What `make run` runs once installed is `npm start`; it is run here with free ports for the
// controller's servers (tests listen on free ports) and otherwise as it is.

import { expect } from 'chai';
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { BEDS } from './fixtures.ts';
import { ROOT } from './fixtures.ts';
import { KUBECTL_HOW, requireTool } from '../fixtures/tools.ts';

const FREE_PORTS = [
  '--metrics-bind-address=127.0.0.1:0',
  '--health-probe-bind-address=127.0.0.1:0',
  '--api-bind-address=127.0.0.1:0',
  '--dashboard-bind-address=127.0.0.1:0',
];

/** The README's Quick start: its first block (`make run`) and the lines of its second. */
export function quickStart(readme: string): { run: string; lines: string[] } {
  const section = readme.slice(
    readme.indexOf('## Quick start'),
    readme.indexOf('\n## ', readme.indexOf('## Quick start') + 1),
  );
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1].trimEnd());
  return { run: blocks[0], lines: blocks[1].split('\n').filter((l) => l.trim() !== '') };
}

/** A line as the command and its comment (after `  # `). */
const split = (line: string): { cmd: string; comment?: string } => {
  const m = /^(.*?\S)\s+#\s+(.*)$/.exec(line);
  return m ? { cmd: m[1], comment: m[2] } : { cmd: line.trim() };
};

function startPacer(
  dir: string,
  env: NodeJS.ProcessEnv,
): { child: ChildProcess; out: () => string; err: () => string } {
  const child = spawn('npm', ['start', '--silent', '--', ...FREE_PORTS], {
    cwd: dir,
    env,
    detached: true, // its own process group: SIGINT reaches npm, the shell and node, as Ctrl-C does
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return { child, out: () => out, err: () => err };
}

async function until(what: string, ok: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const exited = (c: ChildProcess) =>
  c.exitCode !== null || c.signalCode !== null
    ? Promise.resolve(c.exitCode)
    : new Promise<number | null>((r) => c.once('exit', (code) => r(code)));

if (BEDS.includes('sim'))
  describe("e2e: the README's Quick start, verbatim, in a fresh copy", function () {
    this.timeout(240_000);
    let dir: string;
    let pacer: ReturnType<typeof startPacer> | undefined;
    // A fresh shell: no KUBECONFIG, and an empty HOME (nothing linked or cached there by hand).
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: mkdtempSync(join(tmpdir(), 'pacer-readme-home-')) };
    delete env.KUBECONFIG;
    const { run, lines } = quickStart(readFileSync(join(ROOT, 'README.md'), 'utf8'));

    before(async function () {
      requireTool(this, 'kubectl', KUBECTL_HOW);
      dir = mkdtempSync(join(tmpdir(), 'pacer-readme-'));
      for (const f of execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0')) {
        if (!f || !existsSync(join(ROOT, f))) continue;
        mkdirSync(dirname(join(dir, f)), { recursive: true });
        cpSync(join(ROOT, f), join(dir, f), { verbatimSymlinks: true });
      }
      symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    });

    after(async () => {
      if (pacer && pacer.child.exitCode === null) {
        try {
          process.kill(-pacer.child.pid!, 'SIGKILL');
        } catch {
          // gone already
        }
      }
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it("the first block is `make run`, which prints the README's two export lines", async () => {
      expect(run).to.equal('make run');
      pacer = startPacer(dir, env);
      await until(
        'pacer to print its instructions',
        () => pacer!.out().includes('pacer: Ctrl-C stops everything'),
        60_000,
      );
      const printed = pacer.out().split('\n');
      // The README's exports, as they expand in that directory, are what make run printed.
      for (const line of lines.filter((l) => l.startsWith('export '))) {
        const expanded = line.replaceAll('$PWD', dir);
        expect(
          printed.some((p) => p.trim().startsWith(expanded)),
          `${line} among:\n${pacer.out()}`,
        ).to.equal(true);
      }
    });

    it('a second run in the same directory refuses, naming the first, and changes nothing', async () => {
      const kubeconfig = readFileSync(join(dir, 'pacer-sim.kubeconfig'), 'utf8');
      const second = startPacer(dir, env);
      expect(await exited(second.child)).to.equal(1);
      expect(second.err()).to.match(
        /^error: pacer is already running here: pid \d+, simulated cluster at http:\/\/127\.0\.0\.1:\d+, its kubeconfig /,
      );
      expect(second.out()).to.equal('');
      expect(readFileSync(join(dir, 'pacer-sim.kubeconfig'), 'utf8')).to.equal(kubeconfig);
    });

    it('the second block, line by line in one shell: each as its comment says', async () => {
      const results = join(dir, '.readme-results');
      mkdirSync(results);
      const script = ['set -m', `cd ${JSON.stringify(dir)}`];
      lines.forEach((line, i) => {
        const { cmd } = split(line);
        if (cmd.startsWith('export ')) {
          script.push(cmd);
          return;
        }
        const files = `>${results}/${i}.out 2>${results}/${i}.err </dev/null`;
        if (/ -w\b/.test(cmd)) {
          // Left with Ctrl-C after a few frames: SIGINT to its process group, as a terminal sends it.
          script.push(`${cmd} ${files} & pid=$!; sleep 5; kill -INT -- -$pid; wait $pid; echo $? >${results}/${i}.rc`);
        } else {
          script.push(`${cmd} ${files}; echo $? >${results}/${i}.rc`);
        }
      });
      writeFileSync(join(dir, '.readme-quickstart.sh'), `${script.join('\n')}\n`);
      const shell = spawn('bash', [join(dir, '.readme-quickstart.sh')], { cwd: dir, env, stdio: 'ignore' });
      expect(await exited(shell)).to.equal(0);
      const checked: string[] = [];
      lines.forEach((line, i) => {
        const { cmd, comment } = split(line);
        if (cmd.startsWith('export ')) return;
        const rc = Number(readFileSync(join(results, `${i}.rc`), 'utf8'));
        const out = readFileSync(join(results, `${i}.out`), 'utf8');
        const err = readFileSync(join(results, `${i}.err`), 'utf8');
        const what = `${line}\nexit ${rc}\nstdout:\n${out}\nstderr:\n${err}`;
        const outLines = out.trimEnd().split('\n');
        if (comment?.startsWith('error: ')) {
          expect(rc, what).to.equal(1);
          expect(err.trimEnd().split('\n').at(-1), what).to.equal(comment.replace(/ \([^)]*\)$/, ''));
        } else if (comment && /^[A-Z][A-Z-]*(\s+[A-Z][A-Z-]*)+$/.test(comment)) {
          expect(rc, what).to.equal(0);
          const header = comment.split(/\s+/).join(' ');
          expect(
            outLines.map((l) => l.trim().split(/\s+/).join(' ')),
            what,
          ).to.include(header);
        } else if (comment?.startsWith('deployment')) {
          expect(rc, what).to.equal(0);
          expect(outLines.at(-1), what).to.equal(comment);
        } else if (/ -w\b/.test(cmd)) {
          expect([0, 130], what).to.include(rc);
          expect(out, what).to.match(/^Name: +web$/m);
        } else {
          expect(rc, what).to.equal(0);
        }
        checked.push(cmd);
      });
      expect(checked.length, 'every command checked').to.equal(lines.filter((l) => !l.startsWith('export ')).length);
    });

    it('Ctrl-C stops everything: the run ends and its record goes', async () => {
      process.kill(-pacer!.child.pid!, 'SIGINT');
      await exited(pacer!.child);
      await until('the run record to go', () => !existsSync(join(dir, '.pacer', 'up.json')), 20_000);
    });
  });
