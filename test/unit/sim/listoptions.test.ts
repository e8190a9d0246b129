// List and watch query parameters as the real API server reads them (src/sim/listoptions.ts).

import { expect } from 'chai';
import { queryBool, readListOptions } from '../../../src/sim/listoptions.ts';
import { ApiError } from '../../../src/sim/types.ts';

describe('sim/listoptions: a boolean query parameter', () => {
  // apimachinery's Convert_Slice_string_To_bool: only absence, "0" and "false" in any case are false.
  const rows: Array<[string | null, boolean]> = [
    [null, false],
    ['0', false],
    ['false', false],
    ['False', false],
    ['FALSE', false],
    ['1', true],
    ['true', true],
    ['True', true],
    ['t', true],
    ['yes', true],
    ['', true],
  ];
  for (const [v, want] of rows) {
    it(`${v === null ? 'absent' : JSON.stringify(v)} is ${want}`, () => expect(queryBool(v)).to.equal(want));
  }
});

describe('sim/listoptions: watch and list options', () => {
  const read = (query: string) => readListOptions(new URLSearchParams(query));
  const rows: Array<[string, Record<string, unknown>]> = [
    // The legacy watch from "now" or from "any" gets the initial state (WatchList on, 1.34+).
    ['watch=true', { watch: true, resourceVersion: '', sendInitialEvents: true, allowWatchBookmarks: false }],
    [
      'watch=True&resourceVersion=0&allowWatchBookmarks=true',
      { watch: true, resourceVersion: '0', sendInitialEvents: true, allowWatchBookmarks: true },
    ],
    // From a resourceVersion: the changes after it only.
    [
      'watch=1&resourceVersion=42',
      { watch: true, resourceVersion: '42', sendInitialEvents: false, allowWatchBookmarks: false },
    ],
    // client-go's watch-list request (a reflector, kubectl wait).
    [
      'watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true',
      { watch: true, resourceVersion: '', sendInitialEvents: true, allowWatchBookmarks: true },
    ],
    [
      'watch=true&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&resourceVersion=7',
      { watch: true, resourceVersion: '7', sendInitialEvents: false, allowWatchBookmarks: false },
    ],
    [
      'resourceVersion=7&resourceVersionMatch=Exact',
      { watch: false, resourceVersion: '7', allowWatchBookmarks: false },
    ],
    ['', { watch: false, resourceVersion: '', allowWatchBookmarks: false }],
  ];
  for (const [query, want] of rows) {
    it(`?${query}`, () => expect(read(query)).to.deep.equal(want));
  }

  const invalid: Array<[string, string]> = [
    [
      'watch=true&sendInitialEvents=true',
      'resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
    ],
    [
      'watch=true&resourceVersionMatch=NotOlderThan',
      'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
    ],
    [
      'watch=true&sendInitialEvents=true&resourceVersionMatch=Exact',
      '[resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]',
    ],
    [
      'resourceVersionMatch=Exact',
      'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
    ],
    [
      'resourceVersion=0&resourceVersionMatch=Exact',
      'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
    ],
    [
      'resourceVersion=3&resourceVersionMatch=Newest',
      'resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""',
    ],
    ['sendInitialEvents=true', 'sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list'],
  ];
  for (const [query, message] of invalid) {
    it(`?${query} is a 422 naming the option`, () => {
      let err: unknown;
      try {
        read(query);
      } catch (e) {
        err = e;
      }
      expect(err).to.be.instanceOf(ApiError);
      expect((err as ApiError).code).to.equal(422);
      expect((err as ApiError).message).to.equal(`ListOptions.meta.k8s.io "" is invalid: ${message}`);
    });
  }
});
