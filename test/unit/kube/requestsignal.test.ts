// One request's signal (src/kube/client.ts, requestSignal): the caller's abort, or the request's
// timeout, until the request ends; after that, neither reaches it and nothing of it is left waiting.

import { expect } from 'chai';
import { getEventListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { requestSignal } from '../../../src/kube/client.ts';

describe("kube/client: a request's signal", () => {
  it("the caller's abort aborts the request, with the caller's reason", () => {
    const outer = new AbortController();
    const { signal, done } = requestSignal(30_000, outer.signal);
    expect(signal.aborted).to.equal(false);
    outer.abort(new Error('informer stopped'));
    expect(signal.aborted).to.equal(true);
    expect((signal.reason as Error).message).to.equal('informer stopped');
    done();
  });

  it('a caller already aborted: the request is aborted before it is sent', () => {
    const outer = new AbortController();
    outer.abort(new Error('stopped'));
    const { signal, done } = requestSignal(30_000, outer.signal);
    expect(signal.aborted).to.equal(true);
    expect((signal.reason as Error).message).to.equal('stopped');
    done();
  });

  it('no answer within the timeout: aborted with a TimeoutError, as AbortSignal.timeout does', async () => {
    const { signal, done } = requestSignal(20);
    await sleep(60);
    expect(signal.aborted).to.equal(true);
    expect(signal.reason).to.be.instanceOf(DOMException).and.to.include({ name: 'TimeoutError' });
    done();
  });

  it('once done, neither the timeout nor the caller reaches it, and the caller holds no listener of it', async () => {
    const outer = new AbortController();
    const listeners = () => getEventListeners(outer.signal, 'abort').length;
    const { signal, done } = requestSignal(20, outer.signal);
    expect(listeners()).to.equal(1);
    done();
    expect(listeners()).to.equal(0);
    await sleep(60);
    outer.abort(new Error('late'));
    expect(signal.aborted).to.equal(false);
  });
});
