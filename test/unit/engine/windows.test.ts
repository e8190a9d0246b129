// Maintenance windows (src/engine/windows.ts, docs/semantics/windows.md): open or not at an instant,
// when the current window closes and the next opens. Each row reads like the docs' examples: a
// window written in local time, an instant in UTC, and what the engine says. The daylight-saving
// rows use Europe/Berlin (CET +01:00 / CEST +02:00; in 2026 the clock springs from 02:00 to 03:00 on
// Sunday 29 March and falls back from 03:00 to 02:00 on Sunday 25 October) and America/New_York
// (8 March and 1 November 2026), read as a CronJob's schedule is: a start the clock springs past
// does not occur; a start the clock reads twice occurs twice.

import { expect } from 'chai';
import type { WindowsSpec } from '../../../src/api/windows.ts';
import { instantsAt, startOfDay, wallTime } from '../../../src/api/timezone.ts';
import { outsideWindowInWords, untilWindowChange, windowState } from '../../../src/engine/windows.ts';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | undefined) =>
  ms === undefined ? undefined : new Date(ms).toISOString().replace('.000Z', 'Z');

const weeknights: WindowsSpec = {
  windows: [{ days: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'], start: '22:00', duration: '2h', timeZone: 'Europe/Berlin' }],
};
const sundayBerlin = (start: string, duration: string): WindowsSpec => ({
  windows: [{ days: ['Sun'], start, duration, timeZone: 'Europe/Berlin' }],
});

describe('engine/windows: is a window open, when does it close, when does the next open', () => {
  const rows: Array<{ what: string; spec: WindowsSpec; now: string; open: boolean; closes?: string; opens?: string }> =
    [
      {
        what: 'weeknights 22:00 Berlin (CET in winter): Friday 27 Nov 2026 at noon UTC, closed; it opens at 21:00 UTC',
        spec: weeknights,
        now: '2026-11-27T12:00:00Z',
        open: false,
        opens: '2026-11-27T21:00:00Z',
      },
      {
        what: 'the same window at 22:30 Berlin: open until 00:00 Berlin (23:00 UTC), next Monday 22:00',
        spec: weeknights,
        now: '2026-11-27T21:30:00Z',
        open: true,
        closes: '2026-11-27T23:00:00Z',
        opens: '2026-11-30T21:00:00Z',
      },
      {
        what: 'a window is closed at its end exactly: Friday 22:00 + 2h ends at 00:00 Saturday Berlin (23:00 UTC)',
        spec: weeknights,
        now: '2026-11-27T23:00:00Z',
        open: false,
        opens: '2026-11-30T21:00:00Z',
      },
      {
        what: 'in summer (CEST) the same local start is an hour earlier in UTC',
        spec: weeknights,
        now: '2026-07-01T12:00:00Z',
        open: false,
        opens: '2026-07-01T20:00:00Z',
      },
      {
        what: 'the time zone defaults to UTC; days default to every day',
        spec: { windows: [{ start: '03:00', duration: '30m' }] },
        now: '2026-11-27T03:10:00Z',
        open: true,
        closes: '2026-11-27T03:30:00Z',
        opens: '2026-11-28T03:00:00Z',
      },
      {
        what: 'a window opens at its start exactly and is closed at its end exactly',
        spec: { windows: [{ start: '03:00', duration: '30m' }] },
        now: '2026-11-27T03:00:00Z',
        open: true,
        closes: '2026-11-27T03:30:00Z',
        opens: '2026-11-28T03:00:00Z',
      },
      {
        what: 'two windows that overlap count as one',
        spec: {
          windows: [
            { days: ['Sat'], start: '01:00', duration: '2h' },
            { days: ['Sat'], start: '02:00', duration: '2h' },
          ],
        },
        now: '2026-11-28T01:30:00Z',
        open: true,
        closes: '2026-11-28T04:00:00Z',
        opens: '2026-12-05T01:00:00Z',
      },
      {
        what: 'DST, spring forward: Sunday 02:30 Berlin does not exist on 29 Mar 2026, so that window does not open; the next is 5 Apr 02:30 CEST',
        spec: sundayBerlin('02:30', '2h'),
        now: '2026-03-28T12:00:00Z',
        open: false,
        opens: '2026-04-05T00:30:00Z',
      },
      {
        what: 'DST, spring forward: a start just after the gap (03:00) opens as usual, at 03:00 CEST',
        spec: sundayBerlin('03:00', '1h'),
        now: '2026-03-28T12:00:00Z',
        open: false,
        opens: '2026-03-29T01:00:00Z',
      },
      {
        what: 'DST, spring forward: a window of 2h from 01:30 CET runs 2 hours of elapsed time, to 04:30 CEST',
        spec: sundayBerlin('01:30', '2h'),
        now: '2026-03-29T02:00:00Z',
        open: true,
        closes: '2026-03-29T02:30:00Z',
        opens: '2026-04-04T23:30:00Z',
      },
      {
        what: 'DST, fall back: Sunday 02:30 Berlin occurs twice on 25 Oct 2026 (00:30 and 01:30 UTC): a 30m window opens twice',
        spec: sundayBerlin('02:30', '30m'),
        now: '2026-10-25T00:45:00Z',
        open: true,
        closes: '2026-10-25T01:00:00Z',
        opens: '2026-10-25T01:30:00Z',
      },
      {
        what: 'DST, fall back: between the two 02:30s the 30m window is closed, and opens again at the second',
        spec: sundayBerlin('02:30', '30m'),
        now: '2026-10-25T01:10:00Z',
        open: false,
        opens: '2026-10-25T01:30:00Z',
      },
      {
        what: 'DST, fall back: a 2h window opened at both 02:30s is one run, from the first to 2h after the second',
        spec: sundayBerlin('02:30', '2h'),
        now: '2026-10-25T01:00:00Z',
        open: true,
        closes: '2026-10-25T03:30:00Z',
        opens: '2026-11-01T01:30:00Z',
      },
      {
        what: 'DST, New York: Sunday 02:15 does not exist on 8 Mar 2026; the next Sunday it is 02:15 EDT',
        spec: { windows: [{ days: ['Sun'], start: '02:15', duration: '1h', timeZone: 'America/New_York' }] },
        now: '2026-03-07T12:00:00Z',
        open: false,
        opens: '2026-03-15T06:15:00Z',
      },
      {
        what: 'DST, New York: 01:30 occurs twice on 1 Nov 2026 (EDT 05:30 UTC, then EST 06:30 UTC)',
        spec: { windows: [{ days: ['Sun'], start: '01:30', duration: '15m', timeZone: 'America/New_York' }] },
        now: '2026-11-01T05:50:00Z',
        open: false,
        opens: '2026-11-01T06:30:00Z',
      },
      {
        what: 'a blackout blocks inside a window: Christmas Eve (a Thursday) is blocked whole, in Berlin',
        spec: {
          ...weeknights,
          blackouts: [{ start: '2026-12-24', end: '2026-12-24', timeZone: 'Europe/Berlin', reason: 'Christmas' }],
        },
        now: '2026-12-24T21:30:00Z',
        open: false,
        opens: '2026-12-25T21:00:00Z',
      },
      {
        what: 'a blackout that ends inside a window lets the rest of the window open',
        spec: { ...weeknights, blackouts: [{ start: '2026-12-01T00:00:00Z', end: '2026-12-01T21:30:00Z' }] },
        now: '2026-12-01T12:00:00Z',
        open: false,
        opens: '2026-12-01T21:30:00Z',
      },
      {
        what: 'blackouts alone: always open but while one holds',
        spec: { blackouts: [{ start: '2026-12-24T00:00:00+01:00', end: '2026-12-27T00:00:00+01:00' }] },
        now: '2026-12-20T00:00:00Z',
        open: true,
        closes: '2026-12-23T23:00:00Z',
        opens: '2026-12-26T23:00:00Z',
      },
      {
        what: 'a blackout of two months: the next window is found beyond it',
        spec: { ...weeknights, blackouts: [{ start: '2026-12-01', end: '2027-01-31' }] },
        now: '2026-12-02T12:00:00Z',
        open: false,
        opens: '2027-02-01T21:00:00Z',
      },
    ];
  for (const r of rows) {
    it(r.what, () => {
      const s = windowState(r.spec, at(r.now));
      expect({ open: s.open, closes: iso(s.closesAt), opens: iso(s.opensAt) }).to.deep.equal({
        open: r.open,
        closes: r.closes,
        opens: r.opens,
      });
    });
  }

  it('says why and when in words, the time in RFC 3339; a blackout is named with its reason', () => {
    const spec: WindowsSpec = {
      ...weeknights,
      blackouts: [{ start: '2026-12-24', end: '2026-12-24', timeZone: 'Europe/Berlin', reason: 'Christmas' }],
    };
    expect(outsideWindowInWords(spec, windowState(spec, at('2026-12-24T21:30:00Z')))).to.equal(
      'blackout 2026-12-24 to 2026-12-24 (Christmas): the next window opens at 2026-12-25T21:00:00Z',
    );
    expect(outsideWindowInWords(weeknights, windowState(weeknights, at('2026-11-27T12:00:00Z')))).to.equal(
      'outside its maintenance windows: the next window opens at 2026-11-27T21:00:00Z',
    );
  });

  it('a blackout past the horizon: no window opens, said so', () => {
    const spec: WindowsSpec = { ...weeknights, blackouts: [{ start: '2026-01-01', end: '2030-01-01' }] };
    const s = windowState(spec, at('2026-06-01T00:00:00Z'));
    expect(s).to.deep.equal({ open: false, blackout: 0 });
    expect(outsideWindowInWords(spec, s)).to.equal(
      'blackout 2026-01-01 to 2030-01-01: no window opens within the next 400 days',
    );
  });

  it('the time until the next change: the opening while closed, the closing while open', () => {
    const now = at('2026-11-27T12:00:00Z');
    expect(untilWindowChange(windowState(weeknights, now), now)).to.equal(9 * 3_600_000);
    const inside = at('2026-11-27T22:30:00Z');
    expect(untilWindowChange(windowState(weeknights, inside), inside)).to.equal(30 * 60_000);
  });
});

describe('api/timezone: wall clock and instants in a zone, through Intl', () => {
  const rows: Array<{ what: string; zone: string; local: [number, number, number, number, number]; utc: string[] }> = [
    {
      what: 'an ordinary winter day in Berlin',
      zone: 'Europe/Berlin',
      local: [2026, 1, 15, 9, 0],
      utc: ['2026-01-15T08:00:00Z'],
    },
    { what: 'in the spring-forward gap: none', zone: 'Europe/Berlin', local: [2026, 3, 29, 2, 30], utc: [] },
    {
      what: 'in the fall-back overlap: two',
      zone: 'Europe/Berlin',
      local: [2026, 10, 25, 2, 30],
      utc: ['2026-10-25T00:30:00Z', '2026-10-25T01:30:00Z'],
    },
    {
      what: 'a zone with a half-hour offset (Asia/Kolkata, +05:30)',
      zone: 'Asia/Kolkata',
      local: [2026, 6, 1, 0, 0],
      utc: ['2026-05-31T18:30:00Z'],
    },
    { what: 'UTC', zone: 'UTC', local: [2026, 12, 31, 23, 59], utc: ['2026-12-31T23:59:00Z'] },
  ];
  for (const r of rows)
    it(r.what, () => {
      expect(instantsAt(r.zone, ...r.local).map(iso)).to.deep.equal(r.utc);
    });

  it('the wall time of an instant, with its weekday (0 Sunday)', () => {
    expect(wallTime(at('2026-10-25T01:30:00Z'), 'Europe/Berlin')).to.deep.equal({
      year: 2026,
      month: 10,
      day: 25,
      hour: 2,
      minute: 30,
      second: 0,
      weekday: 0,
    });
  });

  it('a day whose midnight falls in a gap starts when the clock springs (America/Santiago, 6 Sep 2026: 00:00 → 01:00)', () => {
    const start = startOfDay('America/Santiago', 2026, 9, 6);
    expect(wallTime(start, 'America/Santiago')).to.include({ day: 6, hour: 1, minute: 0 });
    expect(iso(start)).to.equal('2026-09-06T04:00:00Z');
  });
});
