// Resource quantities as kube-controller-manager holds them after the API server stored their
// canonical text and the informer parsed it again. Each row is what k8s.io/apimachinery v0.36.4's
// resource.MustParse(MustParse(text).String()) gives (printed with go-spew, as the hash prints it).

import { expect } from 'chai';
import {
  QuantityError,
  canonicalQuantity,
  informerQuantity,
  parseGoQuantity,
} from '../../../../src/engine/kubernetes/goquantity.ts';

// text, canonical text, i.value, i.scale, s, Format (a small integer kept in an int64)
const INT64_ROWS: Array<[string, string, bigint, number, string, string]> = [
  ['100m', '100m', 100n, -3, '100m', 'DecimalSI'],
  ['1', '1', 1n, 0, '1', 'DecimalSI'],
  ['1Gi', '1Gi', 1073741824n, 0, '1Gi', 'BinarySI'],
  ['0.5', '500m', 500n, -3, '500m', 'DecimalSI'],
  ['500M', '500M', 500n, 6, '500M', 'DecimalSI'],
  ['1000m', '1', 1n, 0, '1', 'DecimalSI'],
  ['1.5Gi', '1536Mi', 1610612736n, 0, '', 'BinarySI'],
  ['512Mi', '512Mi', 536870912n, 0, '', 'BinarySI'],
  ['1e3', '1e3', 1n, 3, '1e3', 'DecimalExponent'],
  ['1000', '1k', 1n, 3, '1k', 'DecimalSI'],
  ['0', '0', 0n, 0, '0', 'DecimalSI'],
  ['0Gi', '0', 0n, 0, '0', 'DecimalSI'],
  ['2Ki', '2Ki', 2048n, 0, '2Ki', 'BinarySI'],
  ['1.0000000001', '1000000001n', 1000000001n, -9, '1000000001n', 'DecimalSI'],
  ['12e-1', '1200e-3', 1200n, -3, '1200e-3', 'DecimalExponent'],
  ['0.5Ki', '512', 512n, 0, '512', 'DecimalSI'],
  ['1023Ki', '1023Ki', 1047552n, 0, '1023Ki', 'BinarySI'],
  ['+1', '+1', 1n, 0, '+1', 'DecimalSI'],
  ['1E', '1E', 1n, 18, '1E', 'DecimalSI'],
  ['-1.5', '-1500m', -1500n, -3, '-1500m', 'DecimalSI'],
  // Past the largest decimal suffix Go prints no suffix at all (upstream's canonical text loses the exponent).
  ['100000000000000000000000', '100', 100n, 0, '100', 'DecimalSI'],
  ['1000E', '1', 1n, 0, '1', 'DecimalSI'],
];

// text, canonical text, inf.Dec unscaled, inf.Dec scale, Format (beyond an int64's reach)
const DEC_ROWS: Array<[string, string, bigint, number, string]> = [
  ['1Pi', '1Pi', 2n ** 50n * 10n ** 9n, 9, 'BinarySI'],
  ['12345678901234567890', '12345678901234567890', 12345678901234567890n * 10n ** 9n, 9, 'DecimalSI'],
];

describe('engine/goquantity: quantities as the controller holds them', () => {
  for (const [text, canonical, value, scale, s, format] of INT64_ROWS) {
    it(`"${text}" is stored as "${canonical}" and held as ${value}×10^${scale}, s "${s}", ${format}`, () => {
      expect(canonicalQuantity(parseGoQuantity(text))).to.equal(canonical);
      expect(informerQuantity(text)).to.deep.equal({ value, scale, dec: null, s, format });
    });
  }
  for (const [text, canonical, unscaled, scale, format] of DEC_ROWS) {
    it(`"${text}" is stored as "${canonical}" and held as an inf.Dec ${unscaled}×10^-${scale}, ${format}`, () => {
      expect(canonicalQuantity(parseGoQuantity(text))).to.equal(canonical);
      expect(informerQuantity(text)).to.deep.equal({ value: 0n, scale: 0, dec: { unscaled, scale }, s: '', format });
    });
  }

  it('takes a bare JSON number as its text', () => {
    expect(informerQuantity(2)).to.deep.equal(informerQuantity('2'));
    expect(informerQuantity(0.25)).to.deep.equal(informerQuantity('250m'));
  });

  for (const [text, why] of [
    ['', 'quantities must match'],
    ['abc', 'quantities must match'],
    ['1mm', "unable to parse quantity's suffix"],
    ['1Zi', 'quantities must match'],
    ['1.2.3', 'quantities must match'],
  ]) {
    it(`refuses ${JSON.stringify(text)}: ${why}`, () => {
      expect(() => parseGoQuantity(text))
        .to.throw(QuantityError)
        .with.property('message')
        .that.includes(JSON.stringify(text))
        .and.includes(why);
    });
  }
});
