import { expect } from 'chai';
import { rolloutOf, summarize } from '../../../bench/timeline.ts';
import type { Write } from '../../../bench/timeline.ts';

const CTRL = 'controller';
const RSC = 'replicaset-controller';

/** A write of `user` received at `at` ms and answered `took` ms later. */
function w(user: string, verb: string, resource: string, name: string, at: number, took = 10): Write {
  return { user, verb, resource, name, received: at, answered: at + took };
}

describe("bench/timeline: a rollout's rounds from the audit log", () => {
  // Deployment d-1 changed at 0: the controller creates the new ReplicaSet and scales the old one
  // down; the ReplicaSet controller makes pods and writes statuses; the controller reacts.
  const writes: Write[] = [
    w(CTRL, 'create', 'replicasets', 'd-1-new', 100),
    w(CTRL, 'update', 'replicasets', 'd-1-old', 200),
    w(CTRL, 'update', 'deployments/status', 'd-1', 300),
    w(RSC, 'create', 'pods', 'd-1-new-aaaaa', 400),
    w(RSC, 'update', 'replicasets/status', 'd-1-new', 500),
    w(RSC, 'delete', 'pods', 'd-1-old-bbbbb', 600),
    w(RSC, 'update', 'replicasets/status', 'd-1-old', 1000), // answered at 1010
    w(CTRL, 'update', 'replicasets', 'd-1-new', 1300), // the reaction: 290 ms after that status
    w(CTRL, 'update', 'deployments/status', 'd-1', 1400),
    // Another Deployment's writes, and one before the change, are not d-1's.
    w(CTRL, 'update', 'replicasets', 'd-10-new', 700),
    w(RSC, 'update', 'replicasets/status', 'd-10-new', 800),
    w(CTRL, 'update', 'replicasets', 'd-1-old', -50),
  ];

  it('splits each round at the last ReplicaSet status write before the next scale', () => {
    const r = rolloutOf('d-1', 0, writes, CTRL, RSC)!;
    expect(r.firstWriteMs).to.equal(100);
    expect(r.rounds.map((x) => [x.write.name, x.rsSideMs, x.reactionMs])).to.deep.equal([
      // create answered at 110; the next write (the old one's scale) came before any status: no split
      ['d-1-new', undefined, undefined],
      // scale answered at 210; last status answered at 1010 (800 ms); next write at 1300 (290 ms)
      ['d-1-old', 800, 290],
      // the last round: no next write
      ['d-1-new', undefined, undefined],
    ]);
    // The ReplicaSet controller's first write after the old one's scale (answered at 210) about it: the pod delete at 600.
    expect(r.rounds[1].rsStartMs).to.equal(390);
    expect(r.totalMs).to.equal(1400);
    expect(r.tailMs).to.equal(1400 - 1310);
    expect([r.rsStatusWrites, r.podWrites, r.ownWrites]).to.deep.equal([2, 2, 5]);
  });

  it('sums the rounds per rollout and spreads them per round', () => {
    const s = summarize([rolloutOf('d-1', 0, writes, CTRL, RSC)!]);
    expect([s.rollouts, s.rounds, s.rsSideMs, s.reactionMs, s.writeMs]).to.deep.equal([1, 3, 800, 290, 30]);
    expect(s.reaction).to.deep.equal([290, 290, 290]);
  });

  it('has no rollout for a Deployment the controller never wrote about', () => {
    expect(rolloutOf('d-2', 0, writes, CTRL, RSC)).to.equal(undefined);
  });
});
