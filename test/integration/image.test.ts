// `make image` (scripts/image.ts) without a Docker daemon: the OCI layout's index, manifest and
// config read as a runtime reads them (the config's User is non-root, the entrypoint is the node of
// the image starting bin/pacer.js), every layer's files owned by root, and the image's content run:
// its layers unpacked into a directory and the entrypoint started with the image's own node, dynamic
// loader and libraries (as uid 1000 when the test runs as root), printing the controller's --help.
// The `docker load` tarball names the tag. pacer-image comes from hack/image (requireTool: a failure
// under CI=true when it is missing).

import { expect } from 'chai';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ENTRYPOINT, IMAGE_USER, sharedLibraries } from '../../scripts/image.ts';
import { IMAGE_TOOL_HOW, requireTool } from '../fixtures/tools.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
}

describe('make image: the controller image without a Docker daemon', function () {
  // Two layers of the node binary and the production dependencies: minutes on a loaded machine.
  this.timeout(900_000);
  let dir: string;
  let out: string;
  let manifest: { mediaType: string; config: Descriptor; layers: Descriptor[] };
  let config: {
    os: string;
    architecture: string;
    config: {
      User: string;
      Entrypoint: string[];
      Cmd: string[];
      WorkingDir: string;
      Env: string[];
      ExposedPorts: object;
    };
  };
  const blob = (d: Descriptor) => join(out, 'oci', 'blobs', ...d.digest.split(':'));

  before(function () {
    requireTool(this, 'pacer-image', IMAGE_TOOL_HOW);
    if (process.platform !== 'linux') this.skip(); // the image's node is this machine's: linux only
    dir = mkdtempSync(join(tmpdir(), 'pacer-image-'));
    // uid 1000 must reach the unpacked files below.
    chmodSync(dir, 0o755);
    out = join(dir, 'out');
    if (!existsSync(join(ROOT, 'dist', 'dashboard')))
      execFileSync('npm', ['run', '--silent', 'build:dashboard'], { cwd: ROOT });
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'image.ts'), '--out', out], { encoding: 'utf8' });
    expect(r.status, r.stderr).to.equal(0);
    const index = JSON.parse(readFileSync(join(out, 'oci', 'index.json'), 'utf8')) as { manifests: Descriptor[] };
    expect(index.manifests).to.have.length(1);
    expect(index.manifests[0].annotations?.['org.opencontainers.image.ref.name']).to.equal(`pacer:${VERSION}`);
    expect(r.stdout.split('\n')[0]).to.equal(index.manifests[0].digest);
    manifest = JSON.parse(readFileSync(blob(index.manifests[0]), 'utf8'));
    config = JSON.parse(readFileSync(blob(manifest.config), 'utf8'));
  });
  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("the OCI layout's blobs are what their digests say", () => {
    expect(JSON.parse(readFileSync(join(out, 'oci', 'oci-layout'), 'utf8'))).to.deep.equal({
      imageLayoutVersion: '1.0.0',
    });
    for (const d of [manifest.config, ...manifest.layers]) {
      const data = readFileSync(blob(d));
      expect(data.length, d.digest).to.equal(d.size);
      const sum = execFileSync('sha256sum', [blob(d)], { encoding: 'utf8' }).split(' ')[0];
      expect(`sha256:${sum}`).to.equal(d.digest);
    }
  });

  it('the config runs the controller as a non-root user: User 1000:1000, node bin/pacer.js controller', () => {
    expect(config.os).to.equal('linux');
    expect(config.config.User).to.equal(IMAGE_USER);
    expect(Number(config.config.User.split(':')[0])).to.be.greaterThan(0);
    expect(config.config.Entrypoint).to.deep.equal(['/usr/local/bin/node', '/app/bin/pacer.js']);
    expect(config.config.Cmd).to.deep.equal(['controller']);
    expect(config.config.WorkingDir).to.equal('/app');
    expect(config.config.Env).to.include('NODE_ENV=production');
    expect(Object.keys(config.config.ExposedPorts).sort()).to.deep.equal([
      '8081/tcp',
      '8082/tcp',
      '8443/tcp',
      '9443/tcp',
    ]);
  });

  it("every file of every layer is root's, so the process (uid 1000) cannot change the app", () => {
    for (const l of manifest.layers) {
      expect(l.mediaType).to.equal('application/vnd.oci.image.layer.v1.tar+gzip');
      const list = execFileSync('tar', ['--numeric-owner', '-tvzf', blob(l)], {
        encoding: 'utf8',
        maxBuffer: 64 << 20,
      });
      const owners = new Set(
        list
          .trim()
          .split('\n')
          .map((line) => line.split(/\s+/)[1]),
      );
      expect([...owners], l.digest).to.deep.equal(['0/0']);
    }
  });

  it("unpacked, the image's own node starts the entrypoint: the controller's --help", () => {
    const rootfs = join(dir, 'rootfs');
    mkdirSync(rootfs);
    chmodSync(rootfs, 0o755);
    for (const l of manifest.layers) execFileSync('tar', ['-xzf', blob(l), '-C', rootfs]);
    expect(readFileSync(join(rootfs, 'etc', 'passwd'), 'utf8')).to.contain('node:x:1000:1000:');
    expect(readdirSync(join(rootfs, 'app'))).to.include.members(['bin', 'src', 'node_modules', 'package.json']);
    // The image's node through the image's loader and libraries, not this machine's.
    const node = join(rootfs, ENTRYPOINT[0]);
    const libs = sharedLibraries(node);
    const loader = libs.find((l) => /ld-linux/.test(l))!;
    const libDirs = [...new Set(libs.filter((l) => l !== loader).map((l) => join(rootfs, l, '..')))];
    const asUser = process.getuid?.() === 0 ? { uid: 1000, gid: 1000 } : {};
    const r = spawnSync(
      join(rootfs, loader),
      ['--library-path', libDirs.join(':'), node, join(rootfs, ENTRYPOINT[1]), ...config.config.Cmd, '--help'],
      { encoding: 'utf8', cwd: join(rootfs, 'app'), env: { PATH: '/usr/bin:/bin', NODE_ENV: 'production' }, ...asUser },
    );
    expect(r.status, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/^Usage: pacer controller \[options\]/);
    expect(r.stdout).to.contain('--leader-elect');
  });

  it('the docker load tarball names the image pacer:VERSION', () => {
    const m = JSON.parse(
      execFileSync('tar', ['-xOf', join(out, 'pacer-image.tar'), 'manifest.json'], { encoding: 'utf8' }),
    ) as Array<{
      RepoTags: string[];
      Layers: string[];
    }>;
    expect(m.map((x) => x.RepoTags)).to.deep.equal([[`pacer:${VERSION}`]]);
    expect(m[0].Layers).to.have.length(manifest.layers.length);
  });
});
