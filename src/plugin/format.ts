// Text formats kubectl users read every day, rebuilt so the plugin's output lines up with
// kubectl's: Go's text/tabwriter column rules, kubectl's human ages ("5m12s"), Go durations for
// --timeout ("30s", "2m", "1h30m") and RFC 3339 with seconds for restartedAt.

/** Characters on screen (code points: `✔` is one column, as Go's tabwriter counts runes). */
function cellWidth(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

export interface TabwriterOptions {
  /** Minimal cell width including padding. kubectl: 0 for history and describe, 6 for get. */
  minwidth?: number;
  /** Spaces added to the widest cell of a column. kubectl: 2 for history and describe, 3 for get. */
  padding?: number;
}

/**
 * Aligns tab-separated text as Go's tabwriter does (left-aligned, space padding): a column is a
 * block of consecutive lines that have a tab-terminated cell at that position, sized by its
 * widest cell; the text after a line's last tab is never padded. `text` lines end with '\n'.
 */
export function tabwrite(text: string, opts: TabwriterOptions = {}): string {
  const minwidth = opts.minwidth ?? 0;
  const padding = opts.padding ?? 2;
  const trailingNewline = text.endsWith('\n');
  const rows = (trailingNewline ? text.slice(0, -1) : text).split('\n').map((l) => l.split('\t'));
  const out: string[] = [];
  const widths: number[] = [];

  const writeLines = (from: number, to: number): void => {
    for (let i = from; i < to; i++) {
      const cells = rows[i];
      let line = '';
      for (let j = 0; j < cells.length; j++) {
        const c = cells[j];
        line += j < widths.length && j < cells.length - 1 ? c + ' '.repeat(Math.max(0, widths[j] - cellWidth(c))) : c;
      }
      out.push(line);
    }
  };

  const format = (line0: number, line1: number): void => {
    const column = widths.length;
    let start = line0;
    for (let i = line0; i < line1; i++) {
      if (column >= rows[i].length - 1) continue;
      // A block of lines with a cell in this column starts here.
      writeLines(start, i);
      let width = minwidth;
      let end = i;
      for (; end < line1 && column < rows[end].length - 1; end++) {
        width = Math.max(width, cellWidth(rows[end][column]) + padding);
      }
      widths.push(width);
      format(i, end);
      widths.pop();
      start = end;
      i = end - 1;
    }
    writeLines(start, line1);
  };

  format(0, rows.length);
  return out.join('\n') + (trailingNewline ? '\n' : '');
}

// kubectl's age strings, shared with the simulated API server's Tables.
export { humanDuration, ageSince as age } from '../api/duration.ts';

// Go's time.ParseDuration (--timeout and other duration flags), shared with the API's durations.
export { parseGoDuration } from '../api/duration.ts';

const pad2 = (n: number): string => String(n).padStart(2, '0');

/**
 * Go's time.RFC3339 ("2006-01-02T15:04:05Z07:00": whole seconds) of `ms` in a zone `offsetMinutes`
 * east of UTC (0 prints "Z"). kubectl formats restartedAt this way in the local zone.
 */
export function formatRFC3339(ms: number, offsetMinutes = -new Date(ms).getTimezoneOffset()): string {
  const t = new Date(Math.floor(ms / 1000) * 1000 + offsetMinutes * 60_000);
  const base = `${t.getUTCFullYear()}-${pad2(t.getUTCMonth() + 1)}-${pad2(t.getUTCDate())}T${pad2(t.getUTCHours())}:${pad2(t.getUTCMinutes())}:${pad2(t.getUTCSeconds())}`;
  if (offsetMinutes === 0) return `${base}Z`;
  const sign = offsetMinutes > 0 ? '+' : '-';
  const abs = Math.abs(offsetMinutes);
  return `${base}${sign}${pad2(Math.trunc(abs / 60))}:${pad2(abs % 60)}`;
}
