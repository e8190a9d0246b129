// `make release` (scripts/release.ts) as a user runs it: one archive per platform, SHA256SUMS whose
// checksums are the archives' own, and a krew manifest that krew's rules accept, whose sha256 and uri
// name those archives; an archive installed as krew installs it (its `files` moved, `bin` linked as
// kubectl-pacer) runs the plugin with only the production dependencies it carries.

import { expect } from 'chai';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { type KrewPlatform, krewManifestError } from '../../scripts/krew-manifest.ts';
import { PLATFORMS } from '../../scripts/release.ts';
import { bundleState } from '../../bin/launch.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const VERSION = `v${(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version}`;
const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('make release: the plugin archives and the krew manifest', function () {
  // Four archives of the plugin and its production dependencies: minutes on a loaded machine.
  this.timeout(900_000);
  let dir: string;
  let out: string;
  let sums: Map<string, string>;
  let manifest: { spec: { version: string; platforms: KrewPlatform[] } } & Record<string, unknown>;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'pacer-release-'));
    out = join(dir, 'out');
    // The dashboard's page is part of the plugin; `make` (and `make test`) build it first.
    if (!existsSync(join(ROOT, 'dist', 'dashboard')))
      execFileSync('npm', ['run', '--silent', 'build:dashboard'], { cwd: ROOT });
    const r = spawnSync(
      process.execPath,
      [join(ROOT, 'scripts', 'release.ts'), '--out', out, '--base-url', 'https://example.org/pacer/v0.1.0/'],
      {
        encoding: 'utf8',
      },
    );
    expect(r.status, r.stderr).to.equal(0);
    sums = new Map(
      readFileSync(join(out, 'SHA256SUMS'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => {
          const [sum, file] = l.split(/ {2}/);
          return [file, sum];
        }),
    );
    manifest = parse(readFileSync(join(out, 'pacer.yaml'), 'utf8'));
  });
  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('one archive per platform, and SHA256SUMS holds each one’s real checksum', () => {
    const files = PLATFORMS.map(([os, arch]) => `pacer-kubectl-${VERSION}-${os}-${arch}.tar.gz`);
    expect(readdirSync(out).sort()).to.deep.equal([...files, 'SHA256SUMS', 'pacer.yaml'].sort());
    expect([...sums.keys()].sort()).to.deep.equal([...files].sort());
    for (const f of files) expect(sums.get(f), f).to.equal(sha256(join(out, f)));
    // `sha256sum -c` agrees.
    const check = spawnSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: out, encoding: 'utf8' });
    expect(check.status, check.stdout + check.stderr).to.equal(0);
  });

  it("the krew manifest passes krew's rules, one platform per archive with its checksum and address", () => {
    expect(krewManifestError('pacer', manifest)).to.equal(undefined);
    expect(manifest.spec.version).to.equal(VERSION);
    const seen = manifest.spec.platforms.map((p) => {
      const file = `pacer-kubectl-${VERSION}-${p.selector?.matchLabels?.os}-${p.selector?.matchLabels?.arch}.tar.gz`;
      expect(p.uri).to.equal(`https://example.org/pacer/v0.1.0/${file}`);
      expect(p.sha256, file).to.equal(sha256(join(out, file)));
      expect(p.bin).to.equal('bin/kubectl-pacer.js');
      return `${p.selector?.matchLabels?.os}/${p.selector?.matchLabels?.arch}`;
    });
    expect(seen.sort()).to.deep.equal(PLATFORMS.map(([os, arch]) => `${os}/${arch}`).sort());
  });

  it('an archive changed by one byte no longer matches its checksum', () => {
    const file = join(out, `pacer-kubectl-${VERSION}-linux-amd64.tar.gz`);
    const data = readFileSync(file);
    data[data.length - 1] ^= 1;
    expect(createHash('sha256').update(data).digest('hex')).to.not.equal(
      sums.get(`pacer-kubectl-${VERSION}-linux-amd64.tar.gz`),
    );
  });

  it('installed as krew installs it, the plugin runs: files moved, bin linked as kubectl-pacer', () => {
    const platform = manifest.spec.platforms.find(
      (p) => p.selector?.matchLabels?.os === 'linux' && p.selector.matchLabels.arch === 'amd64',
    )!;
    const unpacked = join(dir, 'unpacked');
    const installed = join(dir, 'store');
    mkdirSync(unpacked);
    mkdirSync(installed);
    execFileSync('tar', ['-xzf', join(out, `pacer-kubectl-${VERSION}-linux-amd64.tar.gz`), '-C', unpacked]);
    // krew's files: each `from` glob (here DIR/*) moved into `to` (the install directory).
    for (const op of platform.files ?? []) {
      const from = op.from!.replace(/\/\*$/, '');
      for (const entry of readdirSync(join(unpacked, from)))
        renameSync(join(unpacked, from, entry), join(installed, op.to!, entry));
    }
    expect(readdirSync(installed).sort()).to.deep.equal(['bin', 'crds', 'dist', 'node_modules', 'package.json', 'src']);
    // Production dependencies only.
    const modules = readdirSync(join(installed, 'node_modules'));
    expect(modules).to.include.members(['@kubernetes', 'commander', 'yaml', 'winston']);
    expect(modules).to.not.include.members(['mocha', 'typescript', '@biomejs', 'chai', 'node']);
    // krew links bin as kubectl-pacer on PATH.
    mkdirSync(join(dir, 'path'));
    symlinkSync(join(installed, platform.bin!), join(dir, 'path', 'kubectl-pacer'));
    const r = spawnSync(join(dir, 'path', 'kubectl-pacer'), ['--help'], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${dirname(process.execPath)}:/usr/bin:/bin` },
    });
    expect(r.status, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/^Usage: kubectl pacer/m);
    // It runs the bundle, not the slower sources: everything the bundle was built from is there.
    expect(bundleState('dist/plugin', installed)).to.deep.equal({
      file: join(installed, 'dist', 'plugin', 'kubectl-pacer.mjs'),
    });
  });

  it('the archives carry no trace of the machine: every entry owned by 0/0, one timestamp', () => {
    const list = execFileSync(
      'tar',
      ['--numeric-owner', '-tvzf', join(out, `pacer-kubectl-${VERSION}-darwin-arm64.tar.gz`)],
      {
        encoding: 'utf8',
        maxBuffer: 64 << 20,
      },
    );
    const owners = new Set(
      list
        .trim()
        .split('\n')
        .map((l) => l.split(/\s+/)[1]),
    );
    expect([...owners]).to.deep.equal(['0/0']);
    const stamps = new Set(
      list
        .trim()
        .split('\n')
        .map((l) => l.split(/\s+/).slice(3, 5).join(' ')),
    );
    expect(stamps.size).to.equal(1);
  });
});
