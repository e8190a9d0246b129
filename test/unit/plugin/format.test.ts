import { expect } from 'chai';
import { formatRFC3339, humanDuration, parseGoDuration, tabwrite } from '../../../src/plugin/format.ts';

describe('plugin/format', () => {
  describe('tabwrite: Go tabwriter columns', () => {
    it('pads each column to its widest cell plus the padding; the last cell is never padded', () => {
      expect(tabwrite('REVISION\tCHANGE-CAUSE\n1\t<none>\n10\tv2\n', { padding: 2 })).to.equal(
        'REVISION  CHANGE-CAUSE\n1         <none>\n10        v2\n',
      );
    });
    it('minwidth applies to narrow columns (kubectl get: 6 and 3)', () => {
      expect(tabwrite('A\tB\tC\nx\ty\tz\n', { minwidth: 6, padding: 3 })).to.equal('A     B     C\nx     y     z\n');
    });
    it('a line without a tab ends the column block', () => {
      expect(tabwrite('a:\t1\nlonger:\t2\nplain\nb:\t3\n', { padding: 2 })).to.equal(
        'a:       1\nlonger:  2\nplain\nb:  3\n',
      );
    });
    it('counts glyphs as one column each', () => {
      expect(tabwrite('✔ ok\tx\nbad\ty\n', { padding: 1 })).to.equal('✔ ok x\nbad  y\n');
    });
    it('nested blocks: a cell in a later column only aligns with its neighbours', () => {
      expect(tabwrite('a\tb\tc\nlong\tb\nx\ty\tz\n', { padding: 1 })).to.equal('a    b c\nlong b\nx    y z\n');
    });
  });

  describe('humanDuration: kubectl ages', () => {
    const rows: Array<[number, string]> = [
      [-5000, '<invalid>'],
      [-1000, '0s'],
      [0, '0s'],
      [59_000, '59s'],
      [119_000, '119s'],
      [120_000, '2m'],
      [150_000, '2m30s'],
      [600_000, '10m'],
      [179 * 60_000, '179m'],
      [3 * 3600_000, '3h'],
      [(3 * 60 + 5) * 60_000, '3h5m'],
      [8 * 3600_000, '8h'],
      [47 * 3600_000, '47h'],
      [48 * 3600_000, '2d'],
      [(3 * 24 + 4) * 3600_000, '3d4h'],
      [10 * 24 * 3600_000, '10d'],
      [(2 * 365 + 3) * 24 * 3600_000, '2y3d'],
      [9 * 365 * 24 * 3600_000, '9y'],
    ];
    for (const [ms, want] of rows) it(`${ms} ms → ${want}`, () => expect(humanDuration(ms)).to.equal(want));
  });

  describe('parseGoDuration: --timeout values', () => {
    const ok: Array<[string, number]> = [
      ['0', 0],
      ['30s', 30_000],
      ['2m', 120_000],
      ['1h30m', 5_400_000],
      ['1.5s', 1500],
      ['.5s', 500],
      ['300ms', 300],
      ['-1m', -60_000],
      ['10us', 0.01],
    ];
    for (const [text, ms] of ok) it(`"${text}" = ${ms} ms`, () => expect(parseGoDuration(text)).to.equal(ms));
    const bad: Array<[string, string]> = [
      ['30', 'time: missing unit in duration "30"'],
      ['1d', 'time: unknown unit "d" in duration "1d"'],
      ['', 'time: invalid duration ""'],
      ['abc', 'time: invalid duration "abc"'],
      ['.s', 'time: invalid duration ".s"'],
    ];
    for (const [text, err] of bad) it(`"${text}" → ${err}`, () => expect(() => parseGoDuration(text)).to.throw(err));
  });

  describe('formatRFC3339: restartedAt', () => {
    const t = Date.parse('2025-03-01T10:04:05.678Z');
    it('UTC prints Z and whole seconds', () => expect(formatRFC3339(t, 0)).to.equal('2025-03-01T10:04:05Z'));
    it('a zone east of UTC', () => expect(formatRFC3339(t, 60)).to.equal('2025-03-01T11:04:05+01:00'));
    it('a zone west of UTC with minutes', () =>
      expect(formatRFC3339(t, -(3 * 60 + 30))).to.equal('2025-03-01T06:34:05-03:30'));
  });
});
