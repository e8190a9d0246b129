// Maintenance windows (docs/semantics/windows.md): when a NodeRoll or an opted-in Deployment may
// disrupt. `spec.windows` recur in an IANA time zone (days, a local start, a duration);
// `spec.blackouts` are one-off ranges that block, inside a window too. The types, the reading of
// each field, and the validation with field paths; when a window is open is the engine's
// (src/engine/windows.ts).

import { parse as parseYaml } from 'yaml';
import { parseGoDuration } from './duration.ts';
import type { FieldError } from './fielderrors.ts';
import { isTimeZone, startOfDay } from './timezone.ts';

/** A recurring window: on `days` (every day when absent), from `start` local time, for `duration`, in `timeZone`. */
export interface MaintenanceWindow {
  /** Three-letter English day names, as cron and Go's time.Weekday abbreviate them: Mon, Tue, ... Sun. */
  days?: string[];
  /** Local time of day, "HH:MM" on a 24-hour clock ("22:30"). */
  start: string;
  /** A Go duration ("2h30m"), more than 0 and at most 168h. */
  duration: string;
  /** An IANA time zone name ("Europe/Berlin"); default UTC. */
  timeZone?: string;
}

/** A one-off range that blocks: `start` to `end`, each RFC 3339 or a date (a date-only end includes that whole day). */
export interface Blackout {
  start: string;
  end: string;
  /** The zone a date-only start or end is read in; default UTC. An RFC 3339 time carries its own offset. */
  timeZone?: string;
  /** Why, for the status message (free text). */
  reason?: string;
}

/** What a resource says about its windows (a NodeRoll's or a Deployment's spec). */
export interface WindowsSpec {
  windows?: MaintenanceWindow[];
  blackouts?: Blackout[];
}

export const DEFAULT_WINDOW_TIME_ZONE = 'UTC';
/** The day names a window takes, Sunday first (index = weekday, as Go and cron count). */
export const WINDOW_DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;
/** The longest window: a week (a longer one would always be open). */
export const MAX_WINDOW_MS = 7 * 24 * 3_600_000;

/** A day name's weekday (0 Sunday), spelt exactly as WINDOW_DAYS (as Go's time.Weekday abbreviates); undefined for anything else. */
export function weekdayOf(name: string): number | undefined {
  const i = (WINDOW_DAYS as readonly string[]).indexOf(name);
  return i < 0 ? undefined : i;
}

