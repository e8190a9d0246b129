// src/api/conditions.ts: an analysis metric's successCondition and failureCondition, CEL over
// `result`. What is refused when the template is applied (conditionError), and what a measurement's
// result makes of a condition (evaluateCondition): true, false, or an error naming the condition.

import { expect } from 'chai';
import { conditionError, evaluateCondition } from '../../../src/api/conditions.ts';

describe('api/conditions: conditionError (checked at apply time)', () => {
  const rows: Array<[string, string | undefined]> = [
    ['result[0] >= 0.95', undefined],
    ['result < 0.05 && !isNaN(result)', undefined],
    ['size(result) > 0 && result.all(x, x < 0.05)', undefined],
    ['result.ok == true', undefined],
    ['result == "healthy"', undefined],
    ['isInf(result)', undefined],
    ['true', undefined],
    ['result >', 'Unexpected token: EOF'],
    ['(result[0] > 1', 'Expected RPAREN, got EOF'],
    ['errors > 1', 'Unknown variable: errors'],
    ['result + 1', 'must be a bool, not int'],
    ['"yes"', 'must be a bool, not string'],
    ['len(result) > 0', "found no matching overload for 'len(dyn)'"],
    ['', 'must not be empty'],
    ['   ', 'must not be empty'],
  ];
  for (const [expr, want] of rows) {
    it(`${JSON.stringify(expr)}: ${want ?? 'a condition'}`, () => expect(conditionError(expr)).to.equal(want));
  }

  it('the same expression gives the same answer twice (it is compiled once)', () => {
    expect(conditionError('result >')).to.equal(conditionError('result >'));
    expect(conditionError('result > 1')).to.equal(undefined);
  });
});

describe('api/conditions: evaluateCondition (each measurement)', () => {
  const rows: Array<[string, unknown, boolean]> = [
    ['result > 1', 2, true],
    ['result > 1', 1, false],
    ['result == 1', 1, true], // a whole number is a double; CEL compares it with the int 1
    ['result[0] >= 0.95', [0.97], true],
    ['result[0] >= 0.95', [0.5], false],
    ['result.all(x, x < 0.05)', [0.01, 0.02], true],
    ['result.exists(x, x > 0.2)', [0.01, 0.5], true],
    ['result.ok', { ok: true }, true],
    ['result.data.status == "green"', { data: { status: 'green' } }, true],
    ['result == "healthy"', 'healthy', true],
    ['result', true, true],
    // Prometheus answers NaN for 0/0: no comparison holds, isNaN tells it apart.
    ['result < 0.05', Number.NaN, false],
    ['result >= 0.05', Number.NaN, false],
    ['result == result', Number.NaN, false],
    ['isNaN(result)', Number.NaN, true],
    ['isNaN(result)', 0.1, false],
    ['isInf(result)', Number.POSITIVE_INFINITY, true],
    ['isInf(result)', Number.NEGATIVE_INFINITY, true],
    ['isInf(result)', 3, false],
  ];
  for (const [expr, result, want] of rows) {
    it(`${expr} with result ${JSON.stringify(result) ?? String(result)} (${String(result)}): ${want}`, () =>
      expect(evaluateCondition(expr, result)).to.equal(want));
  }

  const errors: Array<[string, unknown, string]> = [
    ['result', 1, 'condition "result" gave 1, not true or false'],
    ['result', 'true', 'condition "result" gave "true", not true or false'],
    ['result.ok', { ok: 'yes' }, 'condition "result.ok" gave "yes", not true or false'],
    ['result', null, 'condition "result" gave null, not true or false'],
    ['result > 1', 'high', 'condition "result > 1" could not be evaluated: no such overload: dyn<string> > int'],
    ['result.data.ok', {}, 'condition "result.data.ok" could not be evaluated: No such key: data'],
    ['result >', 1, 'invalid condition "result >": Unexpected token: EOF'],
    ['result + 1', 1, 'invalid condition "result + 1": must be a bool, not int'],
  ];
  for (const [expr, result, message] of errors) {
    it(`${expr} with result ${JSON.stringify(result)}: throws ${message}`, () =>
      expect(() => evaluateCondition(expr, result)).to.throw(Error, message));
  }

  it('the error names the whole condition, nothing else of the measurement', () => {
    expect(() => evaluateCondition('result[0] < 0.05', [])).to.throw(
      /^condition "result\[0\] < 0\.05" could not be evaluated: /,
    );
  });
});
