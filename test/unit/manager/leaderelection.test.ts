// Leader election (src/manager/leaderelection.ts) on a manual clock against an in-memory Lease with
// resourceVersions: client-go's rules, one row per situation.

import { expect } from 'chai';
import { ManualClock } from '../../../src/kube/clock.ts';
import { LeaderElector, campaignProblem, checkDurations, microTime } from '../../../src/manager/leaderelection.ts';
import { KubeError } from '../../../src/kube/errors.ts';
import type { LeaseStore } from '../../../src/manager/leaderelection.ts';
import { MemoryLease } from './memorylease.ts';

interface Candidate {
  elector: LeaderElector;
  log: string[];
  /** What the elector said through onError. */
  errors: string[];
  abort: AbortController;
  run: Promise<void>;
}

function candidate(
  mem: MemoryLease,
  clock: ManualClock,
  who: string,
  random = () => 0,
  opts: { watch?: boolean } = {},
): Candidate {
  const log: string[] = [];
  const errors: string[] = [];
  const elector = new LeaderElector({
    store: mem.store(who, opts),
    identity: who,
    clock,
    random,
    onStartedLeading: () => log.push(`started@${clock.now() - T0}`),
    onStoppedLeading: () => {
      log.push(`stopped@${clock.now() - T0}`);
    },
    onError: (message) => errors.push(message),
  });
  const abort = new AbortController();
  return { elector, log, errors, abort, run: elector.run(abort.signal) };
}

const T0 = Date.UTC(2026, 0, 1);

