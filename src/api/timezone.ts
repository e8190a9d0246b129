// Wall-clock time in an IANA time zone, through the platform's Intl (Node carries the full ICU and
// its copy of the tz database): the local date and time of an instant, and the instants a local date
// and time stand for (none in a spring-forward gap, two in a fall-back overlap). Maintenance windows
// (src/engine/windows.ts, docs/semantics/windows.md) are written in local time and read through it.

/** A zone's local date and time of an instant; weekday 0 is Sunday, as Go's time.Weekday and cron count. */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/**
 * Whether `name` is a time zone of the IANA database as the platform knows it ("UTC",
 * "Europe/Berlin"). Intl also takes UTC offsets ("+01:00"), which are not zone names: refused, as
 * a CronJob's timeZone takes names only.
 */
export function isTimeZone(name: string): boolean {
  if (name === '' || /^[+-]\d/.test(name)) return false;
  try {
    formatter(name);
    return true;
  } catch {
    return false;
  }
}

/** The local date and time of instant `ms` (whole seconds) in `timeZone`. */
export function wallTime(ms: number, timeZone: string): WallTime {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(ms)))
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  const { year, month, day, hour, minute, second } = parts as Record<string, number>;
  return { year, month, day, hour, minute, second, weekday: new Date(Date.UTC(year, month - 1, day)).getUTCDay() };
}

/** How far `timeZone`'s clock is ahead of UTC at instant `ms`, in ms. */
export function offsetAt(ms: number, timeZone: string): number {
  const w = wallTime(ms, timeZone);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - Math.floor(ms / 1000) * 1000;
}

/**
 * The instants at which `timeZone`'s clock reads year-month-day hour:minute, in order: one on an
 * ordinary day, none when that time falls in a gap (the clock springs past it), two when it falls in
 * an overlap (the clock falls back and reads it twice). Month 1 is January; the date may overflow
 * (day 32 is the next month's first), as Date.UTC allows.
 */
export function instantsAt(timeZone: string, year: number, month: number, day: number, hour: number, minute: number) {
  const local = Date.UTC(year, month - 1, day, hour, minute);
  const want = new Date(local);
  const found = new Set<number>();
  // Every offset in force within a day either side: a transition within it shows as two offsets.
  for (const probe of [local - 86_400_000, local, local + 86_400_000]) {
    const t = local - offsetAt(probe, timeZone);
    const w = wallTime(t, timeZone);
    if (
      w.year === want.getUTCFullYear() &&
      w.month === want.getUTCMonth() + 1 &&
      w.day === want.getUTCDate() &&
      w.hour === hour &&
      w.minute === minute
    )
      found.add(t);
  }
  return [...found].sort((a, b) => a - b);
}

/**
 * The first instant of a local date in `timeZone`: its midnight, or where midnight falls in a gap
 * (the clock springs from 23:59 to 01:00), the moment the day begins after it.
 */
export function startOfDay(timeZone: string, year: number, month: number, day: number): number {
  const at = instantsAt(timeZone, year, month, day, 0, 0);
  if (at.length > 0) return at[0]!;
  // In the gap: midnight as the offset before the transition would have put it is the jump itself.
  const local = Date.UTC(year, month - 1, day);
  return local - offsetAt(local - 86_400_000, timeZone);
}
