// Builds the dashboard's page into dist/dashboard/ (run by `make`, `npm test` and `npm pack`:
// `npm run build:dashboard`): the page's TSX (web/) is type-checked and compiled by the project's
// own TypeScript, and laid out beside Preact's ES modules, every import rewritten to a relative
// path, so the browser loads plain files from the dashboard's own server: no bundler, no import
// map (which the page's Content-Security-Policy would have to allow as an inline script), nothing
// from a CDN. Fails when an import would still need resolving at run time.

import { execFileSync } from 'node:child_process';
import { copyFile, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const web = join(root, 'web');
const compiled = join(root, '.cache', 'dashboard-build');
const out = join(root, 'dist', 'dashboard');
const preact = join(root, 'node_modules', 'preact');

/** Preact's modules the page imports, by specifier: where each comes from, where it goes. */
const VENDOR: Record<string, { from: string; to: string }> = {
  preact: { from: 'dist/preact.mjs', to: 'vendor/preact.mjs' },
  'preact/hooks': { from: 'hooks/dist/hooks.mjs', to: 'vendor/hooks.mjs' },
  'preact/jsx-runtime': { from: 'jsx-runtime/dist/jsxRuntime.mjs', to: 'vendor/jsx-runtime.mjs' },
};

/** `from "x"`, `import "x"` and `import("x")` specifiers, in compiled and minified code alike. */
const SPECIFIER = /(\bfrom\s*|\bimport\s*\(?\s*)(["'])([^"']+)\2/g;

/** `code` (a file that will live at `at` under dist/dashboard/) with every bare specifier made relative. */
function relink(code: string, at: string): string {
  const depth = at.split('/').length - 1;
  const up = depth === 0 ? './' : '../'.repeat(depth);
  return code
    .replace(SPECIFIER, (whole, lead: string, q: string, spec: string) => {
      if (spec.startsWith('./') || spec.startsWith('../')) return whole;
      const v = VENDOR[spec];
      if (!v)
        throw new Error(`${at}: import "${spec}" is neither relative nor one of ${Object.keys(VENDOR).join(', ')}`);
      return `${lead}${q}${up}${v.to}${q}`;
    })
    .replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
}

async function main(): Promise<void> {
  const tsc = join(root, 'node_modules', '.bin', 'tsc');
  await rm(compiled, { recursive: true, force: true });
  try {
    execFileSync(tsc, ['-p', join(web, 'tsconfig.json')], { stdio: ['ignore', 'inherit', 'inherit'] });
  } catch {
    throw new Error('the page does not type-check (tsc -p web): see above');
  }
  await rm(out, { recursive: true, force: true });
  await mkdir(join(out, 'vendor'), { recursive: true });
  for (const f of ['index.html', 'style.css']) await copyFile(join(web, f), join(out, f));
  for (const f of await readdir(join(compiled, 'web'))) {
    if (!f.endsWith('.js')) continue;
    await writeFile(join(out, f), relink(await readFile(join(compiled, 'web', f), 'utf8'), f));
  }
  for (const v of Object.values(VENDOR))
    await writeFile(join(out, v.to), relink(await readFile(join(preact, v.from), 'utf8'), v.to));
  // Preact's licence (MIT) goes with its code.
  await copyFile(join(preact, 'LICENSE'), join(out, 'vendor', 'LICENSE-preact.txt'));
  process.stdout.write(`dashboard built: ${out}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
