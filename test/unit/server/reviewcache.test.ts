// The reviews' answers kept for a while (src/server/ttlcache.ts, auth.ts cachedReviews): the secure
// /metrics keeps them as controller-runtime's metrics filter does (a token's caller 1 minute, an
// allow 5 minutes, a deny 30 seconds); a review that fails is not kept. Reviews are a fake from a
// table, every call counted; the clock is the test's.

import { expect } from 'chai';
import type { Access, Caller, PathAccess, Reviews } from '../../../src/server/auth.ts';
import { METRICS_REVIEW_TTL, cachedReviews } from '../../../src/server/auth.ts';
import { TtlCache } from '../../../src/server/ttlcache.ts';

const METRICS: PathAccess = { path: '/metrics', verb: 'get' };
const prometheus: Caller = {
  username: 'system:serviceaccount:monitoring:prometheus',
  groups: ['system:serviceaccounts'],
};

/** Reviews answering from `tokens` and `allowed` (usernames allowed GET /metrics); `down` makes every review fail. */
function fakeReviews(tokens: Record<string, Caller>, allowed: Set<string>) {
  const calls: string[] = [];
  let down = false;
  const reviews: Reviews = {
    authenticate: async (token) => {
      calls.push(`TokenReview ${token}`);
      if (down) throw new Error('connect ECONNREFUSED 127.0.0.1:6443');
      return tokens[token];
    },
    authorize: async (caller, access: Access | PathAccess) => {
      calls.push(`SubjectAccessReview ${caller.username} ${'path' in access ? access.path : access.resource}`);
      if (down) throw new Error('connect ECONNREFUSED 127.0.0.1:6443');
      return allowed.has(caller.username) ? { allowed: true } : { allowed: false, reason: 'no RBAC policy matched' };
    },
  };
  return { reviews, calls, setDown: (d: boolean) => (down = d) };
}

describe('server: the reviews kept for a while', () => {
  it('TtlCache: an answer is kept for its time (or the one it was set with), then asked again', () => {
    let now = 0;
    const c = new TtlCache<boolean>(20_000, () => now);
    c.set('k', true);
    c.set('short', false, 5_000);
    now = 4_999;
    expect([c.get('k'), c.get('short')]).to.deep.equal([true, false]);
    now = 5_000;
    expect([c.get('k'), c.get('short')]).to.deep.equal([true, undefined]);
    now = 19_999;
    expect(c.get('k')).to.equal(true);
    now = 20_000;
    expect(c.get('k')).to.equal(undefined);
  });

  it('TtlCache: full, the oldest answer goes first', () => {
    const c = new TtlCache<number>(60_000, () => 0, 2);
    c.set('a', 1);
    c.set('b', 2);
    c.set('c', 3);
    expect([c.get('a'), c.get('b'), c.get('c')]).to.deep.equal([undefined, 2, 3]);
  });

  it("METRICS_REVIEW_TTL is controller-runtime's: 1 minute, 5 minutes, 30 seconds", () =>
    expect(METRICS_REVIEW_TTL).to.deep.equal({ tokenMs: 60_000, allowMs: 300_000, denyMs: 30_000 }));

  it('a scraper every 30 s: the token reviewed once a minute, the allow once in 5 minutes', async () => {
    let now = 0;
    const f = fakeReviews({ 'prom-token': prometheus }, new Set([prometheus.username]));
    const r = cachedReviews(f.reviews, METRICS_REVIEW_TTL, () => now);
    const scrape = async () => {
      const caller = await r.authenticate('prom-token');
      return (await r.authorize(caller!, METRICS)).allowed;
    };
    const rows: Array<[number, number]> = [
      // [at ms, reviews sent so far]
      [0, 2], // first scrape: both reviews
      [30_000, 2], // both kept
      [60_000, 3], // the token's minute is up: TokenReview again, the allow still kept
      [90_000, 3],
      [300_000, 5], // a minute on again, and the allow's 5 minutes are up
    ];
    for (const [at, sent] of rows) {
      now = at;
      expect(await scrape(), `allowed at ${at} ms`).to.equal(true);
      expect(f.calls, `reviews sent by ${at} ms`).to.have.length(sent);
    }
  });

  it('a deny is kept 30 s, an unknown token a minute; then asked again', async () => {
    let now = 0;
    const stranger: Caller = { username: 'system:anonymous-ish' };
    const f = fakeReviews({ 'stranger-token': stranger }, new Set());
    const r = cachedReviews(f.reviews, METRICS_REVIEW_TTL, () => now);
    expect(await r.authorize(stranger, METRICS)).to.deep.equal({ allowed: false, reason: 'no RBAC policy matched' });
    expect(await r.authenticate('forged')).to.equal(undefined);
    now = 29_999;
    await r.authorize(stranger, METRICS);
    await r.authenticate('forged');
    expect(f.calls).to.have.length(2);
    now = 30_000;
    await r.authorize(stranger, METRICS);
    expect(f.calls).to.have.length(3);
    now = 60_000;
    await r.authenticate('forged');
    expect(f.calls.at(-1)).to.equal('TokenReview forged');
    expect(f.calls).to.have.length(4);
  });

  it('a review that fails is not kept: the next request asks again, and gets the answer', async () => {
    const f = fakeReviews({ 'prom-token': prometheus }, new Set([prometheus.username]));
    const r = cachedReviews(f.reviews, METRICS_REVIEW_TTL, () => 0);
    f.setDown(true);
    const err = await r.authenticate('prom-token').then(
      () => undefined,
      (e: Error) => e.message,
    );
    expect(err).to.equal('connect ECONNREFUSED 127.0.0.1:6443');
    f.setDown(false);
    expect(await r.authenticate('prom-token')).to.deep.equal(prometheus);
    expect(f.calls).to.deep.equal(['TokenReview prom-token', 'TokenReview prom-token']);
  });

  it('answers are per caller: another user in the same groups is reviewed on its own', async () => {
    const other: Caller = { ...prometheus, username: 'system:serviceaccount:monitoring:other' };
    const f = fakeReviews({}, new Set([prometheus.username]));
    const r = cachedReviews(f.reviews, METRICS_REVIEW_TTL, () => 0);
    expect((await r.authorize(prometheus, METRICS)).allowed).to.equal(true);
    expect((await r.authorize(other, METRICS)).allowed).to.equal(false);
    expect(f.calls).to.have.length(2);
  });
});
