import { expect } from 'chai';
import { Faults, parseDuration, parseFaults } from '../../../src/sim/faults.ts';

describe('sim/faults: spec grammar', () => {
  const rows: Array<[string, unknown]> = [
    ['latency=20ms', [{ kind: 'latency', minMs: 20, maxMs: 20, filter: {} }]],
    [
      'latency=10ms-1s:verb=get|list',
      [{ kind: 'latency', minMs: 10, maxMs: 1000, filter: { verbs: ['get', 'list'] } }],
    ],
    [
      'error=500@0.1:verb=patch,resource=replicasets',
      [{ kind: 'error', code: 500, rate: 0.1, filter: { verbs: ['patch'], resources: ['replicasets'] } }],
    ],
    [
      'error=429@1;drop-watches=30s',
      [
        { kind: 'error', code: 429, rate: 1, filter: {} },
        { kind: 'drop-watches', everyMs: 30_000 },
      ],
    ],
    ['expire=2m', [{ kind: 'expire', everyMs: 120_000 }]],
    ['', []],
  ];
  for (const [spec, rules] of rows) {
    it(JSON.stringify(spec), () => expect(parseFaults(spec).rules).to.deep.equal(rules));
  }
  it('reads a seed', () => expect(parseFaults('seed=42;latency=1ms').seed).to.equal(42));
  const bad: Array<[string, string]> = [
    ['latency=fast', 'bad duration "fast"'],
    ['latency=2s-1s', 'latency range "2s-1s" is reversed'],
    ['error=500', 'bad error "500"'],
    ['error=418@0.5', 'error code 418 not supported'],
    ['error=500@0.5:colour=red', 'unknown filter "colour"'],
    ['nap=1s', 'unknown fault "nap"'],
  ];
  for (const [spec, message] of bad) {
    it(`${JSON.stringify(spec)} is refused: ${message}`, () => expect(() => parseFaults(spec)).to.throw(message));
  }
  it('durations', () => {
    expect([parseDuration('5'), parseDuration('5ms'), parseDuration('1.5s'), parseDuration('2m')]).to.deep.equal([
      5, 5, 1500, 120_000,
    ]);
  });
});

describe('sim/faults: injection', () => {
  it('fires errors at about the given rate, per verb and resource, repeatably with a seed', async () => {
    const run = async (): Promise<number[]> => {
      const f = new Faults('seed=7;error=500@0.3:verb=patch,resource=replicasets');
      const codes: number[] = [];
      for (let i = 0; i < 200; i++)
        codes.push((await f.apply({ verb: 'patch', resource: 'replicasets', group: 'apps', name: 'a' }))?.code ?? 200);
      expect(await f.apply({ verb: 'get', resource: 'replicasets' })).to.equal(undefined);
      expect(await f.apply({ verb: 'patch', resource: 'pods' })).to.equal(undefined);
      f.stop();
      return codes;
    };
    const a = await run();
    const errors = a.filter((c) => c === 500).length;
    expect(errors).to.be.within(35, 85);
    expect(await run()).to.deep.equal(a);
  });

  it('shapes the injected errors like a real server', async () => {
    const get = async (spec: string) => {
      const f = new Faults(spec);
      const e = await f.apply({ verb: 'update', resource: 'widgets', group: 'example.com', name: 'w1' });
      f.stop();
      return e!.toStatus();
    };
    expect(await get('error=429@1')).to.deep.include({
      code: 429,
      reason: 'TooManyRequests',
      details: { retryAfterSeconds: 1 },
    });
    expect(await get('error=409@1')).to.deep.include({
      code: 409,
      reason: 'Conflict',
      message:
        'Operation cannot be fulfilled on widgets.example.com "w1": the object has been modified; please apply your changes to the latest version and try again',
    });
    expect(await get('error=500@1')).to.deep.include({
      code: 500,
      reason: 'InternalError',
      message: 'Internal error occurred: injected fault',
    });
  });

  it('drops watches and expires versions on demand', () => {
    const f = new Faults();
    let dropped = 0;
    let expired = 0;
    f.onDropWatches(() => dropped++);
    f.onExpire(() => expired++);
    f.dropWatches();
    f.expireResourceVersions();
    expect([dropped, expired]).to.deep.equal([1, 1]);
    f.stop();
  });
});
