// Builds the kubectl plugin into one file, dist/plugin/kubectl-pacer.mjs (run by `make`, `npm test`
// and `npm pack`: `npm run build:plugin`), so that a `kubectl pacer ...` command starts in a
// fraction of the time the sources take (docs/plugin.md, "Start-up time"). bin/launch.js runs that
// file while it is newer than every input it was built from (dist/plugin/inputs.json), and the
// TypeScript sources otherwise.
//
// Run from the sources, a command spends about a second loading some 1,200 modules (1,033 of them
// @kubernetes/client-node's); one minified file of what the plugin reaches loads in a fraction of
// that, and Node's compile cache (enabled by the launcher) skips compiling it again. esbuild
// bundles it; four things it is told here:
// * every `import.meta.url` in Pacer's sources becomes the URL of the source file it was written
//   in (the dashboard finds its page relative to its own file), not the bundle's;
// * Node's built-in modules are loaded with `require`, not `import`: an import builds an ES module
//   face of the whole built-in, reading every export, and node:http's lazy exports then load
//   Node's own copy of undici, which the plugin never uses;
// * @kubernetes/client-node's modules are taken as free of side effects (its package.json does not
//   say so; the one module that has one, its File polyfill, is kept as it is), so the hundreds of
//   generated API and model classes that Pacer never names are left out;
// * the three names client-node takes from undici come from undici's own files (undiciSlim below);
// * the CEL library of analysis conditions is evaluated when a condition is first compiled, not at
//   start (celOnDemand below): the plugin reaches it through the engine's validation on every
//   command and hardly ever evaluates a condition.

import { build } from 'esbuild';
import type { Plugin } from 'esbuild';
import { builtinModules } from 'node:module';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'dist', 'plugin');
const entry = join(root, 'src', 'cli', 'kubectl-pacer.ts');
const CLIENT_NODE = `${join('node_modules', '@kubernetes', 'client-node', 'dist')}/`;

/** `import.meta.url` in a file under src/ → that file's own URL, worked out from the bundle's. */
const sourceUrls: Plugin = {
  name: 'source-urls',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return { contents: text, loader: 'ts' };
      const own = `new URL(${JSON.stringify(relative(outDir, args.path).split('\\').join('/'))}, import.meta.url).href`;
      return { contents: text.replaceAll('import.meta.url', own), loader: 'ts' };
    });
  },
};

const BUILTINS = new Set(builtinModules);

/** `import x from 'node:http'` → `require('node:http')` (see above). */
const builtinsByRequire: Plugin = {
  name: 'builtins-by-require',
  setup(b) {
    b.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
      const bare = args.path.replace(/^node:/, '');
      if (!BUILTINS.has(bare) && !BUILTINS.has(args.path)) return undefined;
      // The stand-in's own require() is the real one (the banner's).
      if (args.namespace === 'builtin') return { path: args.path, external: true };
      return { path: args.path, namespace: 'builtin' };
    });
    b.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

/** client-node's modules, but its polyfill, as free of side effects (see above). */
const clientNodePure: Plugin = {
  name: 'client-node-pure',
  setup(b) {
    b.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData?.resolved || !args.importer.includes(CLIENT_NODE)) return undefined;
      const r = await b.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: { resolved: true },
      });
      if (r.errors.length > 0 || !r.path.includes(CLIENT_NODE) || r.path.endsWith('/polyfill.js')) return r;
      return { ...r, sideEffects: false };
    });
  },
};

/** What @kubernetes/client-node takes from undici, all that the stand-in below provides. */
const UNDICI_NAMES = ['Agent', 'ProxyAgent', 'fetch'];

/**
 * client-node's `import { ... } from 'undici'` → a stand-in that loads those three (and the request
 * methods every dispatcher gets, which ProxyAgent's tunnels use) from undici's own files, instead
 * of undici's index, which also loads its mocks, caches, WebSocket, EventSource, cookies and pools
 * (see above). The build fails when client-node asks undici for anything else.
 */
