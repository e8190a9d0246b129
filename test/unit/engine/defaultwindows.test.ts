// The cluster's default maintenance windows (docs/semantics/windows.md#the-clusters-default): the
// ConfigMap pacer-maintenance-windows read (its keys `windows` and `blackouts`, each a list in the
// shape of the spec field), combined with a NodeRoll's own spec (its windows replace the default's,
// blackouts add up) and asked at an instant given to it (the clock injected). The rows use the
// examples of the page: weekend nights in Berlin, Christmas, a daylight-saving change.

import { expect } from 'chai';
import type { WindowsSpec } from '../../../src/api/windows.ts';
import { closedInWords, defaultWindowsOf, effectiveWindows } from '../../../src/engine/defaultwindows.ts';
import type { WindowsConfigMap } from '../../../src/engine/defaultwindows.ts';
import { hasWindows, windowState } from '../../../src/engine/windows.ts';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString().replace('.000', ''));
const SOURCE = 'configmap pacer-system/pacer-maintenance-windows';

const configMap = (data: Record<string, string>): WindowsConfigMap => ({
  metadata: { name: 'pacer-maintenance-windows', namespace: 'pacer-system' },
  data,
});

/** Saturday and Sunday from 02:00 Berlin time for four hours; Christmas (Berlin dates) blocked. */
const WEEKENDS = configMap({
  windows: ['- days: [Sat, Sun]', '  start: "02:00"', '  duration: 4h', '  timeZone: Europe/Berlin'].join('\n'),
  blackouts: ['- start: "2026-12-24"', '  end: "2026-12-26"', '  timeZone: Europe/Berlin', '  reason: Christmas'].join(
    '\n',
  ),
});

const DAILY_TEN_UTC: WindowsSpec = { windows: [{ start: '10:00', duration: '1h' }] };

interface Row {
  name: string;
  own: WindowsSpec;
  cm?: WindowsConfigMap;
  now: string;
  want: { open: boolean; closesAt?: string; opensAt?: string; words?: string } | 'always open';
}

const rows: Row[] = [
  {
    name: 'a roll without windows takes the default: open on a Saturday night in Berlin',
    own: {},
    cm: WEEKENDS,
    now: '2026-11-28T01:30:00Z', // Sat 02:30 CET
    want: { open: true, closesAt: '2026-11-28T05:00:00Z', opensAt: '2026-11-29T01:00:00Z' },
  },
  {
    name: 'a roll without windows takes the default: closed on a Friday, the words name the ConfigMap',
    own: {},
    cm: WEEKENDS,
    now: '2026-11-27T12:00:00Z',
    want: {
      open: false,
      opensAt: '2026-11-28T01:00:00Z',
      words: `outside the cluster's default maintenance windows (${SOURCE}): the next window opens at 2026-11-28T01:00:00Z`,
    },
  },
  {
    name: "a roll's own windows replace the default's: open on a Friday at 10:30 UTC",
    own: DAILY_TEN_UTC,
    cm: WEEKENDS,
    now: '2026-11-27T10:30:00Z',
    want: { open: true, closesAt: '2026-11-27T11:00:00Z', opensAt: '2026-11-28T10:00:00Z' },
  },
  {
    name: "a roll's own windows replace the default's: closed on a Saturday night in Berlin",
    own: DAILY_TEN_UTC,
    cm: WEEKENDS,
    now: '2026-11-28T01:30:00Z',
    want: {
      open: false,
      opensAt: '2026-11-28T10:00:00Z',
      words: 'outside its maintenance windows: the next window opens at 2026-11-28T10:00:00Z',
    },
  },
  {
    name: "the default's blackout holds a roll with windows of its own (blackouts add up)",
    own: DAILY_TEN_UTC,
    cm: WEEKENDS,
    now: '2026-12-24T10:30:00Z',
    want: {
      open: false,
      opensAt: '2026-12-27T10:00:00Z', // Christmas ends at 27 Dec 00:00 Berlin time
      words: `blackout 2026-12-24 to 2026-12-26 (Christmas) of the cluster's default (${SOURCE}): the next window opens at 2026-12-27T10:00:00Z`,
    },
  },
  {
    name: "a roll's own blackout with the default's windows (it names no windows of its own)",
    own: { blackouts: [{ start: '2026-11-28', end: '2026-11-28', reason: 'release day' }] },
    cm: WEEKENDS,
    now: '2026-11-28T01:30:00Z',
    want: {
      open: false,
      opensAt: '2026-11-29T01:00:00Z',
      words: 'blackout 2026-11-28 to 2026-11-28 (release day): the next window opens at 2026-11-29T01:00:00Z',
    },
  },
  {
    name: 'spring forward: the Sunday 02:00 Berlin start falls in the gap (29 March), so the next is Saturday 4 April',
    own: {},
    cm: WEEKENDS,
    now: '2026-03-28T12:00:00Z',
    want: {
      open: false,
      opensAt: '2026-04-04T00:00:00Z',
      words: `outside the cluster's default maintenance windows (${SOURCE}): the next window opens at 2026-04-04T00:00:00Z`,
    },
  },
  {
    name: 'fall back: 02:00 Berlin occurs twice on 25 October, the two runs are one, 00:00 to 05:00 UTC',
    own: {},
    cm: WEEKENDS,
    now: '2026-10-25T04:30:00Z',
    want: { open: true, closesAt: '2026-10-25T05:00:00Z', opensAt: '2026-10-31T01:00:00Z' },
  },
  {
    name: 'no ConfigMap and no windows of its own: nothing applies',
    own: {},
    now: '2026-11-27T12:00:00Z',
    want: 'always open',
  },
  {
    name: 'an empty ConfigMap is no default',
    own: {},
    cm: configMap({}),
    now: '2026-11-27T12:00:00Z',
    want: 'always open',
  },
];

