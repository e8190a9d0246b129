import { expect } from 'chai';
import { scaledValue } from '../../../src/api/intstr.ts';
import type { IntOrString } from '../../../src/api/types.ts';

describe('api/intstr: GetScaledValueFromIntOrPercent', () => {
  const rows: Array<{ v: IntOrString; total: number; up: number; down: number }> = [
    { v: '90%', total: 95, up: 86, down: 85 }, // upstream's example (docs/semantics/kubernetes-deployments.md)
    { v: '25%', total: 10, up: 3, down: 2 },
    { v: '39%', total: 10, up: 4, down: 3 },
    { v: '50%', total: 10, up: 5, down: 5 },
    { v: '0%', total: 10, up: 0, down: 0 },
    { v: '100%', total: 7, up: 7, down: 7 },
    { v: '200%', total: 3, up: 6, down: 6 },
    { v: '1%', total: 1, up: 1, down: 0 },
    { v: '25%', total: 0, up: 0, down: 0 },
    { v: 5, total: 3, up: 5, down: 5 }, // an int is neither scaled nor capped
    { v: 0, total: 10, up: 0, down: 0 },
  ];
  for (const { v, total, up, down } of rows) {
    it(`${JSON.stringify(v)} of ${total} → ${up} rounding up, ${down} rounding down`, () => {
      expect(scaledValue(v, total, true)).to.equal(up);
      expect(scaledValue(v, total, false)).to.equal(down);
    });
  }

  const errors: Array<{ v: string; message: string }> = [
    { v: '5', message: 'invalid value for IntOrString: invalid type: string is not a percentage' },
    {
      v: 'a%',
      message: 'invalid value for IntOrString: invalid value "a%": strconv.Atoi: parsing "a": invalid syntax',
    },
    { v: '%', message: 'invalid value for IntOrString: invalid value "%": strconv.Atoi: parsing "": invalid syntax' },
    {
      v: '40%%',
      message: 'invalid value for IntOrString: invalid value "40%%": strconv.Atoi: parsing "40%": invalid syntax',
    },
    {
      v: '#%',
      message: 'invalid value for IntOrString: invalid value "#%": strconv.Atoi: parsing "#": invalid syntax',
    },
  ];
  for (const { v, message } of errors) {
    it(`${JSON.stringify(v)} is an error: ${message}`, () => {
      expect(() => scaledValue(v, 10, true)).to.throw(message);
    });
  }
});
