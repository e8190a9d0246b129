import { expect } from 'chai';
import type { ReplicaSet } from '../../../../src/api/types.ts';
import {
  CHANGE_CAUSE_ANNOTATION,
  DESIRED_REPLICAS_ANNOTATION,
  LAST_APPLIED_CONFIG_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  ROLLBACK_TO_ANNOTATION,
  appendRevisionHistory,
  getNonNegativeInt32FromAnnotation,
  lastRevision,
  maxRevision,
  nextRevisionText,
  revisionOf,
  setNewReplicaSetAnnotations,
  skipCopyAnnotation,
} from '../../../../src/engine/kubernetes/annotations.ts';
import { deployment, replicaSet } from '../fixtures.ts';

function withAnnotations(a: Record<string, string>): ReplicaSet {
  const rs = replicaSet('web-a', { replicas: 1 });
  rs.metadata.annotations = a;
  return rs;
}

describe('engine/annotations', () => {
  describe('copy skip-list', () => {
    const rows: Array<[string, boolean]> = [
      [LAST_APPLIED_CONFIG_ANNOTATION, true],
      [REVISION_ANNOTATION, true],
      [REVISION_HISTORY_ANNOTATION, true],
      [DESIRED_REPLICAS_ANNOTATION, true],
      [MAX_REPLICAS_ANNOTATION, true],
      [ROLLBACK_TO_ANNOTATION, true],
      [CHANGE_CAUSE_ANNOTATION, false],
      ['example.com/team', false],
    ];
    for (const [key, skipped] of rows) {
      it(`${key} ${skipped ? 'is not' : 'is'} copied`, () => expect(skipCopyAnnotation(key)).to.equal(skipped));
    }
  });

  describe('revisions', () => {
    const rows: Array<[string, string | undefined, number | null]> = [
      ['missing counts as 0', undefined, 0],
      ['a number', '7', 7],
      ['int64-sized', '9007199254740991', 9007199254740991],
      ['unparseable is skipped', 'seven', null],
      ['beyond int64 is unparseable', '9223372036854775808', null],
      ['leading zeros, as strconv.ParseInt', '007', 7],
      ['a sign, as strconv.ParseInt', '+12', 12],
      ['a negative number', '-3', -3],
      ['empty is unparseable', '', null],
      ['digits then letters', '12a', null],
      ['16 digits (past the fast path)', '1234567890123456', 1234567890123456],
    ];
    for (const [name, v, want] of rows) {
      it(`${name}: ${String(v)} → ${String(want)}`, () => {
        expect(revisionOf(withAnnotations(v === undefined ? {} : { [REVISION_ANNOTATION]: v }))).to.equal(want);
      });
    }
    it('maxRevision takes the largest parseable revision, skipping bad ones', () => {
      const rss = ['1', 'x', '4', '2'].map((v) => withAnnotations({ [REVISION_ANNOTATION]: v }));
      expect(maxRevision(rss)).to.equal(4);
      expect(maxRevision([])).to.equal(0);
    });
    it("the next revision is the largest plus one, exact past 2^53 (upstream's int64; its e2e spec adopts a ReplicaSet of revision 3546343826724305832)", () => {
      const next = (...vs: string[]) => nextRevisionText(vs.map((v) => withAnnotations({ [REVISION_ANNOTATION]: v })));
      expect(next()).to.equal('1');
      expect(next('1', 'x', '4', '2')).to.equal('5');
      expect(next('3546343826724305832', '7')).to.equal('3546343826724305833');
      expect(next('+12', '007')).to.equal('13');
      expect(next('-3')).to.equal('1');
    });
    it('lastRevision is the second-highest', () => {
      const rss = ['1', '3', '2'].map((v) => withAnnotations({ [REVISION_ANNOTATION]: v }));
      expect(lastRevision(rss)).to.equal(2);
      expect(lastRevision([withAnnotations({ [REVISION_ANNOTATION]: '5' })])).to.equal(0);
    });
  });

  describe('getNonNegativeInt32FromAnnotation', () => {
    const rows: Array<[string | undefined, boolean, number, RegExp | undefined]> = [
      ['5', true, 5, undefined],
      ['0', true, 0, undefined],
      ['2147483647', true, 2147483647, undefined],
      ['-1', false, 0, /invalid syntax/],
      ['invalid', false, 0, /invalid syntax/],
      ['2147483648', false, 0, /out of range/],
      ['4294967296', false, 0, /out of range/],
      [undefined, false, 0, undefined],
    ];
    for (const [v, valid, value, error] of rows) {
      it(`${String(v)} → ${valid ? value : 'not valid'}`, () => {
        const got = getNonNegativeInt32FromAnnotation(
          withAnnotations(v === undefined ? {} : { [DESIRED_REPLICAS_ANNOTATION]: v }),
          DESIRED_REPLICAS_ANNOTATION,
        );
        expect(got.valid).to.equal(valid);
        expect(got.value).to.equal(value);
        if (error) expect(got.error).to.match(error);
        else expect(got.error).to.equal(undefined);
      });
    }
  });

  describe('revision history', () => {
    it('with a 5-char limit goes "11", "11,12", "12,13", "13,14"', () => {
      const seen: string[] = [];
      let h: string | undefined;
      for (const r of ['11', '12', '13', '14']) {
        h = appendRevisionHistory(h, r, 5);
        seen.push(h!);
      }
      expect(seen).to.deep.equal(['11', '11,12', '12,13', '13,14']);
    });
    it('stays within 2000 characters by dropping the oldest entries', () => {
      let h: string | undefined;
      for (let r = 1; r <= 1000; r++) h = appendRevisionHistory(h, String(r));
      expect(h!.length).to.be.at.most(2000);
      expect(h!.endsWith(',1000')).to.equal(true);
      expect(h!.split(',')[0]).to.not.equal('1');
    });
  });

  describe('setNewReplicaSetAnnotations', () => {
    it('on creation sets revision, desired and max replicas, and copies the change-cause only', () => {
      const d = deployment({
        annotations: {
          [CHANGE_CAUSE_ANNOTATION]: 'v2',
          [LAST_APPLIED_CONFIG_ANNOTATION]: '{}',
          [REVISION_ANNOTATION]: '9',
        },
      });
      const rs = withAnnotations({});
      expect(setNewReplicaSetAnnotations(d, rs, '3', false, 3, 4)).to.equal(true);
      expect(rs.metadata.annotations).to.deep.equal({
        [CHANGE_CAUSE_ANNOTATION]: 'v2',
        [REVISION_ANNOTATION]: '3',
        [DESIRED_REPLICAS_ANNOTATION]: '3',
        [MAX_REPLICAS_ANNOTATION]: '4',
      });
    });
    it('an existing RS getting a higher revision keeps the old one in its history (rollback)', () => {
      const rs = withAnnotations({ [REVISION_ANNOTATION]: '1' });
      const before = rs.metadata;
      expect(setNewReplicaSetAnnotations(deployment(), rs, '3', true, 3, 4)).to.equal(true);
      expect(rs.metadata.annotations![REVISION_ANNOTATION]).to.equal('3');
      expect(rs.metadata.annotations![REVISION_HISTORY_ANNOTATION]).to.equal('1');
      expect(rs.metadata.annotations![DESIRED_REPLICAS_ANNOTATION]).to.equal(undefined);
      expect(before.annotations).to.deep.equal({ [REVISION_ANNOTATION]: '1' }); // input not mutated
    });
    it('an RS already at or above the new revision is left alone', () => {
      const rs = withAnnotations({ [REVISION_ANNOTATION]: '5' });
      expect(setNewReplicaSetAnnotations(deployment(), rs, '3', true, 3, 4)).to.equal(false);
      expect(rs.metadata.annotations![REVISION_ANNOTATION]).to.equal('5');
    });
    it('a non-numeric revision on the RS means nothing is updated', () => {
      const rs = withAnnotations({ [REVISION_ANNOTATION]: 'abc' });
      expect(setNewReplicaSetAnnotations(deployment({ annotations: { a: 'b' } }), rs, '3', true, 3, 4)).to.equal(false);
    });
  });
});
