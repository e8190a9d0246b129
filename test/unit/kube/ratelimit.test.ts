// The client-side token bucket (src/kube/ratelimit.ts) on a fake clock: client-go's QPS and Burst; and
// KubeClient's other guard before a request leaves, the write gate.

import { expect } from 'chai';
import { TokenBucket } from '../../../src/kube/ratelimit.ts';
import type { BucketClock as Clock } from '../../../src/kube/ratelimit.ts';
import { KubeClient } from '../../../src/kube/client.ts';
import { loadKubeConfig } from '../../../src/kube/clientnode.ts';
import { KubeError } from '../../../src/kube/errors.ts';
import { ManualClock } from '../../../src/kube/clock.ts';
import { kubeconfigYaml } from '../../../src/sim/kubeconfig.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

function fakeClock(): Clock & { t: number; slept: number[] } {
  const c = {
    t: 0,
    slept: [] as number[],
    elapsed: () => c.t,
    sleep: async (ms: number) => {
      c.slept.push(ms);
      c.t += ms;
    },
  };
  return c;
}

/** Runs `fn` against an HTTP server on 127.0.0.1 answering with `handler`, then closes it. */
async function withServer(
  handler: Parameters<typeof createServer>[1],
  fn: (url: string) => Promise<void>,
): Promise<void> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  try {
    await fn(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.close();
  }
}

describe('kube/ratelimit: a token bucket of qps and burst', () => {
  it('20 QPS, burst 30: thirty requests at once go through, the next ones wait 50 ms apart', () => {
    const b = new TokenBucket(20, 30, fakeClock());
    const waits = Array.from({ length: 33 }, () => b.reserve());
    expect(waits.slice(0, 30).every((w) => w === 0)).to.equal(true);
    expect(waits.slice(30).map((w) => Math.round(w))).to.deep.equal([50, 100, 150]);
  });

  it('refills at qps per second, never above burst', () => {
    const clock = fakeClock();
    const b = new TokenBucket(10, 5, clock);
    for (let i = 0; i < 5; i++) b.reserve();
    clock.t += 300; // three tokens back
    expect([b.reserve(), b.reserve(), b.reserve()]).to.deep.equal([0, 0, 0]);
    expect(Math.round(b.reserve())).to.equal(100);
    clock.t += 60_000; // a long pause fills the bucket to 5, not 600
    expect(Array.from({ length: 6 }, () => b.reserve()).filter((w) => w === 0)).to.have.length(5);
  });

  it('take() sleeps for the reserved wait, in the order asked', async () => {
    const clock = fakeClock();
    const b = new TokenBucket(2, 1, clock);
    expect(await b.take()).to.equal(0);
    expect(await b.take()).to.equal(500);
    expect(clock.slept).to.deep.equal([500]);
  });

  it('takeSpare() waits for a token nobody reserved: a take() asked later is served first', async () => {
    const clock = new ManualClock();
    const b = new TokenBucket(10, 1, clock);
    expect(await b.take()).to.equal(0); // the burst is spent: next token at 100 ms
    const served: string[] = [];
    const spare = b.takeSpare().then((w) => served.push(`spare after ${w} ms`));
    await clock.advance(50);
    const first = b.take().then((w) => served.push(`take after ${w} ms`)); // reserves the token of 100 ms
    await clock.advance(50);
    await first;
    expect(served).to.deep.equal(['take after 50 ms']);
    await clock.advance(99);
    expect(served, 'the token of 200 ms is not there yet').to.have.length(1);
    await clock.advance(1);
    await spare;
    expect(served).to.deep.equal(['take after 50 ms', 'spare after 200 ms']);
  });

  it('takeSpare() takes at once when a token is spare, and leaves the next take() waiting as long as any other would', async () => {
    const clock = fakeClock();
    const b = new TokenBucket(20, 2, clock);
    expect(await b.takeSpare()).to.equal(0);
    expect(await b.takeSpare()).to.equal(0);
    expect(Math.round(b.reserve())).to.equal(50);
  });

  const invalid: Array<[number, number, string]> = [
    [0, 10, 'qps must be greater than 0, got 0'],
    [-1, 10, 'qps must be greater than 0, got -1'],
    [5, 0, 'burst must be an integer of at least 1, got 0'],
    [5, 1.5, 'burst must be an integer of at least 1, got 1.5'],
  ];
  for (const [qps, burst, message] of invalid)
    it(`qps ${qps}, burst ${burst}: ${message}`, () => expect(() => new TokenBucket(qps, burst)).to.throw(message));
});

