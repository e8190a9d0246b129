// Maintenance windows (docs/semantics/windows.md): given a resource's spec.windows and
// spec.blackouts and the time, is a window open now, when does it close, and when does the next one
// open? Pure: the time is an argument. The NodeRoll's pass (noderoll/pass.ts) and a Deployment's
// (decide.ts) hold what they would disrupt while none is open.
//
// A window opens on each of its days at its local start, in its zone, and stays open for its
// duration of elapsed time (it may run into the next day). Daylight-saving changes are read as a
// CronJob's schedule is (Kubernetes' CronJob controller, through robfig/cron):
//   * a start the clock springs past (02:30 on a day that goes from 02:00 to 03:00) does not occur:
//     that day's window does not open;
//   * a start the clock reads twice (02:30 on a day that goes back from 03:00 to 02:00) occurs
//     twice: the window opens at each, for its duration (the two runs overlap into one when the
//     duration is an hour or more).
// Open is the union of every window's runs less every blackout. Without windows a resource is
// always open but for its blackouts.

import type { Blackout, MaintenanceWindow, WindowsSpec } from '../api/windows.ts';
import { DEFAULT_WINDOW_TIME_ZONE, MAX_WINDOW_MS, blackoutInstant, clockTime, weekdayOf } from '../api/windows.ts';
import { instantsAt, wallTime } from '../api/timezone.ts';
import { metaTime } from '../api/duration.ts';
import { parseGoDuration } from '../api/duration.ts';
import type { Deployment, DeploymentStatus } from '../api/types.ts';
import {
  PROGRESSING,
  REASON,
  getCondition,
  newCondition,
  removeCondition,
  setCondition,
} from './kubernetes/conditions.ts';
import { hasProgressDeadline } from './kubernetes/progress.ts';

/** Where a resource stands with its windows at an instant. */
export interface WindowState {
  /** A window is open and no blackout holds. */
  open: boolean;
  /** Open: when it closes (ms), if within the horizon searched (about 400 days). */
  closesAt?: number;
  /** When the next window opens (ms): after now, and while open after the current one closes; absent when none does within the horizon. */
  opensAt?: number;
  /** Closed by a blackout (now falls in it): its index in spec.blackouts. */
  blackout?: number;
}

const DAY = 86_400_000;
/** How far ahead a window is looked for: a blackout may block for months; a year and a bit more. */
const HORIZON_DAYS = 400;

interface Compiled {
  days: ReadonlySet<number>;
  hour: number;
  minute: number;
  ms: number;
  timeZone: string;
}

const compiledWindows = new WeakMap<MaintenanceWindow, Compiled>();

/** A window as numbers; its spec is valid (the api's validateWindows said so before). */
function compile(w: MaintenanceWindow): Compiled {
  let c = compiledWindows.get(w);
  if (!c) {
    const at = clockTime(w.start) ?? { hour: 0, minute: 0 };
    const days = w.days ? w.days.map(weekdayOf).filter((d): d is number => d !== undefined) : [0, 1, 2, 3, 4, 5, 6];
    c = {
      days: new Set(days),
      hour: at.hour,
      minute: at.minute,
      ms: Math.min(parseGoDuration(w.duration), MAX_WINDOW_MS),
      timeZone: w.timeZone ?? DEFAULT_WINDOW_TIME_ZONE,
    };
    compiledWindows.set(w, c);
  }
  return c;
}

type Interval = [number, number];

/**
 * The runs of window `w` whose local start date lies from `fromDay` to `toDay` days after the date
 * `now` has in its zone (negative: before), in order. A start in a gap gives no run; one in an
 * overlap gives two.
 */
export function windowRuns(w: MaintenanceWindow, now: number, fromDay: number, toDay: number): Interval[] {
  const c = compile(w);
  const today = wallTime(now, c.timeZone);
  const runs: Interval[] = [];
  for (let k = fromDay; k <= toDay; k++) {
    const date = new Date(Date.UTC(today.year, today.month - 1, today.day + k));
    if (!c.days.has(date.getUTCDay())) continue;
    for (const t of instantsAt(
      c.timeZone,
      date.getUTCFullYear(),
      date.getUTCMonth() + 1,
      date.getUTCDate(),
      c.hour,
      c.minute,
    ))
      runs.push([t, t + c.ms]);
  }
  return runs;
}

/** A blackout as an interval (ms); undefined when it cannot be read (validation refuses it). */
export function blackoutInterval(b: Blackout): Interval | undefined {
  const tz = b.timeZone ?? DEFAULT_WINDOW_TIME_ZONE;
  const start = blackoutInstant(b.start, tz, false);
  const end = blackoutInstant(b.end, tz, true);
  return start === undefined || end === undefined || end <= start ? undefined : [start, end];
}