describe('manager/leaderelection: client-go semantics on a manual clock', () => {
  let clock: ManualClock;
  let mem: MemoryLease;
  let running: Candidate[];
  beforeEach(() => {
    clock = new ManualClock(T0);
    mem = new MemoryLease();
    running = [];
  });
  afterEach(async () => {
    for (const c of running) c.abort.abort();
    await clock.advance(20_000);
    await Promise.all(running.map((c) => c.run));
  });
  const start = (who: string, random?: () => number, opts?: { watch?: boolean }): Candidate => {
    const c = candidate(mem, clock, who, random, opts);
    running.push(c);
    return c;
  };

  it('no Lease yet: the first candidate creates it and leads at once (transitions 0)', async () => {
    const a = start('a');
    await clock.advance(0);
    expect(a.log).to.deep.equal(['started@0']);
    expect(mem.lease?.spec).to.deep.include({
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      leaseTransitions: 0,
      renewTime: microTime(T0),
    });
    expect(microTime(T0)).to.equal('2026-01-01T00:00:00.000000Z');
  });

  it('the leader renews every retry period (2 s); a second candidate never takes a Lease that keeps changing', async () => {
    const a = start('a');
    await clock.advance(0);
    const b = start('b');
    await clock.advance(60_000);
    expect(b.log).to.deep.equal([]);
    expect(b.elector.leader()).to.equal('a');
    const renewals = mem.writes.filter((w) => w.by === 'a').length;
    expect(renewals, 'one create and a renewal every 2 s for 60 s').to.equal(31);
    expect(mem.lease?.spec?.acquireTime, 'a renewal keeps acquireTime').to.equal(microTime(T0));
    expect(a.log).to.deep.equal(['started@0']);
  });

  it('a leader that cannot renew stops leading at the renew deadline, before the Lease expires for anyone else', async () => {
    const a = start('a');
    await clock.advance(0);
    const b = start('b');
    await clock.advance(4_000); // a renewed at 2 s and 4 s
    mem.down.add('a');
    await clock.advance(20_000);
    // Last renewal at 4 s; the next try at 6 s fails and keeps failing until 6 + 10 = 16 s.
    expect(a.log).to.deep.equal(['started@0', 'stopped@16000']);
    // b saw the record change last at 4 s (its own clock): it may take it from 4 + 15 = 19 s, at its next try.
    expect(b.log).to.deep.equal(['started@20000']);
    expect(mem.lease?.spec).to.deep.include({ holderIdentity: 'b', leaseTransitions: 1 });
  });

  it('a standby takes an abandoned Lease only after lease duration without a change on its own clock', async () => {
    // A Lease left by a replica that died: its renewTime is far in the past, but clocks of other
    // replicas are never trusted; the standby waits a full lease duration from when it first saw it.
    mem.lease = {
      metadata: { name: 'pacer-controller', namespace: 'pacer-system', resourceVersion: '7' },
      spec: {
        holderIdentity: 'dead',
        leaseDurationSeconds: 15,
        renewTime: '2020-01-01T00:00:00.000000Z',
        leaseTransitions: 3,
      },
    };
    mem.rv = 7;
    const b = start('b');
    await clock.advance(14_000);
    expect(b.log).to.deep.equal([]);
    await clock.advance(2_000);
    expect(b.log).to.deep.equal(['started@16000']); // tries at 0, 2, ..., 14, 16: the first after 15 s wins
    expect(mem.lease.spec).to.deep.include({ holderIdentity: 'b', leaseTransitions: 4 });
  });

  it('on stop the leader releases the Lease (no holder, 1 s) and a standby takes it at its next try', async () => {
    const a = start('a');
    await clock.advance(0);
    const b = start('b');
    await clock.advance(5_000);
    a.abort.abort();
    await a.run;
    expect(a.log).to.deep.equal(['started@0', 'stopped@5000']);
    expect(mem.lease?.spec).to.deep.include({ holderIdentity: '', leaseDurationSeconds: 1, leaseTransitions: 0 });
    await clock.advance(2_000);
    expect(b.log, 'b tries every 2 s (jitter 0 here): it takes the released Lease at 6 s').to.deep.equal([
      'started@6000',
    ]);
    expect(mem.lease?.spec).to.deep.include({ holderIdentity: 'b', leaseTransitions: 1 });
  });

  it('a standby that watches the Lease takes a released one at once, not at its next try', async () => {
    const a = start('a', undefined, { watch: true });
    await clock.advance(0);
    const b = start('b', undefined, { watch: true });
    await clock.advance(5_000);
    expect(b.log, 'b stands by: the Lease is renewed every 2 s, never released').to.deep.equal([]);
    a.abort.abort();
    await a.run;
    await clock.advance(0);
    expect(b.log, 'b leads at 5 s, when a released the Lease (its next try was at 6 s)').to.deep.equal([
      'started@5000',
    ]);
    expect(mem.lease?.spec).to.deep.include({ holderIdentity: 'b', leaseTransitions: 1 });
  });

  it('a Lease that expires changes nothing a watch would see: the watching standby still waits it out', async () => {
    mem.lease = {
      metadata: { name: 'pacer-controller', namespace: 'pacer-system', resourceVersion: '1' },
      spec: { holderIdentity: 'gone', leaseDurationSeconds: 15, leaseTransitions: 3 },
    };
    const b = start('b', undefined, { watch: true });
    await clock.advance(14_000);
    expect(b.log).to.deep.equal([]);
    await clock.advance(2_000);
    expect(b.log, 'taken at its first try after 15 s without a change').to.deep.equal(['started@16000']);
  });

  it('a watch that fails is said once; the standby then takes a released Lease at its next try', async () => {
    mem.watchError = new KubeError('Forbidden', 'leases.coordination.k8s.io "pacer-controller" is forbidden', {
      code: 403,
    });
    const a = start('a');
    await clock.advance(0);
    const b = start('b', undefined, { watch: true });
    await clock.advance(5_000);
    a.abort.abort();
    await a.run;
    await clock.advance(2_000);
    expect(b.log).to.deep.equal(['started@6000']);
    expect(mem.watches, 'asked again a lease duration (15 s) after it failed, not at every retry').to.equal(1);
    expect(b.errors, 'said once, not at each of its 2 s retries').to.deep.equal([
      'cannot watch lease pacer-system/pacer-controller (a released Lease is then taken at the next try): leases.coordination.k8s.io "pacer-controller" is forbidden',
    ]);
  });

  it('the acquire loop waits retry period plus up to 1.2 × retry period of jitter', async () => {
    mem.lease = {
      metadata: { name: 'pacer-controller', namespace: 'pacer-system', resourceVersion: '1' },
      spec: { holderIdentity: 'x', leaseDurationSeconds: 15 },
    };
    mem.rv = 1;
    const reads: number[] = [];
    const store = mem.store('b');
    const counting: LeaseStore = {
      ...store,
      get: (s) => {
        reads.push(clock.now() - T0);
        return store.get(s);
      },
    };
    const e = new LeaderElector({
      store: counting,
      identity: 'b',
      clock,
      random: () => 1,
      onStartedLeading: () => undefined,
      onStoppedLeading: () => undefined,
    });
    const ac = new AbortController();
    const run = e.run(ac.signal);
    await clock.advance(10_000);
    ac.abort();
    await run;
    expect(reads).to.deep.equal([0, 4400, 8800]);
  });

  it('two candidates racing for an expired Lease: the resourceVersion lets exactly one win', async () => {
    mem.lease = {
      metadata: { name: 'pacer-controller', namespace: 'pacer-system', resourceVersion: '1' },
      spec: { holderIdentity: '', leaseDurationSeconds: 1 },
    };
    mem.rv = 1;
    const a = start('a');
    const b = start('b');
    await clock.advance(0);
    const leaders = [a, b].filter((c) => c.log.length > 0).map((c) => c.elector.identity);
    expect(leaders).to.have.length(1);
    expect(mem.lease.spec?.holderIdentity).to.equal(leaders[0]);
    await clock.advance(30_000);
    expect([a, b].filter((c) => c.elector.isLeader())).to.have.length(1);
  });

  describe('durations are checked as client-go does', () => {
    const rows: Array<[number, number, number, string | undefined]> = [
      [15_000, 10_000, 2_000, undefined],
      [10_000, 10_000, 2_000, 'the lease duration (10s) must be greater than the renew deadline (10s)'],
      [15_000, 2_000, 2_000, 'the renew deadline (2s) must be greater than 1.2 × the retry period (2s)'],
      [15_000, 10_000, 0, 'the retry period must be positive'],
    ];
    for (const [lease, renew, retry, want] of rows) {
      it(`lease ${lease} ms, renew ${renew} ms, retry ${retry} ms → ${want ?? 'ok'}`, () => {
        expect(checkDurations(lease, renew, retry)).to.equal(want);
      });
    }
  });
});

