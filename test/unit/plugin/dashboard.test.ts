// `kubectl pacer dashboard`'s flags: each bad value refused in kubectl's words, naming the value,
// before anything is started.

import { expect } from 'chai';
import { parseAddress, parsePort } from '../../../src/plugin/dashboard.ts';
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
