// `make release`: the kubectl plugin as one archive per platform, their SHA-256 checksums, and the
// krew manifest made from them (docs/install.md#the-plugin-release-archives).
//
//   node scripts/release.ts [--out DIR] [--base-url URL]
//
// Each archive, pacer-kubectl-vVERSION-OS-ARCH.tar.gz, holds one directory, pacer-vVERSION-OS-ARCH/,
// with what the plugin runs from: bin/ (kubectl-pacer.js, the launcher), src/ (the TypeScript
// sources, which Node runs directly), dist/ (the dashboard's built page), crds/, package.json and
// node_modules/ with the production dependencies only (from package-lock.json, copied from the
// installed node_modules). The plugin needs Node.js >= 22.19 on PATH: no Node is bundled, and the
// dependencies are plain JavaScript, so the archives differ only in their directory's name (which
// krew's `files` names per platform). The archives are reproducible: files sorted, owned by root,
// stamped with the last commit's time, gzip without a name or time.
//
// Out: DIR (default release/plugin/) holds the archives, SHA256SUMS (sha256sum's format) and pacer.yaml,
// the krew manifest: krew/pacer.yaml's description with one platform per archive, its uri the base
// URL (default: file:// of DIR; `--base-url` or PACER_RELEASE_URL for where the archives will be
// published) and its sha256 the archive's. The manifest is held to krew's rules
// (scripts/krew-manifest.ts) before it is written.

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { parse, stringify } from 'yaml';
import { type KrewPlatform, type KrewPlugin, krewManifestError } from './krew-manifest.ts';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** The platforms krew installs the plugin on (os, arch as krew's selector names them). */
export const PLATFORMS: ReadonlyArray<readonly [os: string, arch: string]> = [
  ['linux', 'amd64'],
  ['linux', 'arm64'],
  ['darwin', 'amd64'],
  ['darwin', 'arm64'],
];

/** What of the repository goes into the archives (and the image's /app), besides node_modules. */
export const CONTENT = ['bin', 'src', 'dist', 'crds', 'package.json'];

/**
 * The installed packages of the production dependencies: package-lock.json's entries not marked
 * dev (or devOptional), as paths under the root ("node_modules/yaml", nested ones included).
 */
export function productionPackages(root = ROOT): string[] {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean; devOptional?: boolean; link?: boolean }>;
  };
  return Object.entries(lock.packages)
    .filter(([path, p]) => path !== '' && !p.dev && !p.devOptional && !p.link)
    .map(([path]) => path)
    .sort();
}

/**
 * Lays out what the plugin (or the controller) runs from under `dest`: CONTENT and the production
 * packages, each package without its own nested node_modules (the nested ones it needs are entries
 * of their own). Fails, naming it, when something is missing (dist/ before `make` built it).
 */
export function stage(dest: string, root = ROOT): void {
  for (const entry of CONTENT) {
    const from = join(root, entry);
    if (!existsSync(from))
      throw new Error(
        `release: ${from} does not exist${entry === 'dist' ? ' (the dashboard page: run `make` first)' : ''}`,
      );
    cpSync(from, join(dest, entry), { recursive: true, verbatimSymlinks: true });
  }
  shipBundleInputs(dest);
  const modules = realpathSync(join(root, 'node_modules'));
  for (const pkg of productionPackages(root)) {
    const from = join(modules, pkg.slice('node_modules/'.length));
    if (!existsSync(from))
      throw new Error(`release: the production dependency ${pkg} is not installed (${from}): run \`npm ci\``);
    cpSync(from, join(dest, pkg), {
      recursive: true,
      verbatimSymlinks: true,
      filter: (src) => src === from || !src.slice(from.length).split('/').includes('node_modules'),
    });
  }
}

/**
 * The plugin's bundle runs while every file it was built from is there and not newer
 * (dist/plugin/inputs.json, bin/launch.js). npm's lock files are among them, so that a changed
 * dependency counts in a clone; an archive's node_modules cannot change under it and ships without
 * them, so the staged copy lists only what the archive holds (its one timestamp keeps the rest
 * current). Without this the archive would run the TypeScript sources, four times slower to start.
 */
function shipBundleInputs(dest: string): void {
  const file = join(dest, 'dist', 'plugin', 'inputs.json');
  if (!existsSync(file)) return;
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as { bundle: string; inputs: string[] };
  manifest.inputs = manifest.inputs.filter((f) => existsSync(join(dest, f)));
  writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
}

