// The leader election flags of `pacer controller`: Go durations as kube-controller-manager takes them,
// and where the Lease lives by default.

import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_LEADER_ELECTION_NAMESPACE, durationMs, leaderElectionNamespace } from '../../../src/cli/controller.ts';

describe('cli/controller: leader election flags', () => {
  const durations: Array<[string, number | undefined]> = [
    ['15s', 15_000],
    ['10s', 10_000],
    ['2s', 2_000],
    ['500ms', 500],
    ['1m30s', 90_000],
    ['1.5s', 1_500],
    ['1h', 3_600_000],
    ['15', undefined],
    ['s', undefined],
    ['-2s', undefined],
    ['2 s', undefined],
    ['fast', undefined],
    ['', undefined],
  ];
  for (const [text, ms] of durations) {
    it(`duration ${JSON.stringify(text)} → ${ms === undefined ? 'not a duration' : `${ms} ms`}`, () => {
      expect(durationMs(text)).to.equal(ms);
    });
  }

  describe('the Lease namespace', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'pacer-ns-'));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('the flag wins', () => {
      writeFileSync(join(dir, 'namespace'), 'from-pod\n');
      expect(leaderElectionNamespace('ops', join(dir, 'namespace'))).to.equal('ops');
    });
    it("in a cluster: the pod's own namespace (its ServiceAccount's namespace file)", () => {
      writeFileSync(join(dir, 'namespace'), 'from-pod\n');
      expect(leaderElectionNamespace(undefined, join(dir, 'namespace'))).to.equal('from-pod');
    });
    it('outside a cluster: pacer-system, where the install manifests put Pacer', () => {
      expect(leaderElectionNamespace(undefined, join(dir, 'missing'))).to.equal(DEFAULT_LEADER_ELECTION_NAMESPACE);
      expect(DEFAULT_LEADER_ELECTION_NAMESPACE).to.equal('pacer-system');
    });
  });
});
