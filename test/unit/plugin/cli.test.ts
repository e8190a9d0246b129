import { expect } from 'chai';
import { durationFlag, normalizeArgs, runPlugin } from '../../../src/plugin/program.ts';
import { imagePatch, parseImageArgs } from '../../../src/plugin/setimage.ts';
import { deployment } from './fixtures.ts';

function buffers() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s) } },
    out,
    err,
  };
}

describe('plugin/program: flags and set image', () => {
  const rows: Array<[string[], string[]]> = [
    [
      ['rollout', 'status', 'web', '--watch=false'],
      ['rollout', 'status', 'web', '--no-watch'],
    ],
    [
      ['rollout', 'status', 'web', '-w=true'],
      ['rollout', 'status', 'web', '--watch'],
    ],
    [
      ['list', '--all-namespaces=true'],
      ['list', '--all-namespaces'],
    ],
    [
      ['rollout', 'undo', 'web', '--dry-run'],
      ['rollout', 'undo', 'web', '--dry-run=client'],
    ],
    [
      ['rollout', 'undo', 'web', '--dry-run=server'],
      ['rollout', 'undo', 'web', '--dry-run=server'],
    ],
    [
      ['set', 'image', 'web', 'nginx=nginx:1.28'],
      ['set', 'image', 'web', 'nginx=nginx:1.28'],
    ],
    // kubectl's global flags anywhere: moved after the command, where commander knows them.
    [
      ['--kubeconfig', '/k', 'rollout', 'status', 'web'],
      ['rollout', 'status', 'web', '--kubeconfig', '/k'],
    ],
    [
      ['-n', 'prod', '--context=c1', 'list', '-o', 'json'],
      ['list', '-o', 'json', '-n', 'prod', '--context=c1'],
    ],
    [
      ['rollout', '--namespace=prod', 'history', 'web'],
      ['rollout', 'history', 'web', '--namespace=prod'],
    ],
  ];
  for (const [given, want] of rows)
    it(`${given.join(' ')} → ${want.join(' ')}`, () => expect(normalizeArgs(given)).to.deep.equal(want));

  it("--timeout takes Go durations; a bare number is refused in kubectl's words", () => {
    expect(durationFlag('--timeout', '2m')).to.equal(120_000);
    expect(durationFlag('--timeout', '0s')).to.equal(0);
    expect(() => durationFlag('--timeout', '30')).to.throw(
      'invalid argument "30" for "--timeout" flag: time: missing unit in duration "30"',
    );
  });

  it("--kubeconfig before the command works as kubectl's global flag does", async () => {
    const b = buffers();
    expect(await runPlugin(['--kubeconfig', '/nonexistent/kubeconfig', 'rollout', 'status', 'web'], b.io)).to.equal(1);
    expect(b.err.join('')).to.equal('error: --kubeconfig /nonexistent/kubeconfig: no such file\n');
  });

  it('a missing --kubeconfig file is reported on stderr with exit 1', async () => {
    const b = buffers();
    const code = await runPlugin(['rollout', 'status', 'web', '--kubeconfig', '/nonexistent/kubeconfig'], b.io);
    expect(code).to.equal(1);
    expect(b.err.join('')).to.equal('error: --kubeconfig /nonexistent/kubeconfig: no such file\n');
  });

  it('a missing file in KUBECONFIG is named, exit 1', async () => {
    const saved = process.env.KUBECONFIG;
    process.env.KUBECONFIG = '/nonexistent/a-kubeconfig';
    try {
      const b = buffers();
      expect(await runPlugin(['list'], b.io)).to.equal(1);
      expect(b.err.join('')).to.equal('error: KUBECONFIG /nonexistent/a-kubeconfig: no such file\n');
    } finally {
      if (saved === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = saved;
    }
  });

  it('--help exits 0 and names the command', async () => {
    const b = buffers();
    expect(await runPlugin(['rollout', 'undo', '--help'], b.io)).to.equal(0);
    expect(b.out.join('')).to.match(/^Usage: kubectl pacer rollout undo \[options\] <name>/);
    expect(b.out.join('')).to.contain('--to-revision <n>');
  });

  it('an unknown flag exits 1', async () => {
    const b = buffers();
    expect(await runPlugin(['list', '--bogus'], b.io)).to.equal(1);
    expect(b.err.join('')).to.contain("unknown option '--bogus'");
  });

  it('set image: CONTAINER=IMAGE pairs', () => {
    expect(parseImageArgs(['nginx=nginx:1.28', '*=busybox'])).to.deep.equal([
      { container: 'nginx', image: 'nginx:1.28' },
      { container: '*', image: 'busybox' },
    ]);
    expect(() => parseImageArgs(['nginx'])).to.throw('invalid image update "nginx": expected CONTAINER=IMAGE');
    expect(() => parseImageArgs([])).to.throw('at least one image update is required');
  });

  it('set image: a test of the container name at its index, then the image; nothing when unchanged', () => {
    const d = deployment('web', { image: 'nginx:1.27' });
    (d.spec.template!.spec as { containers: object[] }).containers.push({ name: 'sidecar', image: 'envoy:1' });
    expect(imagePatch(d, [{ container: 'sidecar', image: 'envoy:2' }])).to.deep.equal([
      { op: 'test', path: '/spec/template/spec/containers/1/name', value: 'sidecar' },
      { op: 'replace', path: '/spec/template/spec/containers/1/image', value: 'envoy:2' },
    ]);
    expect(imagePatch(d, [{ container: '*', image: 'nginx:1.27' }])).to.have.length(2); // only the sidecar changes
    expect(imagePatch(d, [{ container: 'nginx', image: 'nginx:1.27' }])).to.deep.equal([]);
    expect(() => imagePatch(d, [{ container: 'db', image: 'x' }])).to.throw('unable to find container named "db"');
  });
});