describe("the cluster's default maintenance windows with a roll's own", () => {
  for (const r of rows)
    it(r.name, () => {
      const eff = effectiveWindows(r.own, defaultWindowsOf(r.cm));
      expect(eff.invalid).to.equal(undefined);
      if (r.want === 'always open') {
        expect(hasWindows(eff.spec)).to.equal(false);
        return;
      }
      const now = at(r.now);
      const state = windowState(eff.spec, now);
      expect({
        open: state.open,
        ...(state.closesAt !== undefined ? { closesAt: iso(state.closesAt) } : {}),
        ...(state.opensAt !== undefined ? { opensAt: iso(state.opensAt) } : {}),
        ...(state.open ? {} : { words: closedInWords(eff, state) }),
      }).to.deep.equal(r.want);
    });
});

describe('an invalid default: every problem with its data key, path and value', () => {
  const invalid: Array<[string, Record<string, string>, string[]]> = [
    [
      'a start that is no time of day',
      { windows: '- start: "25:00"\n  duration: 1h' },
      [
        'data.windows[0].start: Invalid value: "25:00": must be a time of day as HH:MM on a 24-hour clock, from 00:00 to 23:59',
      ],
    ],
    [
      'an unknown zone and a duration of no unit',
      { windows: '- start: "22:00"\n  duration: "2 hours"\n  timeZone: Europe/Atlantis' },
      [
        'data.windows[0].duration: Invalid value: "2 hours": time: unknown unit " hours" in duration "2 hours"',
        'data.windows[0].timeZone: Invalid value: "Europe/Atlantis": unknown time zone: must be a name of the IANA time zone database, such as "Europe/Berlin" or "UTC"',
      ],
    ],
    [
      'a mapping where a list belongs',
      { windows: 'start: "22:00"\nduration: 4h' },
      [
        'data.windows: Invalid value: "start: \\"22:00\\"\\nduration: 4h": must be a list of windows (days, start, duration, timeZone), as spec.windows is, not a mapping',
      ],
    ],
    [
      'a key of another name (a typo is not ignored)',
      { window: '- start: "22:00"\n  duration: 4h' },
      ['data.window: Unsupported value: "window": supported keys: "windows", "blackouts"'],
    ],
    [
      "a blackout's end before its start",
      { blackouts: '- start: "2026-12-26"\n  end: "2026-12-24"' },
      ['data.blackouts[0].end: Invalid value: "2026-12-24": must be after start (2026-12-26)'],
    ],
  ];
  for (const [name, data, errors] of invalid)
    it(name, () => {
      const d = defaultWindowsOf(configMap(data));
      expect(d?.errors).to.deep.equal(errors);
      // It holds a roll with windows of its own too: nobody can tell what the operator meant.
      const eff = effectiveWindows(DAILY_TEN_UTC, d);
      expect(eff.invalid).to.equal(
        `the cluster's default maintenance windows (${SOURCE}) are invalid: ${errors.join('; ')}`,
      );
      expect(closedInWords(eff, { open: false })).to.equal(eff.invalid);
    });

  it('text that is not YAML names the key and the value given', () => {
    const d = defaultWindowsOf(configMap({ blackouts: '- start: [2026' }));
    expect(d?.errors).to.have.length(1);
    expect(d?.errors[0]).to.match(/^data\.blackouts: Invalid value: "- start: \[2026": must be YAML or JSON: /);
  });
});
