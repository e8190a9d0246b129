// Pacer's layering rules, checked by dependency-cruiser: `npm run lint:deps` (part of `npm test`
// and `make lint`). docs/layering.md says why each rule exists; test/unit/layering.test.ts proves
// each one fires on a planted violation (test/fixtures/layering/).
//
// What is cruised: src/ and bin/ (the lint:deps script names them). test/ and bench/ are not:
// they may import anything, and tsc -p . already fails on an import they cannot resolve.
//
// Parser: swc (@swc/core). dependency-cruiser's own TypeScript support needs the compiler API of
// typescript < 7, which the native TypeScript 7 this project uses does not have; swc parses the
// .ts sources (and `.ts` extension imports resolve as plain files) and marks `import type` /
// `export type` as dependency type "type-only". The layering rules count type-only imports too
// (a type from the wrong layer is still coupling); the cycle rule does not (they are erased
// before Node runs the code).

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'engine-imports-only-api',
      comment:
        'src/engine/ is the pure rollout logic: it may import src/api/, itself, and the Node builtins ' +
        'crypto (pod-template-hash) and util (isDeepStrictEqual). Nothing of the controller, the ' +
        'cluster client, the CLI or the simulator, and no npm package.',
      severity: 'error',
      from: { path: '^src/engine/' },
      to: { pathNot: ['^src/(engine|api)/', '^(node:)?(crypto|util)$'] },
    },
    {
      name: 'engine-through-index',
      comment:
        'Outside src/engine/, the engine is imported through its public surface src/engine/index.ts ' +
        'only, never from its rule files: what the shell, the plugin and the servers rely on is ' +
        'listed in one place, and the rule files can be split or merged freely. (src/sim/ may not ' +
        'import the engine at all: sim-not-controller-side.)',
      severity: 'error',
      from: { path: '^(src|bin)/', pathNot: '^src/(engine|sim)/' },
      to: { path: '^src/engine/', pathNot: '^src/engine/index\\.ts$' },
    },
    {
      name: 'rules-take-limits',
      comment:
        "The engine's rule files take a pass's limits as numbers (pass.limits, resolved once by " +
        'src/engine/limits.ts): they never ask the strategy registry (strategies/, fenceposts.ts) or ' +
        'import a gate (dcos/), type imports included. A new gate joins limits.ts, not the rules.',
      severity: 'error',
      from: { path: ['^src/engine/kubernetes/', '^src/engine/marathon/minimumhealth\\.ts$'] },
      to: { path: '^src/engine/(strategies/|dcos/|fenceposts\\.ts$)' },
    },
    {
      name: 'sim-not-controller-side',
      comment:
        'src/sim/ is the simulated cluster the controller is tested against: it must not import the ' +
        'controller side (src/controllers, src/manager, src/engine, src/cli, src/plugin, src/server). It may use ' +
        'src/api/ and src/kube/.',
      severity: 'error',
      from: { path: '^src/sim/' },
      to: { path: '^src/(controllers|manager|engine|cli|plugin|server)/' },
    },
    {
      name: 'runtime-not-to-controllers',
      comment:
        'src/manager/ (informers, work queue, Event recorder, the generic controller, leader election) ' +
        'and src/observe/ are the runtime every controller uses: they never import a controller ' +
        '(src/controllers/), type imports included. A controller asks the manager; the manager does ' +
        'not know it.',
      severity: 'error',
      from: { path: '^src/(manager|observe)/' },
      to: { path: '^src/controllers/' },
    },
    {
      name: 'controllers-stand-alone',
      comment:
        'Each controller is one folder of src/controllers/ and imports no other controller folder, ' +
        'type imports included: informers and the Event recorder come from the manager, anything else ' +
        'two controllers share is handed to both by src/cli/ or moved down a layer.',
      severity: 'error',
      from: { path: '^src/controllers/([^/]+)/' },
      to: { path: '^src/controllers/', pathNot: '^src/controllers/$1/' },
    },
    {
      name: 'not-to-cli',
      comment:
        'src/cli/ is the outermost layer (commands, flags, process wiring). Only src/cli/ itself and ' +
        'bin/ may import it; a module elsewhere that needs something from it should have it moved ' +
        'down to the layer it belongs to.',
      severity: 'error',
      from: { pathNot: '^(src/cli|bin)/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'no-runtime-cycle',
      comment:
        'A cycle of runtime imports makes module evaluation order matter (a binding read before its ' +
        'module ran throws). Cycles one of whose edges is an `import type` are erased before Node ' +
        'runs the code and are allowed. (This rule looks at one cycle per import; the exact check ' +
        'for what it can miss is in test/unit/layering.test.ts, see docs/layering.md.)',
      severity: 'error',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that does not resolve to a file, a Node builtin or an installed package.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-orphans',
      comment:
        'A module that imports nothing and that nothing imports is dead code, or is wired in some ' +
        'way the checker cannot see.',
      severity: 'error',
      from: { orphan: true, pathNot: ['\\.d\\.ts$'] },
      to: {},
    },
  ],
  options: {
    parser: 'swc',
    doNotFollow: { path: 'node_modules' },
    moduleSystems: ['es6', 'cjs'],
    progress: { type: 'none' },
  },
};