/** "HH:MM" as hours and minutes, or undefined when it is not a time of day. */
export function clockTime(text: string): { hour: number; minute: number } | undefined {
  const m = /^([01][0-9]|2[0-3]):([0-5][0-9])$/.exec(String(text));
  return m ? { hour: Number(m[1]), minute: Number(m[2]) } : undefined;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * A blackout's bound as an instant (ms): an RFC 3339 time as it says; a date as the start of that
 * day in `timeZone` (for an end, of the next day, so the date is blocked whole). Undefined when it
 * is neither.
 */
export function blackoutInstant(text: string, timeZone: string, end: boolean): number | undefined {
  const s = String(text);
  const d = DATE.exec(s);
  if (d) {
    const [y, m, day] = [Number(d[1]), Number(d[2]), Number(d[3])];
    const probe = new Date(Date.UTC(y, m - 1, day));
    if (probe.getUTCFullYear() !== y || probe.getUTCMonth() !== m - 1 || probe.getUTCDate() !== day) return undefined;
    return startOfDay(timeZone, y, m, day + (end ? 1 : 0));
  }
  if (!RFC3339.test(s)) return undefined;
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : t;
}

/** Every problem with `spec.windows` and `spec.blackouts`, under `path` ("spec"). */
export function validateWindows(spec: WindowsSpec, path = 'spec'): FieldError[] {
  const errs: FieldError[] = [];
  const zone = (field: string, tz: unknown): boolean => {
    if (tz === undefined) return true;
    if (typeof tz === 'string' && isTimeZone(tz)) return true;
    errs.push({
      field,
      type: 'Invalid',
      value: tz,
      detail: 'unknown time zone: must be a name of the IANA time zone database, such as "Europe/Berlin" or "UTC"',
    });
    return false;
  };
  if (spec.windows !== undefined && spec.windows !== null) {
    if (!Array.isArray(spec.windows))
      errs.push({ field: `${path}.windows`, type: 'Invalid', value: spec.windows, detail: 'must be a list' });
    else
      spec.windows.forEach((w, i) => {
        const at = `${path}.windows[${i}]`;
        if (typeof w !== 'object' || w === null) {
          errs.push({ field: at, type: 'Invalid', value: w, detail: 'must be an object' });
          return;
        }
        if (w.days !== undefined) {
          if (!Array.isArray(w.days) || w.days.length === 0)
            errs.push({
              field: `${at}.days`,
              type: 'Invalid',
              value: w.days,
              detail: 'must be a non-empty list of days (leave it out for every day)',
            });
          else {
            const seen = new Set<number>();
            w.days.forEach((day, k) => {
              const n = weekdayOf(day);
              if (n === undefined)
                errs.push({
                  field: `${at}.days[${k}]`,
                  type: 'NotSupported',
                  value: day,
                  detail: `supported values: ${[...WINDOW_DAYS.slice(1), WINDOW_DAYS[0]].map((x) => `"${x}"`).join(', ')}`,
                });
              else if (seen.has(n)) errs.push({ field: `${at}.days[${k}]`, type: 'Duplicate', value: day, detail: '' });
              else seen.add(n);
            });
          }
        }
        if (w.start === undefined || w.start === '')
          errs.push({ field: `${at}.start`, type: 'Required', detail: 'the local time the window opens, "HH:MM"' });
        else if (!clockTime(w.start))
          errs.push({
            field: `${at}.start`,
            type: 'Invalid',
            value: w.start,
            detail: 'must be a time of day as HH:MM on a 24-hour clock, from 00:00 to 23:59',
          });
        if (w.duration === undefined || w.duration === '')
          errs.push({ field: `${at}.duration`, type: 'Required', detail: 'how long the window stays open, e.g. "2h"' });
        else {
          let ms: number | undefined;
          try {
            ms = parseGoDuration(String(w.duration));
          } catch (e) {
            errs.push({ field: `${at}.duration`, type: 'Invalid', value: w.duration, detail: (e as Error).message });
          }
          if (ms !== undefined && (ms <= 0 || ms > MAX_WINDOW_MS))
            errs.push({
              field: `${at}.duration`,
              type: 'Invalid',
              value: w.duration,
              detail: 'must be greater than 0 and at most 168h (a week)',
            });
        }
        zone(`${at}.timeZone`, w.timeZone);
      });
  }
  if (spec.blackouts !== undefined && spec.blackouts !== null) {
    if (!Array.isArray(spec.blackouts))
      errs.push({ field: `${path}.blackouts`, type: 'Invalid', value: spec.blackouts, detail: 'must be a list' });
    else
      spec.blackouts.forEach((b, i) => {
        const at = `${path}.blackouts[${i}]`;
        if (typeof b !== 'object' || b === null) {
          errs.push({ field: at, type: 'Invalid', value: b, detail: 'must be an object' });
          return;
        }
        const tzOk = zone(`${at}.timeZone`, b.timeZone);
        const tz = tzOk ? (b.timeZone ?? DEFAULT_WINDOW_TIME_ZONE) : DEFAULT_WINDOW_TIME_ZONE;
        const bound = (key: 'start' | 'end'): number | undefined => {
          const v = b[key];
          if (v === undefined || v === '') {
            errs.push({ field: `${at}.${key}`, type: 'Required', detail: 'an RFC 3339 time or a date (YYYY-MM-DD)' });
            return undefined;
          }
          const t = blackoutInstant(v, tz, key === 'end');
          if (t === undefined)
            errs.push({
              field: `${at}.${key}`,
              type: 'Invalid',
              value: v,
              detail: 'must be an RFC 3339 time ("2026-12-24T18:00:00+01:00") or a date ("2026-12-24")',
            });
          return t;
        };
        const start = bound('start');
        const end = bound('end');
        if (start !== undefined && end !== undefined && end <= start)
          errs.push({ field: `${at}.end`, type: 'Invalid', value: b.end, detail: `must be after start (${b.start})` });
      });
  }
  return errs;
}

/**
 * The cluster's default windows as a ConfigMap's data holds them (docs/semantics/windows.md#the-clusters-default):
 * the key `windows` a YAML (or JSON) list in spec.windows' shape, the key `blackouts` one in
 * spec.blackouts' shape; no other key. Each problem's field is the data key and the path under it
 * (`data.windows[0].timeZone`), with the value given.
 */
export function parseWindowsData(data: Readonly<Record<string, unknown>> | undefined): {
  spec: WindowsSpec;
  errors: FieldError[];
} {
  const spec: WindowsSpec = {};
  const errors: FieldError[] = [];
  for (const [key, text] of Object.entries(data ?? {})) {
    if (key !== 'windows' && key !== 'blackouts') {
      errors.push({
        field: `data.${key}`,
        type: 'NotSupported',
        value: key,
        detail: 'supported keys: "windows", "blackouts"',
      });
      continue;
    }
    let value: unknown;
    try {
      value = parseYaml(String(text));
    } catch (err) {
      const first = (err as Error).message.split('\n')[0];
      errors.push({ field: `data.${key}`, type: 'Invalid', value: text, detail: `must be YAML or JSON: ${first}` });
      continue;
    }
    // An empty key is no list: the same as leaving it out.
    if (value === null || value === undefined) continue;
    if (!Array.isArray(value)) {
      const kind = typeof value === 'object' ? 'a mapping' : `a ${typeof value}`;
      errors.push({
        field: `data.${key}`,
        type: 'Invalid',
        value: text,
        detail: `must be a list of ${key === 'windows' ? 'windows (days, start, duration, timeZone)' : 'blackouts (start, end, timeZone, reason)'}, as spec.${key} is, not ${kind}`,
      });
      continue;
    }
    if (key === 'windows') spec.windows = value as MaintenanceWindow[];
    else spec.blackouts = value as Blackout[];
  }
  errors.push(...validateWindows(spec, 'data'));
  return { spec, errors };
}
