// Durations as Kubernetes writes and reads them: apimachinery's duration.HumanDuration, the Age
// strings kubectl prints ("5s", "3m2s", "2d3h"), used by the simulated API server's Tables and by
// the kubectl plugin; and Go's time.ParseDuration, which reads flags (--timeout, the lease
// durations) and the API's duration fields (metav1.Duration: a NodeRoll's timeouts).

/** A duration in milliseconds as kubectl prints an age. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.trunc(hours / 24) % 365;
    return dy === 0 ? `${Math.trunc(hours / 24 / 365)}y` : `${Math.trunc(hours / 24 / 365)}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** translateTimestampSince: "<unknown>" for a missing timestamp, else the age at `now`. */
export function ageSince(timestamp: unknown, now: number): string {
  if (typeof timestamp !== 'string' || timestamp === '') return '<unknown>';
  const t = Date.parse(timestamp);
  if (Number.isNaN(t)) return '<unknown>';
  return humanDuration(now - t);
}

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * Go's time.ParseDuration, in milliseconds: "300ms", "1.5h", "2h45m", "-1m", "0". Throws Go's
 * messages (`time: missing unit in duration "30"`) so a bad --timeout reads like kubectl's.
 */
export function parseGoDuration(text: string): number {
  const invalid = (): Error => new Error(`time: invalid duration "${text}"`);
  let s = text;
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    if (s[0] === '-') sign = -1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') throw invalid();
  let total = 0;
  while (s !== '') {
    const m = /^([0-9]*)(?:\.([0-9]*))?/.exec(s)!;
    const [whole, intPart, fracPart] = m;
    if (whole === '' || whole === '.' || (intPart === '' && (fracPart ?? '') === '')) throw invalid();
    s = s.slice(whole.length);
    const unit = /^[^0-9.]*/.exec(s)![0];
    if (unit === '') throw new Error(`time: missing unit in duration "${text}"`);
    const perUnit = UNIT_MS[unit];
    if (perUnit === undefined) throw new Error(`time: unknown unit "${unit}" in duration "${text}"`);
    s = s.slice(unit.length);
    total += Number(`${intPart || '0'}.${fracPart || '0'}`) * perUnit;
  }
  return sign * total;
}

/** metav1.Time as the API serialises it: RFC 3339 in UTC, whole seconds (Events' timestamps, restartedAt, a NodeRoll's checkpoint). */
export function metaTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
