// spec.windows and spec.blackouts refused with the field path and the value given (the style of
// every spec validation here: apimachinery's "field: Invalid value: value: detail"), on a NodeRoll
// and on a Deployment alike.

import { expect } from 'chai';
import { formatFieldError, validateDeployment } from '../../../src/api/validation.ts';
import { validateNodeRoll } from '../../../src/api/noderoll.ts';
import type { WindowsSpec } from '../../../src/api/windows.ts';
import { validateWindows } from '../../../src/api/windows.ts';
import { deployment } from '../engine/fixtures.ts';

const errors = (spec: WindowsSpec) => validateWindows(spec).map(formatFieldError);
const nightly = { days: ['Mon', 'Tue'], start: '22:00', duration: '2h', timeZone: 'Europe/Berlin' };

describe('api: maintenance windows and blackouts, validated', () => {
  it('a complete spec is valid: days, a zone, a Go duration; blackouts as dates or RFC 3339', () => {
    expect(
      errors({
        windows: [
          nightly,
          { days: ['Sat', 'Sun'], start: '00:00', duration: '168h' },
          { start: '23:59', duration: '1m' },
        ],
        blackouts: [
          { start: '2026-12-24', end: '2026-12-26', timeZone: 'Europe/Berlin', reason: 'Christmas' },
          { start: '2026-12-31T18:00:00+01:00', end: '2027-01-01T06:00:00Z' },
        ],
      }),
    ).to.deep.equal([]);
  });

  const rows: Array<[string, WindowsSpec, string]> = [
    [
      'an unknown time zone',
      { windows: [{ ...nightly, timeZone: 'Europe/Atlantis' }] },
      'spec.windows[0].timeZone: Invalid value: "Europe/Atlantis": unknown time zone: must be a name of the IANA time zone database, such as "Europe/Berlin" or "UTC"',
    ],
    [
      'an offset is not a zone name',
      { windows: [{ ...nightly, timeZone: '+01:00' }] },
      'spec.windows[0].timeZone: Invalid value: "+01:00": unknown time zone: must be a name of the IANA time zone database, such as "Europe/Berlin" or "UTC"',
    ],
    [
      'a duration that is not one',
      { windows: [{ ...nightly, duration: '2 hours' }] },
      'spec.windows[0].duration: Invalid value: "2 hours": time: unknown unit " hours" in duration "2 hours"',
    ],
    [
      'a duration without a unit',
      { windows: [{ ...nightly, duration: '90' }] },
      'spec.windows[0].duration: Invalid value: "90": time: missing unit in duration "90"',
    ],
    [
      'a duration of 0',
      { windows: [{ ...nightly, duration: '0s' }] },
      'spec.windows[0].duration: Invalid value: "0s": must be greater than 0 and at most 168h (a week)',
    ],
    [
      'a duration longer than a week',
      { windows: [{ ...nightly, duration: '169h' }] },
      'spec.windows[0].duration: Invalid value: "169h": must be greater than 0 and at most 168h (a week)',
    ],
    [
      'a start like 25:00',
      { windows: [{ ...nightly, start: '25:00' }] },
      'spec.windows[0].start: Invalid value: "25:00": must be a time of day as HH:MM on a 24-hour clock, from 00:00 to 23:59',
    ],
    [
      'a start without its leading zero',
      { windows: [{ ...nightly, start: '9:00' }] },
      'spec.windows[0].start: Invalid value: "9:00": must be a time of day as HH:MM on a 24-hour clock, from 00:00 to 23:59',
    ],
    [
      'no start',
      { windows: [{ ...nightly, start: '' }] },
      'spec.windows[0].start: Required value: the local time the window opens, "HH:MM"',
    ],
    [
      'an unknown day',
      { windows: [nightly, { ...nightly, days: ['Mon', 'Funday'] }] },
      'spec.windows[1].days[1]: Unsupported value: "Funday": supported values: "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"',
    ],
    [
      'a full day name (only the three-letter names)',
      { windows: [{ ...nightly, days: ['Monday'] }] },
      'spec.windows[0].days[0]: Unsupported value: "Monday": supported values: "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"',
    ],
    [
      'a day twice',
      { windows: [{ ...nightly, days: ['Mon', 'Mon'] }] },
      'spec.windows[0].days[1]: Duplicate value: "Mon"',
    ],
    [
      'a day in lower case (the names are spelt as Go abbreviates them)',
      { windows: [{ ...nightly, days: ['mon'] }] },
      'spec.windows[0].days[0]: Unsupported value: "mon": supported values: "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"',
    ],
    [
      'an empty list of days',
      { windows: [{ ...nightly, days: [] }] },
      'spec.windows[0].days: Invalid value: []: must be a non-empty list of days (leave it out for every day)',
    ],
    [
      'a blackout date that does not exist',
      { blackouts: [{ start: '2026-02-30', end: '2026-03-01' }] },
      'spec.blackouts[0].start: Invalid value: "2026-02-30": must be an RFC 3339 time ("2026-12-24T18:00:00+01:00") or a date ("2026-12-24")',
    ],
    [
      'a blackout time without its offset',
      { blackouts: [{ start: '2026-12-24', end: '2026-12-24T18:00:00' }] },
      'spec.blackouts[0].end: Invalid value: "2026-12-24T18:00:00": must be an RFC 3339 time ("2026-12-24T18:00:00+01:00") or a date ("2026-12-24")',
    ],
    [
      'a blackout that ends before it starts',
      { blackouts: [{ start: '2026-12-26', end: '2026-12-24' }] },
      'spec.blackouts[0].end: Invalid value: "2026-12-24": must be after start (2026-12-26)',
    ],
    [
      "a blackout's unknown zone",
      { blackouts: [{ start: '2026-12-24', end: '2026-12-26', timeZone: 'Berlin' }] },
      'spec.blackouts[0].timeZone: Invalid value: "Berlin": unknown time zone: must be a name of the IANA time zone database, such as "Europe/Berlin" or "UTC"',
    ],
    [
      'a blackout without an end',
      { blackouts: [{ start: '2026-12-24' } as never] },
      'spec.blackouts[0].end: Required value: an RFC 3339 time or a date (YYYY-MM-DD)',
    ],
  ];
  for (const [what, spec, message] of rows)
    it(`refused: ${what}`, () => {
      expect(errors(spec)).to.deep.equal([message]);
    });

  it('a NodeRoll reports them among its spec errors', () => {
    const errs = validateNodeRoll({
      metadata: { name: 'upgrade' },
      spec: {
        nodeSelector: { matchLabels: { group: 'workers' } },
        nodeGroup: 'workers',
        desiredNodes: 2,
        windows: [{ ...nightly, timeZone: 'Mars/Olympus' }],
      },
    }).map(formatFieldError);
    expect(errs).to.deep.equal([
      'spec.windows[0].timeZone: Invalid value: "Mars/Olympus": unknown time zone: must be a name of the IANA time zone database, such as "Europe/Berlin" or "UTC"',
    ]);
  });

  it('a Deployment reports them among its spec errors', () => {
    const d = deployment({ replicas: 2 });
    const errs = validateDeployment({ ...d, spec: { ...d.spec, windows: [{ ...nightly, duration: '2x' }] } }).map(
      formatFieldError,
    );
    expect(errs).to.deep.equal([
      'spec.windows[0].duration: Invalid value: "2x": time: unknown unit "x" in duration "2x"',
    ]);
  });
});