const undiciSlim: Plugin = {
  name: 'undici-slim',
  setup(b) {
    b.onResolve({ filter: /^undici$/ }, (args) =>
      args.importer.includes(CLIENT_NODE) ? { path: 'undici', namespace: 'undici-slim' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'undici-slim' }, () => ({
      resolveDir: root,
      loader: 'js',
      contents: [
        "const Dispatcher = require('undici/lib/dispatcher/dispatcher.js');",
        "Object.assign(Dispatcher.prototype, require('undici/lib/api/index.js'));",
        "exports.Agent = require('undici/lib/dispatcher/agent.js');",
        "exports.ProxyAgent = require('undici/lib/dispatcher/proxy-agent.js');",
        "exports.fetch = require('undici/lib/web/fetch/index.js').fetch;",
      ].join('\n'),
    }));
    b.onLoad({ filter: /@kubernetes[\\/]client-node[\\/]dist[\\/].*\.js$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      for (const m of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*['"]undici['"]/g)) {
        const names = m[1]
          .split(',')
          .map((n) => n.trim().split(/\s+as\s+/)[0])
          .filter(Boolean);
        const unknown = names.filter((n) => !UNDICI_NAMES.includes(n));
        if (unknown.length > 0)
          throw new Error(
            `${relative(root, args.path)} imports ${unknown.join(', ')} from undici; the stand-in has only ${UNDICI_NAMES.join(', ')}: add them to scripts/build-plugin.ts`,
          );
      }
      if (/from\s*['"]undici['"]/.test(text.replace(/import\s*\{[^}]*\}\s*from\s*['"]undici['"]/g, '')))
        throw new Error(
          `${relative(root, args.path)} imports undici otherwise than by name: see scripts/build-plugin.ts`,
        );
      return { contents: text, loader: 'js' };
    });
  },
};

/** What src/api/conditions.ts takes from the CEL library: all that celOnDemand's stand-in provides. */
const CEL = '@marcbachmann/cel-js';
const CEL_NAMES = ['Environment'];

/**
 * src/api/conditions.ts's `import { Environment } from '@marcbachmann/cel-js'` → a stand-in class
 * whose constructor loads the library (bundled, run on that first call: a `require` of it) and
 * returns the library's own Environment. The build fails when conditions.ts imports anything else.
 */
const celOnDemand: Plugin = {
  name: 'cel-on-demand',
  setup(b) {
    const conditions = join(root, 'src', 'api', 'conditions.ts');
    b.onResolve({ filter: /^@marcbachmann\/cel-js$/ }, (args) =>
      args.importer === conditions ? { path: CEL, namespace: 'cel-on-demand' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'cel-on-demand' }, async () => {
      const text = await readFile(conditions, 'utf8');
      for (const m of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*['"]@marcbachmann\/cel-js['"]/g)) {
        const unknown = m[1]
          .split(',')
          .map((n) => n.trim())
          .filter((n) => n !== '' && !CEL_NAMES.includes(n));
        if (unknown.length > 0)
          throw new Error(
            `src/api/conditions.ts imports ${unknown.join(', ')} from ${CEL}; the stand-in has only ${CEL_NAMES.join(', ')}: see scripts/build-plugin.ts`,
          );
      }
      return {
        resolveDir: root,
        loader: 'js',
        contents: [
          'let cel;',
          `export class Environment { constructor(...args) { cel ??= require(${JSON.stringify(CEL)}); return new cel.Environment(...args); } }`,
        ].join('\n'),
      };
    });
  },
};

async function main(): Promise<void> {
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: [entry],
    outdir: outDir,
    outExtension: { '.js': '.mjs' },
    // What the plugin imports on demand only (client-node, for exec plugins, auth providers and
    // proxies: src/plugin/options.ts) goes to files of its own, read only when it is imported.
    splitting: true,
    chunkNames: '[name]-[hash]',
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22.19',
    minify: true,
    legalComments: 'linked',
    metafile: true,
    logLevel: 'warning',
    // CommonJS packages in an ES module bundle still call require(): this one is Node's.
    banner: {
      js: "import { createRequire as __pacerCreateRequire } from 'node:module'; const require = __pacerCreateRequire(import.meta.url);",
    },
    plugins: [sourceUrls, builtinsByRequire, clientNodePure, undiciSlim, celOnDemand],
  });
  // What the launcher checks the bundle against: Pacer's own files it was built from, and npm's
  // record of node_modules (rewritten by every install, so a changed dependency counts too).
  const inputs = Object.keys(result.metafile.inputs)
    .filter((f) => !f.includes('node_modules/') && !f.includes(':'))
    .map((f) => relative(root, join(root, f)).split('\\').join('/'))
    .sort();
  for (const f of ['package-lock.json', 'node_modules/.package-lock.json'])
    if (existsSync(join(root, f))) inputs.push(f);
  await writeFile(join(outDir, 'inputs.json'), `${JSON.stringify({ bundle: 'kubectl-pacer.mjs', inputs }, null, 2)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`build-plugin: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
