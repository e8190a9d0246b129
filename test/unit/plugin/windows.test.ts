// kubectl pacer windows set|status: a file read into the ConfigMap's data (each problem with the
// file, the field path and the value), and the status as text and as a document at a given instant.

import { expect } from 'chai';
import { parse as parseYaml } from 'yaml';
import { describeWindows, windowsFileData, windowsStatus } from '../../../src/plugin/windows.ts';

const WEEKENDS = [
  'windows:',
  '  - days: [Sat, Sun]',
  '    start: "02:00"',
  '    duration: 4h',
  '    timeZone: Europe/Berlin',
  'blackouts:',
  '  - start: "2026-12-24"',
  '    end: "2026-12-26"',
  '    timeZone: Europe/Berlin',
  '    reason: Christmas',
].join('\n');

const configMap = (data: Record<string, string>) => ({
  metadata: { name: 'pacer-maintenance-windows', namespace: 'pacer-system' },
  data,
});

describe('plugin: windows set reads a file', () => {
  it('each list under its key, as YAML the controller reads back to the same lists', () => {
    const r = windowsFileData(WEEKENDS, 'w.yaml');
    if (!('data' in r)) throw new Error(r.errors.join('\n'));
    expect(Object.keys(r.data)).to.deep.equal(['windows', 'blackouts']);
    expect(parseYaml(r.data.windows!)).to.deep.equal([
      { days: ['Sat', 'Sun'], start: '02:00', duration: '4h', timeZone: 'Europe/Berlin' },
    ]);
    expect(parseYaml(r.data.blackouts!)).to.deep.equal([
      { start: '2026-12-24', end: '2026-12-26', timeZone: 'Europe/Berlin', reason: 'Christmas' },
    ]);
  });

  const refused: Array<[string, string, string[]]> = [
    [
      'an unknown zone and a bad day',
      'windows:\n  - days: [Funday]\n    start: "22:00"\n    duration: 4h\n    timeZone: Europe/Atlantis',
      [
        'w.yaml: windows[0].days[0]: Unsupported value: "Funday": supported values: "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"',
        'w.yaml: windows[0].timeZone: Invalid value: "Europe/Atlantis": unknown time zone: must be a name of the IANA time zone database, such as "Europe/Berlin" or "UTC"',
      ],
    ],
    [
      'a duration over a week',
      'windows:\n  - start: "22:00"\n    duration: 200h',
      ['w.yaml: windows[0].duration: Invalid value: "200h": must be greater than 0 and at most 168h (a week)'],
    ],
    [
      'a key of another name',
      'window:\n  - start: "22:00"\n    duration: 4h',
      ['w.yaml: window: Unsupported value: "window": supported keys: "windows", "blackouts"'],
    ],
    [
      'a list at the top',
      '- start: "22:00"\n  duration: 4h',
      [
        `w.yaml: must be a mapping with "windows" and/or "blackouts" (the shape of a NodeRoll's spec.windows and spec.blackouts), not a list`,
      ],
    ],
    [
      'nothing in it',
      'windows: []',
      ['w.yaml: names no window and no blackout (to remove the default: kubectl pacer windows clear)'],
    ],
  ];
  for (const [name, text, errors] of refused)
    it(`refuses ${name}`, () => expect(windowsFileData(text, 'w.yaml')).to.deep.equal({ errors }));
});

describe('plugin: windows status', () => {
  const data = windowsFileData(WEEKENDS, 'w.yaml') as { data: Record<string, string> };

  it('closed on a Friday: the tables, and when the next window opens', () => {
    const st = windowsStatus(configMap(data.data), 'pacer-system', Date.parse('2026-11-27T12:00:00Z'));
    expect(describeWindows(st)).to.equal(
      [
        'Default maintenance windows (configmap pacer-system/pacer-maintenance-windows):',
        'Windows:',
        '  DAYS     START  DURATION  TIME ZONE',
        '  Sat,Sun  02:00  4h        Europe/Berlin',
        'Blackouts:',
        '  START       END         TIME ZONE      REASON',
        '  2026-12-24  2026-12-26  Europe/Berlin  Christmas',
        "Closed: outside the cluster's default maintenance windows (configmap pacer-system/pacer-maintenance-windows): the next window opens at 2026-11-28T01:00:00Z.",
        '',
      ].join('\n'),
    );
  });

  it('open on a Saturday night: the document -o json|yaml prints', () => {
    const st = windowsStatus(configMap(data.data), 'pacer-system', Date.parse('2026-11-28T01:30:00Z'));
    expect(st).to.deep.equal({
      configMap: 'pacer-system/pacer-maintenance-windows',
      set: true,
      windows: [{ days: ['Sat', 'Sun'], start: '02:00', duration: '4h', timeZone: 'Europe/Berlin' }],
      blackouts: [{ start: '2026-12-24', end: '2026-12-26', timeZone: 'Europe/Berlin', reason: 'Christmas' }],
      open: true,
      closesAt: '2026-11-28T05:00:00Z',
      opensAt: '2026-11-29T01:00:00Z',
    });
    expect(describeWindows(st).split('\n').at(-2)).to.equal('Open until 2026-11-28T05:00:00Z.');
  });

  it('invalid (written by hand): the problems, and that every roll is held', () => {
    const st = windowsStatus(
      configMap({ windows: '- start: "25:00"\n  duration: 4h' }),
      'pacer-system',
      Date.parse('2026-11-27T12:00:00Z'),
    );
    expect(st.errors).to.deep.equal([
      'data.windows[0].start: Invalid value: "25:00": must be a time of day as HH:MM on a 24-hour clock, from 00:00 to 23:59',
    ]);
    expect(describeWindows(st).split('\n').slice(-3)).to.deep.equal([
      'Invalid: every NodeRoll is held until this is fixed (kubectl pacer windows set -f) or cleared:',
      '  data.windows[0].start: Invalid value: "25:00": must be a time of day as HH:MM on a 24-hour clock, from 00:00 to 23:59',
      '',
    ]);
  });

  it('not set', () => {
    const st = windowsStatus(undefined, 'pacer-system', 0);
    expect([st, describeWindows(st)]).to.deep.equal([
      { configMap: 'pacer-system/pacer-maintenance-windows', set: false },
      'no default maintenance windows (no configmap pacer-system/pacer-maintenance-windows): NodeRolls without windows of their own may roll at any time\n',
    ]);
  });
});
