// `make image`: Pacer's controller image as an OCI image layout and a `docker load` tarball, built
// without a container daemon (docs/install.md#the-image). Where a daemon exists, the Dockerfile
// builds the same image on node:24-slim instead.
//
//   node scripts/image.ts [--out DIR] [--tag pacer:VERSION]
//
// No base image is pulled (none is reachable from where this was written): the image is laid out
// from this machine, in two layers on an empty base, by hack/image's pacer-image
// (go-containerregistry; hack/image/build.sh builds it, on PATH or found in its cache):
// * runtime: the node binary of the npm package `node` (the Node 24 that `npm ci` installs) at
//   /usr/local/bin/node, the shared libraries it links against (as `ldd` names them, glibc's and
//   libstdc++'s, copied from this machine at the same paths), /etc/passwd and /etc/group with the
//   user node (uid and gid 1000), and /tmp;
// * app: /app with what scripts/release.ts stages for the plugin (bin/, src/, dist/, crds/,
//   package.json, the production node_modules), owned by root, so read-only to the process.
// Its configuration: User 1000:1000, Entrypoint /usr/local/bin/node /app/bin/pacer.js, Cmd
// controller, WorkingDir /app, NODE_ENV=production, ports 8443, 8081, 8082 and 9443.
//
// Out: DIR (default release/image/) holds oci/ (the layout; `skopeo copy oci:DIR/oci docker://...`
// or `crane push`) and pacer-image.tar (`docker load -i`, `podman load -i`, `kind load image-archive`).

import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT, stage } from './release.ts';

/** Go's names of the architectures Node reports. */
const GOARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64' };

/** The image's non-root user: the uid and gid node:24-slim's `node` user has, which manifests/ runs as. */
export const IMAGE_USER = '1000:1000';
export const ENTRYPOINT = ['/usr/local/bin/node', '/app/bin/pacer.js'];
export const PORTS = ['8443', '8081', '8082', '9443'];

/** The shared libraries (and loader) `binary` links against, as `ldd` prints their absolute paths. */
export function sharedLibraries(binary: string): string[] {
  const out = execFileSync('ldd', [binary], { encoding: 'utf8' });
  const libs: string[] = [];
  for (const line of out.split('\n')) {
    const m = /(?:=>\s*)?(\/\S+)\s+\(0x[0-9a-f]+\)/.exec(line);
    if (m) libs.push(m[1]);
  }
  if (libs.length === 0) throw new Error(`image: ldd found no shared libraries of ${binary}: ${out.trim()}`);
  return libs;
}

/** Lays out the runtime layer (node, its libraries, the users, /tmp) under `dest`. */
export function runtimeLayer(dest: string, root = ROOT): void {
  const node = realpathSync(join(root, 'node_modules', 'node', 'bin', 'node'));
  const put = (from: string, to: string) => {
    mkdirSync(dirname(join(dest, to)), { recursive: true });
    copyFileSync(realpathSync(from), join(dest, to));
  };
  put(node, '/usr/local/bin/node');
  chmodSync(join(dest, 'usr/local/bin/node'), 0o755);
  for (const lib of sharedLibraries(node)) put(lib, lib);
  mkdirSync(join(dest, 'etc'), { recursive: true });
  writeFileSync(
    join(dest, 'etc/passwd'),
    'root:x:0:0:root:/root:/usr/sbin/nologin\nnode:x:1000:1000::/home/node:/usr/sbin/nologin\n',
  );
  writeFileSync(join(dest, 'etc/group'), 'root:x:0:\nnode:x:1000:\n');
  mkdirSync(join(dest, 'tmp'), { recursive: true });
  chmodSync(join(dest, 'tmp'), 0o1777);
}

/** The directory of hack/image's pacer-image: on PATH, else its build cache (hack/image/build.sh --bin-dir). */
export function imageTool(root = ROOT): string {
  for (const dir of (process.env.PATH ?? '').split(':'))
    if (dir && existsSync(join(dir, 'pacer-image'))) return join(dir, 'pacer-image');
  const cached = join(
    execFileSync(join(root, 'hack/image/build.sh'), ['--bin-dir'], { encoding: 'utf8' }).trim(),
    'pacer-image',
  );
  if (existsSync(cached)) return cached;
  throw new Error(`image: pacer-image is not built (${cached}): run hack/image/build.sh (needs Go)`);
}

export interface ImageOptions {
  out: string;
  tag?: string;
  root?: string;
}

/** Builds the image; returns its manifest's digest and the outputs' paths. */
export function buildImage(opts: ImageOptions): { digest: string; ociDir: string; tarball: string } {
  const root = opts.root ?? ROOT;
  const out = resolve(opts.out);
  const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
  const tag = opts.tag ?? `pacer:${version}`;
  const arch = GOARCH[process.arch];
  if (!arch)
    throw new Error(`image: no image for this machine's architecture ${JSON.stringify(process.arch)} (x64 or arm64)`);
  if (process.platform !== 'linux')
    throw new Error(
      `image: the image's node comes from this machine, which runs ${process.platform}, not linux: use the Dockerfile`,
    );
  const tool = imageTool(root);
  const work = join(out, '.stage');
  rmSync(out, { recursive: true, force: true });
  runtimeLayer(join(work, 'runtime'), root);
  stage(join(work, 'app', 'app'), root);
  const ociDir = join(out, 'oci');
  const tarball = join(out, 'pacer-image.tar');
  const args = [
    '--layer',
    join(work, 'runtime'),
    '--layer',
    join(work, 'app'),
    '--platform',
    `linux/${arch}`,
    '--user',
    IMAGE_USER,
    '--entrypoint',
    ENTRYPOINT.join(','),
    '--cmd',
    'controller',
    '--workdir',
    '/app',
    '--env',
    'PATH=/usr/local/bin:/usr/bin:/bin',
    '--env',
    'NODE_ENV=production',
    ...PORTS.flatMap((p) => ['--port', p]),
    '--label',
    `org.opencontainers.image.version=${version}`,
    '--label',
    'org.opencontainers.image.title=pacer',
    '--tag',
    tag,
    '--oci-dir',
    ociDir,
    '--tarball',
    tarball,
  ];
  const digest = execFileSync(tool, args, { encoding: 'utf8' }).trim();
  rmSync(work, { recursive: true, force: true });
  return { digest, ociDir, tarball };
}

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const v = args[i + 1];
  if (v === undefined || v.startsWith('--'))
    throw new Error(`image: ${name} needs a value (got ${JSON.stringify(v ?? '')})`);
  return v;
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  try {
    for (let i = 0; i < args.length; i += 2)
      if (args[i] !== '--out' && args[i] !== '--tag')
        throw new Error(`image: unknown argument ${JSON.stringify(args[i])} (--out DIR, --tag NAME:TAG)`);
    const r = buildImage({ out: flag(args, '--out') ?? join(ROOT, 'release', 'image'), tag: flag(args, '--tag') });
    console.log(`${r.digest}\nOCI layout: ${r.ociDir}\ndocker load -i ${r.tarball}`);
  } catch (e) {
    console.error((e as Error).message);
    process.exit(1);
  }
}
