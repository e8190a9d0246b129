// `kubectl pacer dashboard`'s flags: each bad value refused in kubectl's words, naming the value,
// before anything is started.

import { expect } from 'chai';
import { audited, parseAddress, parsePort } from '../../../src/plugin/dashboard.ts';
import { runPlugin } from '../../../src/plugin/program.ts';

describe('plugin/dashboard: flags', () => {
  it('--port and --address: defaults and accepted values', () => {
    expect(parsePort(undefined)).to.equal(3100);
    expect(parsePort('0')).to.equal(0);
    expect(parsePort('65535')).to.equal(65535);
    expect(parseAddress(undefined)).to.equal('127.0.0.1');
    expect(parseAddress('localhost')).to.equal('127.0.0.1');
    expect(parseAddress('::1')).to.equal('::1');
    expect(parseAddress('0.0.0.0')).to.equal('0.0.0.0');
  });

  const rows: Array<[string[], string]> = [
    [
      ['--port', '70000'],
      'error: invalid argument "70000" for "--port" flag: port 70000 is out of range (0-65535; 0 picks a free port)\n',
    ],
    [
      ['--port=-1'],
      'error: invalid argument "-1" for "--port" flag: port -1 is out of range (0-65535; 0 picks a free port)\n',
    ],
    [
      ['--port', 'http'],
      'error: invalid argument "http" for "--port" flag: strconv.ParseInt: parsing "http": invalid syntax\n',
    ],
    [
      ['--address', 'example.com'],
      'error: invalid argument "example.com" for "--address" flag: not an IP address (e.g. 127.0.0.1, ::1, 0.0.0.0, or localhost)\n',
    ],
  ];
  for (const [args, stderr] of rows)
    it(`dashboard ${args.join(' ')}: ${stderr.trim()}`, async () => {
      const out: string[] = [];
      const err: string[] = [];
      const io = { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s) } };
      // No kubeconfig is read: the flags are refused first.
      const code = await runPlugin(['dashboard', ...args, '--kubeconfig', '/nonexistent/kubeconfig'], io);
      expect([code, err.join(''), out.join('')]).to.deep.equal([1, stderr, '']);
    });
});

describe('plugin/dashboard: the actions on the terminal', () => {
  it('one line per action once answered: when, what, on what, the status and the first line of the answer', async () => {
    const out: string[] = [];
    const io = { stdout: { write: (s: string) => out.push(s) }, stderr: { write: () => true } };
    const act = audited(
      async (_ns, name, action) =>
        action === 'undo'
          ? { status: 200, result: { ok: true, message: `deployment.pacer.dev/${name} rolled back` } }
          : { status: 403, result: { ok: false, message: 'Error from server (Forbidden): no\nsecond line' } },
      io,
      () => new Date('2026-03-01T10:00:00Z'),
    );
    await act('default', 'web', 'undo', { toRevision: 1 });
    await act('prod', 'api', 'pause', {});
    await act('default', 'web', 'setImage', { container: 'app', image: 'nginx:1.28' });
    await act('default', 'web', 'restart', {});
    expect(out).to.deep.equal([
      '2026-03-01T10:00:00.000Z undo --to-revision=1 default/web: 200 deployment.pacer.dev/web rolled back\n',
      '2026-03-01T10:00:00.000Z pause prod/api: 403 Error from server (Forbidden): no\n',
      '2026-03-01T10:00:00.000Z set image app=nginx:1.28 default/web: 403 Error from server (Forbidden): no\n',
      '2026-03-01T10:00:00.000Z restart default/web: 403 Error from server (Forbidden): no\n',
    ]);
  });
});