describe('kube/ratelimit: KubeClient takes a token for every request (manual clock)', () => {
  it('with qps 1 and burst 2, the third request of a burst is sent once the clock has moved 1 s, and the wait is reported', async () => {
    let served = 0;
    await withServer(
      (_req, res) => {
        served++;
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"gitVersion":"v1.36.4"}');
      },
      async (url) => {
        const clock = new ManualClock();
        const waits: number[] = [];
        const client = new KubeClient(loadKubeConfig({ kubeconfigText: kubeconfigYaml(url) }), {
          rateLimit: { qps: 1, burst: 2 },
          clock,
          metrics: { observe: () => {}, throttled: ({ seconds }) => waits.push(seconds) },
        });
        const [first, second, third] = [client.version(), client.version(), client.version()];
        await Promise.all([first, second]); // real I/O: answered when the server answers
        expect(clock.pending(), 'the third waits on a timer of the clock').to.equal(1);
        await clock.advance(999);
        expect(served, 'the third request waits for its token').to.equal(2);
        await clock.advance(1);
        expect((await third).gitVersion).to.equal('v1.36.4');
        expect(served).to.equal(3);
        expect(waits).to.deep.equal([0, 0, 1]);
      },
    );
  });
});

describe('kube/ratelimit: an Event write yields to the other requests (manual clock)', () => {
  it('qps 1, burst 1: an Event asked before a read is sent after it', async () => {
    const sent: string[] = [];
    await withServer(
      (req, res) => {
        sent.push(`${req.method} ${req.url}`);
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      },
      async (url) => {
        const clock = new ManualClock();
        const client = new KubeClient(loadKubeConfig({ kubeconfigText: kubeconfigYaml(url) }), {
          rateLimit: { qps: 1, burst: 1 },
          clock,
        });
        await client.version(); // the burst
        const event = client.createEvent('default', { metadata: { name: 'web.1' } });
        await clock.advance(10);
        const read = client.version();
        await clock.advance(990);
        await read;
        expect(sent).to.deep.equal(['GET /version', 'GET /version']);
        await clock.advance(1000);
        await event;
        expect(sent).to.deep.equal(['GET /version', 'GET /version', 'POST /api/v1/namespaces/default/events']);
      },
    );
  });
});

describe('kube/client: the write gate (a replica that does not lead never sends a write)', () => {
  it('reads go through; a write is refused before it is sent, naming the reason, until the gate opens', async () => {
    const seen: string[] = [];
    let refusal: string | undefined = 'this replica is not the leader';
    await withServer(
      (req, res) => {
        seen.push(`${req.method} ${req.url}`);
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"metadata":{"name":"web"}}');
      },
      async (url) => {
        const client = new KubeClient(loadKubeConfig({ kubeconfigText: kubeconfigYaml(url) }), {
          writeGate: () => refusal,
        });
        await client.getReplicaSet('default', 'web');
        let err: unknown;
        try {
          await client.deleteReplicaSet('default', 'web');
        } catch (e) {
          err = e;
        }
        expect(err).to.be.instanceOf(KubeError);
        expect((err as KubeError).kind).to.equal('NotLeader');
        expect((err as KubeError).message).to.match(/not sent: this replica is not the leader$/);
        expect(seen, 'the delete never reached the server').to.deep.equal([
          'GET /apis/apps/v1/namespaces/default/replicasets/web',
        ]);
        refusal = undefined;
        await client.deleteReplicaSet('default', 'web');
        expect(seen.at(-1)).to.equal('DELETE /apis/apps/v1/namespaces/default/replicasets/web');
      },
    );
  });
});
