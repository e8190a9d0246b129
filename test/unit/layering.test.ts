// The layering check (`npm run lint:deps`: dependency-cruiser with .dependency-cruiser.mjs, see
// docs/layering.md) fails on each kind of planted violation and passes on the real src/ and bin/.

import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURE = join(ROOT, 'test/fixtures/layering');
const CONFIG = join(ROOT, '.dependency-cruiser.mjs');
const DEPCRUISE = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs');

interface Violation {
  type: string;
  from: string;
  to: string;
  rule: { name: string; severity: string };
}

interface Dependency {
  resolved: string;
  coreModule: boolean;
  couldNotResolve: boolean;
  dependencyTypes: string[];
}

interface CruiseResult {
  modules: { source: string; dependencies: Dependency[] }[];
  summary: { error: number; violations: Violation[] };
}

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function depcruise(args: string[], cwd: string): Run {
  const r = spawnSync(process.execPath, [DEPCRUISE, ...args], { cwd, encoding: 'utf8' });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The `lint:deps` script's arguments, so the real tree is checked exactly the way `npm test` does. */
function lintDepsArgs(): string[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const [cmd, ...args] = pkg.scripts['lint:deps'].trim().split(/\s+/);
  expect(cmd, 'lint:deps runs depcruise').to.equal('depcruise');
  return args;
}

function cruiseJson(args: string[], cwd: string): CruiseResult {
  const run = depcruise(['--output-type', 'json', ...args], cwd);
  expect(run.stderr).to.equal('');
  return JSON.parse(run.stdout) as CruiseResult;
}

/**
 * Every runtime import cycle, exactly: the strongly connected components of the graph of local
 * imports that are not type-only. dependency-cruiser's no-runtime-cycle looks at one cycle per
 * import (the first it finds), so a runtime cycle each of whose imports also has an `import type`
 * going back is not reported by it (test/fixtures/layering/src/controllers/deployment/ring*.ts); this is not fooled.
 */
function runtimeCycles(result: CruiseResult): string[][] {
  return importCycles(result, false);
}

/**
 * Every import cycle, exactly (the strongly connected components of the graph of local imports),
 * type-only imports included when `withTypes`: a type cycle does not break module evaluation, but
 * it is still two modules that cannot be understood, or moved, one without the other.
 */
function importCycles(result: CruiseResult, withTypes: boolean): string[][] {
  const edges = new Map<string, string[]>();
  for (const m of result.modules) {
    edges.set(
      m.source,
      m.dependencies
        .filter((d) => !d.coreModule && !d.couldNotResolve && (withTypes || !d.dependencyTypes.includes('type-only')))
        .map((d) => d.resolved),
    );
  }
  // Tarjan's algorithm.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (edges.get(v) ?? []).includes(v)) cycles.push(scc.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return cycles.sort((a, b) => a[0].localeCompare(b[0]));
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

describe('layering (dependency-cruiser)', function () {
  this.timeout(30_000);

  describe('on the planted violations in test/fixtures/layering', () => {
    let result: CruiseResult;
    let violations: Violation[];
    let found: string[];

    before(() => {
      result = cruiseJson(['--config', CONFIG, 'src', 'bin'], FIXTURE);
      violations = result.summary.violations;
      found = violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort();
    });

    it('fails, as lint:deps runs it (exit status = the number of errors)', () => {
      const run = depcruise(['--config', CONFIG, 'src', 'bin'], FIXTURE);
      expect(run.status, run.stdout + run.stderr).to.equal(violations.length);
      expect(run.stdout).to.match(/x 12 dependency violations \(12 errors, 0 warnings\)/);
      for (const v of violations) expect(v.rule.severity, v.rule.name).to.equal('error');
    });

    it('reports engine importing anything but api/ (and crypto, util)', () => {
      expect(found).to.include('engine-imports-only-api: src/engine/plan.ts -> src/controllers/deployment/loop.ts');
      expect(found).to.include('engine-imports-only-api: src/engine/disk.ts -> fs');
    });

    it('reports an import of an engine rule file from outside src/engine/ (only src/engine/index.ts is public)', () => {
      expect(found).to.include('engine-through-index: src/plugin/reach.ts -> src/engine/plan.ts');
      expect(
        found.filter((f) => f.includes('src/server/view.ts')),
        'through index.ts is allowed',
      ).to.be.empty;
    });

    it("reports a rule file of the engine asking the strategy registry or a gate (rules take the pass's limits)", () => {
      expect(found).to.include('rules-take-limits: src/engine/kubernetes/rolling.ts -> src/engine/strategies/index.ts');
    });

    it('reports sim importing the controller side', () => {
      expect(found).to.include('sim-not-controller-side: src/sim/store.ts -> src/engine/plan.ts');
    });

    it('reports src/manager or src/observe importing a controller (a type-only import too)', () => {
      expect(found).to.include(
        'runtime-not-to-controllers: src/manager/queue.ts -> src/controllers/deployment/loop.ts',
      );
      expect(found).to.include(
        'runtime-not-to-controllers: src/observe/trace.ts -> src/controllers/deployment/loop.ts',
      );
    });

    it('reports a controller folder importing another (its own folder and the manager are allowed)', () => {
      expect(found).to.include(
        'controllers-stand-alone: src/controllers/noderoll/roll.ts -> src/controllers/deployment/loop.ts',
      );
      expect(found.filter((f) => f.includes('-> src/manager/') || f.includes('/ring'))).to.be.empty;
    });

    it('reports an import of src/cli from outside src/cli and bin/', () => {
      expect(found).to.include('not-to-cli: src/plugin/command.ts -> src/cli/main.ts');
    });

    it('reports a runtime import cycle', () => {
      expect(found.filter((f) => f.startsWith('no-runtime-cycle: '))).to.not.be.empty;
      for (const v of violations.filter((x) => x.rule.name === 'no-runtime-cycle')) {
        expect([v.from, v.to].sort()).to.deep.equal(['src/server/a.ts', 'src/server/b.ts']);
      }
    });

    it('reports an unresolvable import and an orphan module', () => {
      expect(found).to.include('not-to-unresolvable: src/kube/broken.ts -> ./missing.ts');
      expect(found).to.include('no-orphans: src/observe/unused.ts -> src/observe/unused.ts');
    });

    it('reports nothing else: bin/ -> cli, engine -> crypto, sim -> api/kube and a cycle through `import type` are allowed', () => {
      expect(found.filter((f) => !f.startsWith('no-runtime-cycle: '))).to.have.lengthOf(11);
      expect(found.filter((f) => f.includes('src/observe/log.ts') || f.includes('src/observe/metrics.ts'))).to.be.empty;
      expect(found.filter((f) => f.includes('bin/') || f.includes('crypto') || f.includes('src/kube/client.ts'))).to.be
        .empty;
    });

    it('the exact runtime-cycle check finds the planted cycles, the one no-runtime-cycle misses included, and not the type-only one', () => {
      expect(found.filter((f) => f.includes('/ring'))).to.be.empty;
      expect(runtimeCycles(result)).to.deep.equal([
        [
          'src/controllers/deployment/ring1.ts',
          'src/controllers/deployment/ring2.ts',
          'src/controllers/deployment/ring3.ts',
        ],
        ['src/server/a.ts', 'src/server/b.ts'],
      ]);
    });

    it('the exact check with type imports finds the type-only cycle too', () => {
      expect(importCycles(result, true)).to.deep.include(['src/observe/log.ts', 'src/observe/metrics.ts']);
    });
  });

  describe('on the real src/ and bin/', () => {
    let result: CruiseResult;

    before(() => {
      result = cruiseJson(lintDepsArgs(), ROOT);
    });

    it('npm run lint:deps passes', () => {
      const found = result.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
      expect(found).to.deep.equal([]);
      expect(result.summary.error).to.equal(0);
    });

    it('has no runtime import cycle (the exact check)', () => {
      expect(runtimeCycles(result)).to.deep.equal([]);
    });

    it('has no import cycle at all, type imports included (the exact check)', () => {
      expect(importCycles(result, true)).to.deep.equal([]);
    });
  });

  // dependency-cruiser's parser counts `import { type A } from './x.ts'` (every name marked `type`)
  // as type-only, but Node keeps it as `import {} from './x.ts'`, which loads x.ts: a runtime edge
  // that neither cycle check would see. Such imports are written `import type { A }` instead (and
  // re-exports `export type { A } from`).
  it('src/ has no import or re-export whose names are all inline `type` (the cycle checks would miss it)', () => {
    const bad: string[] = [];
    for (const file of tsFiles(join(ROOT, 'src'))) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/^\s*(?:import|export)\s*\{([^}]*)\}\s*from\s*['"][^'"]+['"]/gm)) {
        const names = m[1]
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s.length > 0);
        if (names.length > 0 && names.every((n) => /^type\s/.test(n)))
          bad.push(`${file.slice(ROOT.length)}: ${m[0].trim()}`);
      }
    }
    expect(bad).to.deep.equal([]);
  });
});