/** The union of intervals, in order. */
function union(xs: Interval[]): Interval[] {
  const sorted = [...xs].sort((a, b) => a[0] - b[0]);
  const out: Interval[] = [];
  for (const [s, e] of sorted) {
    const last = out[out.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

/** `open` less `blocked` (both in order, each disjoint). */
function subtract(open: Interval[], blocked: Interval[]): Interval[] {
  const out: Interval[] = [];
  for (const [s0, e] of open) {
    let s = s0;
    for (const [bs, be] of blocked) {
      if (be <= s || bs >= e) continue;
      if (bs > s) out.push([s, bs]);
      s = Math.max(s, be);
      if (s >= e) break;
    }
    if (s < e) out.push([s, e]);
  }
  return out;
}

/** Does the spec name any window or blackout (without, nothing is ever held)? */
export function hasWindows(spec: WindowsSpec | undefined): boolean {
  return (spec?.windows?.length ?? 0) > 0 || (spec?.blackouts?.length ?? 0) > 0;
}

/** The open intervals from `days` before now to `horizon` days after. */
function openIntervals(spec: WindowsSpec, now: number, horizon: number): Interval[] {
  const windows = spec.windows ?? [];
  // A run that started up to a week (the longest window) and a day before today may still be open.
  const back = -Math.ceil(MAX_WINDOW_MS / DAY) - 1;
  const runs =
    windows.length === 0
      ? [[Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY] as Interval]
      : union(windows.flatMap((w) => windowRuns(w, now, back, horizon)));
  const blocked = union((spec.blackouts ?? []).map(blackoutInterval).filter((x): x is Interval => x !== undefined));
  return subtract(runs, blocked);
}

/** Where `spec`'s windows stand at `now` (ms). Always open without windows and blackouts. */
export function windowState(spec: WindowsSpec, now: number): WindowState {
  // A fortnight answers almost every question; a year and more when blackouts or sparse days need it.
  for (const horizon of [16, HORIZON_DAYS]) {
    const end = now + horizon * DAY - MAX_WINDOW_MS;
    const open = openIntervals(spec, now, horizon);
    const current = open.find(([s, e]) => s <= now && now < e);
    const next = open.find(([s]) => s > now);
    const settled = (current === undefined || current[1] < end) && next !== undefined && next[0] < end;
    if (!settled && horizon < HORIZON_DAYS) continue;
    const blackout = (spec.blackouts ?? []).findIndex((b) => {
      const i = blackoutInterval(b);
      return i !== undefined && i[0] <= now && now < i[1];
    });
    return {
      open: current !== undefined,
      ...(current && Number.isFinite(current[1]) && current[1] < end ? { closesAt: current[1] } : {}),
      ...(next && next[0] < end ? { opensAt: next[0] } : {}),
      ...(current === undefined && blackout >= 0 ? { blackout } : {}),
    };
  }
  return { open: true };
}

/** Why nothing new is disrupted now, in words, with the next opening in RFC 3339. */
export function outsideWindowInWords(spec: WindowsSpec, state: WindowState): string {
  const b = state.blackout !== undefined ? spec.blackouts?.[state.blackout] : undefined;
  const why = b
    ? `blackout ${b.start} to ${b.end}${b.reason ? ` (${b.reason})` : ''}`
    : 'outside its maintenance windows';
  const next =
    state.opensAt !== undefined
      ? `the next window opens at ${metaTime(state.opensAt)}`
      : 'no window opens within the next 400 days';
  return `${why}: ${next}`;
}

/** Ms from `now` until the next change (the window opens or closes), for a requeue; undefined: none ahead. */
export function untilWindowChange(state: WindowState, now: number): number | undefined {
  const at = state.open ? state.closesAt : state.opensAt;
  return at === undefined ? undefined : Math.max(0, at - now);
}

// A Deployment's rollout and its windows (docs/semantics/windows.md#deployments). A Deployment that
// names windows (or blackouts) takes no rollout step while none is open: Progressing Unknown
// OutsideWindow with the next opening, its progress deadline not running (as for a pause or a gate's
// hold: progress.ts isPlanHold), the pass looking again at the opening. Scaling is not held (it is
// decided before the rollout, as for a paused Deployment), and a Deployment without windows never
// comes here.

/**
 * Does a window hold `d`'s rollout at `now`? When it does, the Progressing condition says so (unless
 * the rollout has already timed out) and the seconds until the window opens are returned (null when
 * none opens within the horizon); undefined: the rollout may go on. `pending`: the rollout has
 * something left to do (no ReplicaSet of the current template yet, or an old one still sized).
 */
export function windowHold(
  d: Deployment,
  status: DeploymentStatus,
  pending: boolean,
  now: number,
): { requeueAfterSeconds: number | null } | undefined {
  if (!pending || !hasWindows(d.spec)) return undefined;
  const state = windowState(d.spec, now);
  if (state.open) return undefined;
  if (hasProgressDeadline(d)) {
    const c = getCondition(status, PROGRESSING);
    const message = `Deployment waits for a maintenance window: ${outsideWindowInWords(d.spec, state)}`;
    if (c?.reason !== REASON.timedOut && (c?.reason !== REASON.outsideWindow || c.message !== message)) {
      const cond = newCondition(PROGRESSING, 'Unknown', REASON.outsideWindow, message, now);
      // The next opening moved on (a blackout, a new window): the message follows, the transition time stays.
      if (c?.reason === REASON.outsideWindow) cond.lastTransitionTime = c.lastTransitionTime;
      removeCondition(status, PROGRESSING);
      setCondition(status, cond);
    }
  }
  return {
    requeueAfterSeconds: state.opensAt === undefined ? null : Math.max(1, Math.ceil((state.opensAt - now) / 1000)),
  };
}