/**
 * A reproducible .tar.gz of `dir` (relative to `parent`), named `as` inside: sorted, root-owned,
 * one timestamp.
 */
export function tarball(parent: string, dir: string, as: string, mtime: number): Buffer {
  const tar = execFileSync(
    'tar',
    [
      '--sort=name',
      '--owner=0',
      '--group=0',
      '--numeric-owner',
      `--mtime=@${mtime}`,
      '--format=gnu',
      `--transform=s,^${dir},${as},`,
      '-C',
      parent,
      '-cf',
      '-',
      dir,
    ],
    { maxBuffer: 1 << 30 },
  );
  return gzipSync(tar);
}

export const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

export interface ReleaseOptions {
  out: string;
  /** Where the archives will be downloaded from (no trailing slash needed). */
  baseUrl?: string;
  root?: string;
}

export interface Release {
  version: string;
  archives: Array<{ os: string; arch: string; file: string; sha256: string }>;
  manifest: string;
}

export function release(opts: ReleaseOptions): Release {
  const root = opts.root ?? ROOT;
  const out = resolve(opts.out);
  const version = `v${(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version}`;
  const baseUrl = (opts.baseUrl ?? pathToFileURL(out).href).replace(/\/+$/, '');
  const mtime = Number(execFileSync('git', ['-C', root, 'log', '-1', '--format=%ct'], { encoding: 'utf8' }).trim());
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const work = join(out, '.stage');
  const content = join(work, 'content');
  stage(content, root);

  const archives: Release['archives'] = [];
  for (const [os, arch] of PLATFORMS) {
    const file = `pacer-kubectl-${version}-${os}-${arch}.tar.gz`;
    const data = tarball(work, 'content', `pacer-${version}-${os}-${arch}`, mtime);
    writeFileSync(join(out, file), data);
    archives.push({ os, arch, file, sha256: sha256(data) });
  }
  rmSync(work, { recursive: true, force: true });
  writeFileSync(join(out, 'SHA256SUMS'), archives.map((a) => `${a.sha256}  ${a.file}\n`).join(''));

  const template = parse(readFileSync(join(root, 'krew', 'pacer.yaml'), 'utf8')) as KrewPlugin & {
    spec: Record<string, unknown>;
  };
  const platforms: KrewPlatform[] = archives.map((a) => ({
    selector: { matchLabels: { os: a.os, arch: a.arch } },
    uri: `${baseUrl}/${a.file}`,
    sha256: a.sha256,
    files: [{ from: `pacer-${version}-${a.os}-${a.arch}/*`, to: '.' }],
    bin: 'bin/kubectl-pacer.js',
  }));
  const manifest = { ...template, spec: { ...template.spec, version, platforms } };
  const err = krewManifestError('pacer', manifest);
  if (err) throw new Error(`release: the krew manifest krew/pacer.yaml makes is invalid: ${err}`);
  const text = `# kubectl pacer ${version} for krew, made by \`make release\` from krew/pacer.yaml and the archives\n# beside it. kubectl krew install --manifest=pacer.yaml [--archive=ARCHIVE]\n${stringify(manifest)}`;
  writeFileSync(join(out, 'pacer.yaml'), text);
  return { version, archives, manifest: join(out, 'pacer.yaml') };
}

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const v = args[i + 1];
  if (v === undefined || v.startsWith('--'))
    throw new Error(`release: ${name} needs a value (got ${JSON.stringify(v ?? '')})`);
  return v;
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  try {
    const known = new Set(['--out', '--base-url']);
    for (let i = 0; i < args.length; i += 2)
      if (!known.has(args[i]))
        throw new Error(`release: unknown argument ${JSON.stringify(args[i])} (--out DIR, --base-url URL)`);
    const r = release({
      out: flag(args, '--out') ?? join(ROOT, 'release', 'plugin'),
      baseUrl: flag(args, '--base-url') ?? process.env.PACER_RELEASE_URL,
    });
    for (const a of r.archives) console.log(`${a.sha256}  ${a.file}`);
    console.log(`krew manifest: ${r.manifest}`);
  } catch (e) {
    console.error((e as Error).message);
    process.exit(1);
  }
}
