// The rollout strategies as modules (docs/strategies.md): for each of RollingUpdate, Recreate and
// MinimumHealth, the answers of the RolloutStrategy interface, in the numbers of the sources'
// examples (docs/semantics/kubernetes-deployments.md, docs/semantics/marathon.md); the registries;
// and a scan of src/ proving that no code compares spec.strategy.type any more.

import { expect } from 'chai';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Deployment, DeploymentStrategy, StrategyType } from '../../../src/api/types.ts';
import { withDefaults } from '../../../src/api/defaults.ts';
import { formatFieldError, validateDeployment, type FieldError } from '../../../src/api/validation.ts';
import {
  DEFAULT_STRATEGY_TYPE,
  STRATEGY_RULES,
  strategyRules,
  strategyTypeOf,
} from '../../../src/api/strategies/index.ts';
import { DEFAULT_STRATEGY, STRATEGIES, strategyNamed, strategyOf } from '../../../src/engine/strategies/index.ts';
import { decide } from '../../../src/engine/decide.ts';
import { deployment, replicaSet, snapshot, summary } from './fixtures.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');

/** A Deployment of `replicas` at image v2 with this strategy (as written, before defaulting). */
function withStrategy(replicas: number, strategy: DeploymentStrategy): Deployment {
  const d = deployment({ replicas, image: 'v2' });
  d.spec = { ...d.spec, strategy };
  return d;
}

const ru = (replicas: number, maxSurge?: number | string, maxUnavailable?: number | string) =>
  withStrategy(replicas, {
    type: 'RollingUpdate',
    rollingUpdate: {
      ...(maxSurge !== undefined ? { maxSurge } : {}),
      ...(maxUnavailable !== undefined ? { maxUnavailable } : {}),
    },
  });
const recreate = (replicas: number) => withStrategy(replicas, { type: 'Recreate' });
const mh = (replicas: number, minimumHealthCapacity: number, maximumOverCapacity?: number) =>
  withStrategy(replicas, {
    type: 'MinimumHealth',
    minimumHealth: { minimumHealthCapacity, ...(maximumOverCapacity !== undefined ? { maximumOverCapacity } : {}) },
  });

describe('engine/strategies: the registry', () => {
  it('has exactly the three strategies, each under its own name, in both layers', () => {
    expect(Object.keys(STRATEGIES).sort()).to.deep.equal(['MinimumHealth', 'Recreate', 'RollingUpdate']);
    expect(Object.keys(STRATEGY_RULES).sort()).to.deep.equal(Object.keys(STRATEGIES).sort());
    for (const [name, s] of Object.entries(STRATEGIES)) {
      expect(s.name).to.equal(name);
      expect(strategyNamed(name)).to.equal(s);
      expect(STRATEGY_RULES[name as StrategyType].name).to.equal(name);
    }
  });

  it('each engine module carries its API rules (defaults and validation are the same functions)', () => {
    for (const s of Object.values(STRATEGIES)) {
      const rules = strategyRules(s.name)!;
      expect([s.applyDefaults, s.needsDefaults, s.validate, s.parametersField]).to.deep.equal([
        rules.applyDefaults,
        rules.needsDefaults,
        rules.validate,
        rules.parametersField,
      ]);
    }
  });

  describe('strategyOf(d): the module for a Deployment', () => {
    const rows: Array<[string, DeploymentStrategy | undefined, StrategyType | undefined]> = [
      ['no strategy: the default, RollingUpdate', undefined, 'RollingUpdate'],
      ['no type: the default', {}, 'RollingUpdate'],
      ['an empty type counts as unset, as defaulting has it', { type: '' }, 'RollingUpdate'],
      ['Recreate', { type: 'Recreate' }, 'Recreate'],
      ['MinimumHealth', { type: 'MinimumHealth' }, 'MinimumHealth'],
      ['an unknown type: none (validation reports it)', { type: 'BlueGreen' }, undefined],
      ['the name is case-sensitive', { type: 'recreate' }, undefined],
    ];
    for (const [name, strategy, want] of rows) {
      it(`${name} → ${String(want)}`, () => {
        const d = deployment();
        d.spec = { ...d.spec, strategy };
        if (strategy === undefined) delete d.spec.strategy;
        expect(strategyOf(d)?.name).to.equal(want);
      });
    }
    it('the default is RollingUpdate in both layers', () => {
      expect(DEFAULT_STRATEGY_TYPE).to.equal('RollingUpdate');
      expect(DEFAULT_STRATEGY).to.equal(STRATEGIES.RollingUpdate);
    });
    it('strategyTypeOf(d), the name shown by the plugin and the metrics: the default only when missing', () => {
      const d = deployment();
      delete d.spec.strategy;
      expect(strategyTypeOf(d)).to.equal('RollingUpdate');
      expect(strategyTypeOf(recreate(1))).to.equal('Recreate');
    });
  });
});

