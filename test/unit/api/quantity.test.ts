import { expect } from 'chai';
import { parseQuantity } from '../../../src/api/quantity.ts';

describe('api/quantity: resource quantities as numbers', () => {
  const rows: Array<[string | number | undefined, number | undefined]> = [
    ['2', 2],
    ['500m', 0.5],
    ['1.5', 1.5],
    ['.5', 0.5],
    ['100n', 100e-9],
    ['250u', 250e-6],
    ['16Gi', 16 * 2 ** 30],
    ['128Mi', 128 * 2 ** 20],
    ['1Ki', 1024],
    ['1k', 1000],
    ['2M', 2e6],
    ['1G', 1e9],
    ['1e3', 1000],
    ['12E-1', 1.2],
    ['110', 110],
    [4, 4],
    ['', undefined],
    ['abc', undefined],
    ['1Gb', undefined],
    ['1 Gi', undefined],
    [undefined, undefined],
  ];
  for (const [text, want] of rows) {
    it(`${JSON.stringify(text)} → ${want}`, () => {
      const got = parseQuantity(text);
      if (want === undefined) expect(got).to.equal(undefined);
      else expect(got).to.be.closeTo(want, Math.abs(want) * 1e-12);
    });
  }
});
