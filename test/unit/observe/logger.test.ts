import { expect } from 'chai';
import { PassThrough } from 'node:stream';
import { createLogger, reconcileLogger } from '../../../src/observe/logger.ts';
import type { LoggerOptions } from '../../../src/observe/logger.ts';

function capture(opts: LoggerOptions = {}) {
  const stream = new PassThrough();
  const lines: string[] = [];
  let buf = '';
  stream.on('data', (c: Buffer) => {
    buf += c.toString();
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      lines.push(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
    }
  });
  const logger = createLogger({ ...opts, stream });
  const flush = () => new Promise<void>((r) => setImmediate(r));
  return { logger, lines, flush };
}

describe('observe/logger', () => {
  it('JSON by default: timestamp, level, message and the reconcile fields on one line', async () => {
    const { logger, lines, flush } = capture();
    reconcileLogger(logger, 'deployment', 'shop/web', 'id-1').info('reconcile finished', {
      duration: 12.5,
      result: 'success',
    });
    await flush();
    const rec = JSON.parse(lines[0]) as Record<string, unknown>;
    expect(rec).to.include({
      level: 'info',
      message: 'reconcile finished',
      controller: 'deployment',
      namespace: 'shop',
      name: 'web',
      reconcileID: 'id-1',
      duration: 12.5,
    });
    expect(Date.parse(String(rec.timestamp))).to.be.a('number').and.not.NaN;
  });

  it('--log-format=text: one readable line with key=value fields', async () => {
    const { logger, lines, flush } = capture({ format: 'text' });
    reconcileLogger(logger, 'deployment', 'shop/web', 'id-2').warn('could not record event', { reason: 'Scaled up' });
    await flush();
    expect(lines[0]).to.match(
      /^\d{4}-\d\d-\d\dT\S+ WARN {2}could not record event controller=deployment namespace=shop name=web reconcileID=id-2 reason="Scaled up"$/,
    );
  });

  const levels: Array<[LoggerOptions['level'], string[]]> = [
    ['error', ['error']],
    ['warn', ['error', 'warn']],
    ['info', ['error', 'warn', 'info']],
    ['debug', ['error', 'warn', 'info', 'debug']],
  ];
  for (const [level, shown] of levels) {
    it(`--log-level=${level} shows ${shown.join(', ')}`, async () => {
      const { logger, lines, flush } = capture({ level });
      for (const l of ['error', 'warn', 'info', 'debug'] as const) logger.log(l, l);
      await flush();
      expect(lines.map((x) => (JSON.parse(x) as { level: string }).level)).to.deep.equal(shown);
    });
  }
});