describe('leader election: a campaign that cannot succeed, in words with the fix', () => {
  const rows: Array<[string, KubeError | undefined, string | undefined]> = [
    [
      "the Lease's namespace does not exist",
      new KubeError('NotFound', 'create lease ops/pacer-controller: namespaces "ops" not found', { code: 404 }),
      'cannot campaign for leadership: the Lease\'s namespace "ops" does not exist (create lease ops/pacer-controller: namespaces "ops" not found); no reconcile runs until it does: kubectl create namespace ops, or --leader-election-namespace=<an existing namespace>',
    ],
    [
      'RBAC refuses',
      new KubeError(
        'Forbidden',
        'create lease ops/pacer-controller: leases.coordination.k8s.io is forbidden: User "system:serviceaccount:ops:pacer" cannot create resource "leases"',
        { code: 403 },
      ),
      'cannot campaign for leadership: create lease ops/pacer-controller: leases.coordination.k8s.io is forbidden: User "system:serviceaccount:ops:pacer" cannot create resource "leases"; no reconcile runs until the controller may get, create and update leases.coordination.k8s.io in ops',
    ],
    [
      'a conflict passes by itself',
      new KubeError('Conflict', 'update lease ops/x: conflict', { code: 409 }),
      undefined,
    ],
    ['an API server that does not answer', new KubeError('Unreachable', 'get lease ops/x: dial tcp ...'), undefined],
    ['no failure', undefined, undefined],
  ];
  for (const [name, err, want] of rows) {
    it(name, () => {
      expect(campaignProblem(err, 'ops')).to.equal(want);
    });
  }
});
