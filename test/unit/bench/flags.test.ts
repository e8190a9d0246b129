import { expect } from 'chai';
import { FlagError, given, readNumber, readString } from '../../../bench/flags.ts';

describe("bench/flags: the benches' --name value flags", () => {
  const rows: Array<[string, string[], Parameters<typeof readNumber>[3], number | string]> = [
    ['absent: the fallback', [], {}, 7],
    ['a value anywhere on the line', ['--other', '1', '--n', '12'], {}, 12],
    ['a fraction where any number goes', ['--n', '0.5'], {}, 0.5],
    [
      'a fraction where an integer is wanted',
      ['--n', '0.5'],
      { integer: true },
      '--n: expected an integer of at least 0, got "0.5"',
    ],
    ['below the minimum', ['--n', '0'], { integer: true, min: 1 }, '--n: expected an integer of at least 1, got "0"'],
    ['negative where 0 is the minimum', ['--n', '-3'], {}, '--n: expected a number of at least 0, got "-3"'],
    ['not a number', ['--n', 'ten'], {}, '--n: expected a number of at least 0, got "ten"'],
    ['an empty value', ['--n', ''], {}, '--n: expected a number of at least 0, got ""'],
    ['no value at the end', ['--n'], {}, '--n: expected a value'],
    ['another flag where the value goes', ['--n', '--m', '3'], {}, '--n: expected a value'],
    ['one of a few values', ['--n', '2'], { oneOf: [0, 1, 2] }, 2],
    ['not one of them', ['--n', '3'], { oneOf: [0, 1, 2] }, '--n: expected one of 0, 1, 2, got "3"'],
  ];
  for (const [name, argv, range, want] of rows) {
    it(`${name} → ${want}`, () => {
      const read = () => readNumber(argv, '--n', 7, range);
      if (typeof want === 'number') expect(read()).to.equal(want);
      else expect(read).to.throw(FlagError, want);
    });
  }
  it('a string flag: its value, undefined when absent; given() sees a flag without reading it', () => {
    expect(readString(['--dir', '/tmp/x'], '--dir')).to.equal('/tmp/x');
    expect(readString([], '--dir')).to.equal(undefined);
    expect(given(['--workers', '3'], '--workers')).to.equal(true);
    expect(given(['--worker', '3'], '--workers')).to.equal(false);
  });
});
