// Draws a soak run's samples (bench/soak.bench.ts's JSON lines) as an SVG: resident memory and heap
// in use (MiB, left axis) and the p99 latency from a change to the controller's first write (ms,
// right axis) against minutes.
//   node bench/soak.bench.ts > soak.jsonl; node bench/plot-soak.ts soak.jsonl > bench/soak.svg

import { readFileSync } from 'node:fs';

interface Row {
  minute: number;
  rssMiB: number;
  heapMiB: number;
  latencyP99Ms: number | null;
}

const rows = readFileSync(process.argv[2] ?? 0, 'utf8')
  .split('\n')
  .filter((l) => l.startsWith('{'))
  .map((l) => JSON.parse(l) as Row & { summary?: boolean })
  .filter((r) => !r.summary && typeof r.minute === 'number');
if (rows.length < 2) {
  process.stderr.write('error: fewer than two samples\n');
  process.exit(2);
}
const W = 760,
  H = 360,
  L = 60,
  R = 60,
  T = 30,
  B = 40;
const maxMin = Math.max(...rows.map((r) => r.minute));
const maxMiB = Math.ceil(Math.max(...rows.map((r) => r.rssMiB)) / 50) * 50;
const maxMs = Math.max(10, Math.ceil(Math.max(...rows.map((r) => r.latencyP99Ms ?? 0)) / 10) * 10);
const x = (m: number) => L + ((W - L - R) * m) / maxMin;
const yMiB = (v: number) => H - B - ((H - T - B) * v) / maxMiB;
const yMs = (v: number) => H - B - ((H - T - B) * v) / maxMs;
const line = (pts: Array<[number, number]>, color: string) =>
  `<polyline fill="none" stroke="${color}" stroke-width="2" points="${pts.map(([a, b]) => `${a.toFixed(1)},${b.toFixed(1)}`).join(' ')}"/>`;
const text = (px: number, py: number, s: string, anchor = 'start', color = '#333') =>
  `<text x="${px}" y="${py}" font-family="sans-serif" font-size="12" fill="${color}" text-anchor="${anchor}">${s}</text>`;
const ticks: string[] = [];
for (let i = 0; i <= 5; i++) {
  const v = (maxMiB * i) / 5;
  ticks.push(
    `<line x1="${L}" x2="${W - R}" y1="${yMiB(v)}" y2="${yMiB(v)}" stroke="#eee"/>`,
    text(L - 6, yMiB(v) + 4, String(Math.round(v)), 'end'),
    text(W - R + 6, yMiB(v) + 4, String(Math.round((maxMs * i) / 5)), 'start', '#b35900'),
  );
}
for (let m = 0; m <= maxMin; m += 10) ticks.push(text(x(m), H - B + 16, String(m), 'middle'));
process.stdout.write(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">
<rect width="${W}" height="${H}" fill="white"/>
${ticks.join('\n')}
${line(
  rows.map((r) => [x(r.minute), yMiB(r.rssMiB)]),
  '#1f5fbf',
)}
${line(
  rows.map((r) => [x(r.minute), yMiB(r.heapMiB)]),
  '#4caf50',
)}
${line(
  rows.filter((r) => r.latencyP99Ms !== null).map((r) => [x(r.minute), yMs(r.latencyP99Ms!)]),
  '#b35900',
)}
${text(L, 18, 'Pacer controller under churn: RSS (blue) and heap in use (green), MiB; change → first write p99 (orange), ms')}
${text((L + W - R) / 2, H - 8, 'minutes', 'middle')}
</svg>
`);