describe('engine/strategies: the answers of each strategy', () => {
  describe('fenceposts (MaxSurge / MaxUnavailable) and the budget of a pass (maxTotal / minAvailable)', () => {
    // [example, Deployment, [surge, unavailable] or none, [maxTotal, minAvailable] or none]
    const rows: Array<[string, Deployment, [number, number] | null, [number, number] | null]> = [
      ['RollingUpdate 10 at the default 25%/25%', ru(10, '25%', '25%'), [3, 2], [13, 8]],
      [
        'RollingUpdate 10, maxSurge 2, maxUnavailable 0 (the docs\' "n = 10 and maxSurge = 2")',
        ru(10, 2, 0),
        [2, 0],
        [12, 10],
      ],
      ['RollingUpdate 10 at 39%/39%: surge 4, unavailable 3', ru(10, '39%', '39%'), [4, 3], [14, 7]],
      ['RollingUpdate 95 at 90%/90%: 86 up, 85 down', ru(95, '90%', '90%'), [86, 85], [181, 10]],
      ['RollingUpdate 10 at 0/0: unavailable becomes 1, the raw surge stays 0', ru(10, 0, 0), [0, 1], [10, 9]],
      ['Recreate 10: neither', recreate(10), null, null],
      ['MinimumHealth db 10 × 0.6, over 0.2: 12 at most, 6 kept', mh(10, 0.6, 0.2), [2, 4], [12, 6]],
      ['MinimumHealth app 20 × 0.8, over 0.6: 32 at most (16 + 16), 16 kept', mh(20, 0.8, 0.6), [12, 4], [32, 16]],
      ['MinimumHealth 3 × 0.7, over 1.0: 6 at most, every old pod kept', mh(3, 0.7, 1), [3, 0], [6, 3]],
      ['MinimumHealth 10 × 1.0, over 0.0: one new pod at a time (10 + 1)', mh(10, 1, 0), [1, 0], [11, 10]],
      ['MinimumHealth db 10 × 0.6 side by side, nothing new yet: 2m = 12, 6 old kept', mh(10, 0.6), [2, 4], [12, 6]],
    ];
    for (const [name, d, fence, budget] of rows) {
      it(name, () => {
        const s = strategyOf(d)!;
        const f = s.fenceposts?.(d);
        expect(f ? [f.surge, f.unavailable] : null).to.deep.equal(fence);
        const b = s.budget?.(d, undefined);
        expect(b ? [b.maxTotal, b.minAvailable] : null).to.deep.equal(budget);
      });
    }
  });

  describe('whether it reads pods (the controller snapshots and watches them only then)', () => {
    const rows: Array<[StrategyType, boolean, string]> = [
      ['RollingUpdate', false, 'counts replicas only'],
      ['Recreate', true, 'waits until no old pod runs'],
      ['MinimumHealth', false, 'counts available replicas only'],
    ];
    for (const [name, want, why] of rows)
      it(`${name}: ${want} (${why})`, () => expect(STRATEGIES[name].readsPods).to.equal(want));
  });

  describe('its defaults (apps/v1 and Marathon)', () => {
    // [type, spec.strategy as written, after applyDefaults, needsDefaults as written]
    const rows: Array<[string, DeploymentStrategy, DeploymentStrategy, boolean]> = [
      [
        'RollingUpdate: maxSurge and maxUnavailable 25%',
        { type: 'RollingUpdate' },
        { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
        true,
      ],
      [
        'RollingUpdate: a given maxSurge 0 stays',
        { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0 } },
        { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: '25%' } },
        true,
      ],
      [
        'RollingUpdate: complete, nothing to add',
        { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
        { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
        false,
      ],
      ['Recreate: no parameters', { type: 'Recreate' }, { type: 'Recreate' }, false],
      [
        'MinimumHealth: minimumHealthCapacity 1.0 (the engine reads it with its default, no copy needed)',
        { type: 'MinimumHealth' },
        { type: 'MinimumHealth', minimumHealth: { minimumHealthCapacity: 1 } },
        false,
      ],
      [
        'MinimumHealth: maximumOverCapacity has no default',
        { type: 'MinimumHealth', minimumHealth: { maximumOverCapacity: 0 } },
        { type: 'MinimumHealth', minimumHealth: { maximumOverCapacity: 0, minimumHealthCapacity: 1 } },
        false,
      ],
    ];
    for (const [name, written, want, needs] of rows) {
      it(name, () => {
        const s = strategyNamed(written.type)!;
        expect(s.needsDefaults(written)).to.equal(needs);
        const copy = structuredClone(written);
        s.applyDefaults(copy);
        expect(copy).to.deep.equal(want);
        expect(withDefaults(withStrategy(1, written)).spec.strategy).to.deep.equal(want);
      });
    }
  });

  describe('its validation (the same messages and field paths as before the modules)', () => {
    const rows: Array<[string, DeploymentStrategy, string[]]> = [
      [
        'RollingUpdate at 0/0',
        { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } },
        ['spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0'],
      ],
      [
        'RollingUpdate maxUnavailable 120%',
        { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '120%' } },
        ['spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "120%": must not be greater than 100%'],
      ],
      [
        'RollingUpdate with minimumHealth',
        { type: 'RollingUpdate', minimumHealth: { minimumHealthCapacity: 0.5 } },
        ["spec.strategy.minimumHealth: Forbidden: may not be specified when strategy `type` is 'RollingUpdate'"],
      ],
      ['Recreate alone', { type: 'Recreate' }, []],
      [
        'Recreate with rollingUpdate',
        { type: 'Recreate', rollingUpdate: { maxSurge: 1 } },
        ["spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"],
      ],
      [
        'Recreate with both: in the order of the supported types',
        { type: 'Recreate', rollingUpdate: { maxSurge: 1 }, minimumHealth: {} },
        [
          "spec.strategy.minimumHealth: Forbidden: may not be specified when strategy `type` is 'Recreate'",
          "spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'",
        ],
      ],
      [
        "MinimumHealth 1.2: Marathon's message",
        { type: 'MinimumHealth', minimumHealth: { minimumHealthCapacity: 1.2 } },
        [
          'spec.strategy.minimumHealth.minimumHealthCapacity: Invalid value: 1.2: got 1.2, expected between 0.0 and 1.0',
        ],
      ],
      [
        'MinimumHealth with rollingUpdate',
        { type: 'MinimumHealth', rollingUpdate: { maxSurge: 1 } },
        ["spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'MinimumHealth'"],
      ],
      [
        'a type no module implements',
        { type: 'BlueGreen' },
        [
          'spec.strategy: Unsupported value: {"Type":"BlueGreen","RollingUpdate":null}: supported values: "MinimumHealth", "Recreate", "RollingUpdate"',
        ],
      ],
    ];
    for (const [name, strategy, want] of rows) {
      it(name, () =>
        expect(validateDeployment(withDefaults(withStrategy(3, strategy))).map(formatFieldError)).to.deep.equal(want),
      );
    }
    it("a module validates only its own parameters (the other strategies' fields are validation.ts's)", () => {
      const errs: FieldError[] = [];
      STRATEGIES.MinimumHealth.validate(
        { type: 'MinimumHealth', minimumHealth: { maximumOverCapacity: -0.5 } },
        'spec.strategy',
        errs,
      );
      STRATEGIES.Recreate.validate({ type: 'Recreate', rollingUpdate: { maxSurge: 1 } }, 'spec.strategy', errs);
      expect(errs.map(formatFieldError)).to.deep.equal([
        'spec.strategy.minimumHealth.maximumOverCapacity: Invalid value: -0.5: got -0.5, expected between 0.0 and 1.0',
      ]);
    });
  });

  describe('how `kubectl pacer get` describes it (lines under Strategy:)', () => {
    const rows: Array<[string, Deployment, Array<[string, string]>]> = [
      [
        'RollingUpdate with the defaults',
        ru(3),
        [
          ['MaxSurge', '25%'],
          ['MaxUnavailable', '25%'],
        ],
      ],
      [
        'RollingUpdate one at a time',
        ru(3, 1, 0),
        [
          ['MaxSurge', '1'],
          ['MaxUnavailable', '0'],
        ],
      ],
      ['Recreate: nothing', recreate(3), []],
      [
        "MinimumHealth: Marathon's two settings",
        mh(3, 0.6, 0.2),
        [
          ['MinimumHealthCapacity', '0.6'],
          ['MaximumOverCapacity', '0.2'],
        ],
      ],
    ];
    for (const [name, d, want] of rows) {
      it(name, () =>
        expect(
          strategyOf(d)!
            .describe(d)
            .map((x) => [x.name, x.value]),
        ).to.deep.equal(want),
      );
    }
  });

  describe('its rollout step: the first pass from 10 old replicas, all available, to a new image', () => {
    const rows: Array<[string, Deployment, string[]]> = [
      [
        'RollingUpdate 25%/25%: the new one starts with 3 (13 in all), the old one keeps 8 available',
        ru(10, '25%', '25%'),
        ['create web-new 3', 'scale web-old 10->8'],
      ],
      ['Recreate: the old one goes to 0 first, nothing new yet', recreate(10), ['scale web-old 10->0']],
      [
        'MinimumHealth db 10 × 0.6, over 0.2: 2 new (12 in all), the old one down to 6',
        mh(10, 0.6, 0.2),
        ['create web-new 2', 'scale web-old 10->6'],
      ],
      [
        'MinimumHealth 10 × 0.3 side by side: the old version shrinks to m = 3 before new pods start',
        mh(10, 0.3),
        ['create web-new 0', 'scale web-old 10->3'],
      ],
    ];
    for (const [name, d, want] of rows) {
      it(name, () => {
        const old = replicaSet('web-old', { replicas: 10, image: 'v1', revision: 1, desired: 10 });
        const writes = summary(decide(snapshot(d, [old])))
          .filter((a) => a.startsWith('create') || a.startsWith('scale'))
          .map((a) => a.replace(/web-(?!old\b)[a-z0-9]+/, 'web-new'));
        expect(writes).to.deep.equal(want);
      });
    }
  });
});

