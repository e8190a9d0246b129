import { expect } from 'chai';
import { isEmptySelector, selectorMatches, selectorToString } from '../../../src/api/selector.ts';
import type { LabelSelector } from '../../../src/api/types.ts';

const labels = { app: 'web', tier: 'front' };

describe('api/selector: matching template and pod labels', () => {
  const rows: Array<{
    name: string;
    selector: LabelSelector | undefined;
    labels?: Record<string, string>;
    match: boolean;
  }> = [
    { name: 'no selector matches nothing', selector: undefined, labels, match: false },
    { name: 'an empty selector matches everything', selector: {}, labels, match: true },
    { name: 'matchLabels subset', selector: { matchLabels: { app: 'web' } }, labels, match: true },
    { name: 'matchLabels with another value', selector: { matchLabels: { app: 'api' } }, labels, match: false },
    { name: 'matchLabels key missing', selector: { matchLabels: { track: 'stable' } }, labels, match: false },
    {
      name: 'matchLabels against no labels',
      selector: { matchLabels: { app: 'web' } },
      labels: undefined,
      match: false,
    },
    {
      name: 'In listing the value',
      selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['back', 'front'] }] },
      labels,
      match: true,
    },
    {
      name: 'In without the value',
      selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['back'] }] },
      labels,
      match: false,
    },
    {
      name: 'In on a missing key',
      selector: { matchExpressions: [{ key: 'track', operator: 'In', values: ['x'] }] },
      labels,
      match: false,
    },
    {
      name: 'NotIn listing the value',
      selector: { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['front'] }] },
      labels,
      match: false,
    },
    {
      name: 'NotIn on a missing key',
      selector: { matchExpressions: [{ key: 'track', operator: 'NotIn', values: ['x'] }] },
      labels,
      match: true,
    },
    { name: 'Exists', selector: { matchExpressions: [{ key: 'app', operator: 'Exists' }] }, labels, match: true },
    {
      name: 'Exists on a missing key',
      selector: { matchExpressions: [{ key: 'track', operator: 'Exists' }] },
      labels,
      match: false,
    },
    {
      name: 'DoesNotExist',
      selector: { matchExpressions: [{ key: 'track', operator: 'DoesNotExist' }] },
      labels,
      match: true,
    },
    {
      name: 'DoesNotExist on a present key',
      selector: { matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] },
      labels,
      match: false,
    },
    {
      name: 'matchLabels and matchExpressions are ANDed',
      selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['back'] }] },
      labels,
      match: false,
    },
  ];
  for (const row of rows) {
    it(`${row.name} → ${row.match}`, () => expect(selectorMatches(row.selector, row.labels)).to.equal(row.match));
  }
});

describe('api/selector: emptiness', () => {
  const rows: Array<{ selector: LabelSelector | undefined; empty: boolean }> = [
    { selector: undefined, empty: true },
    { selector: {}, empty: true },
    { selector: { matchLabels: {}, matchExpressions: [] }, empty: true },
    { selector: { matchLabels: { app: 'web' } }, empty: false },
    { selector: { matchExpressions: [{ key: 'app', operator: 'Exists' }] }, empty: false },
  ];
  for (const { selector, empty } of rows) {
    it(`${JSON.stringify(selector)} → ${empty}`, () => expect(isEmptySelector(selector)).to.equal(empty));
  }
});

describe('api/selector: the string form of status.selector and ?labelSelector=', () => {
  const rows: Array<{ selector: LabelSelector | undefined; text: string }> = [
    { selector: undefined, text: '' },
    { selector: { matchLabels: { tier: 'front', app: 'web' } }, text: 'app=web,tier=front' },
    {
      selector: {
        matchLabels: { app: 'web' },
        matchExpressions: [
          { key: 'env', operator: 'In', values: ['prod', 'canary'] },
          { key: 'track', operator: 'NotIn', values: ['beta'] },
          { key: 'owner', operator: 'Exists' },
          { key: 'legacy', operator: 'DoesNotExist' },
        ],
      },
      text: 'app=web,env in (canary,prod),track notin (beta),owner,!legacy',
    },
  ];
  for (const { selector, text } of rows) {
    it(`${JSON.stringify(selector)} → "${text}"`, () => expect(selectorToString(selector)).to.equal(text));
  }
});