// -------------------------------------------------------------------------------------------------
// No string comparisons left: the strategy names appear as string literals only where a strategy
// is defined. Where they legitimately stay: src/api/types.ts (the StrategyType union),
// src/api/strategies/ (each module's name and messages), src/engine/strategies/ (each module's
// type parameter). Outside src/: the CRD (crds/), examples, docs and tests.

const ALLOWED = [/^src\/api\/types\.ts$/, /^src\/api\/strategies\//, /^src\/engine\/strategies\//];

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) return tsFiles(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

/** Every line of src/ outside the allowed files matching `re`, as "path:line: text". */
function offending(re: RegExp): string[] {
  const out: string[] = [];
  for (const file of tsFiles(join(ROOT, 'src'))) {
    const path = relative(ROOT, file).split('\\').join('/');
    if (ALLOWED.some((a) => a.test(path))) continue;
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (!re.test(line)) return;
        out.push(`${path}:${i + 1}: ${line.trim()}`);
      });
  }
  return out;
}

describe('engine/strategies: no strategy type is compared outside the strategy modules', () => {
  it('no quoted strategy name in src/ outside the StrategyType union and the strategy modules', () => {
    expect(offending(/['"`](RollingUpdate|Recreate|MinimumHealth)['"`]/)).to.deep.equal([]);
  });
  it('no comparison with, switch on or default of spec.strategy.type outside the registries', () => {
    expect(
      offending(
        /strategy\??\.type\s*(===|!==|==|!=|\?\?)|(===|!==|==|!=)\s*[\w.?]*strategy\??\.type\b|switch\s*\([\w.?]*strategy\??\.type\)/,
      ),
    ).to.deep.equal([]);
  });
  it('the scan sees a planted comparison (it is not vacuous)', () => {
    const re = /['"`](RollingUpdate|Recreate|MinimumHealth)['"`]/;
    expect(re.test("if (d.spec.strategy?.type === 'Recreate') return replicas;")).to.equal(true);
    expect(re.test('// Recreate waits for old pods')).to.equal(false);
  });
});
