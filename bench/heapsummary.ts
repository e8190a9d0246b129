// A V8 heap snapshot (.heapsnapshot, as `node --heapsnapshot-signal` writes it) summed up: the live
// heap (a snapshot is taken after a full garbage collection, so this is what is really held) and
// its largest parts by kind (objects by constructor, strings split into data and source text).
// Used by bench/scale.bench.ts; also runnable on any snapshot:
//   node bench/heapsummary.ts FILE.heapsnapshot

import { readFileSync } from 'node:fs';

export interface HeapSummary {
  liveMiB: number;
  /** The largest parts, MiB by kind ("object:Object", "string", "code", ...). */
  top: Record<string, number>;
  /** Strings longer than 10,000 characters: almost all of them module source text, not data. */
  sourceTextMiB: number;
}

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
  nodes: Uint32Array;
  strings: string[];
}

/**
 * Reads a snapshot without making it one string (V8's limit is 512 MiB, and a 10,000-Deployment
 * controller's snapshot is larger): the head ("snapshot" and its meta) and the trailing "strings"
 * array are parsed as JSON, the "nodes" array as numbers straight from the bytes; the other arrays
 * (edges, locations, ...) are not needed.
 */
function readSnapshot(file: string): Snapshot {
  const buf = readFileSync(file);
  const nodesAt = buf.indexOf('"nodes":[');
  const stringsAt = buf.lastIndexOf('"strings":[');
  if (nodesAt < 0 || stringsAt < 0) throw new Error(`${file}: not a V8 heap snapshot (no "nodes" or "strings")`);
  const head = JSON.parse(`${buf.subarray(0, nodesAt).toString('utf8').replace(/,\s*$/, '')}}`) as Pick<
    Snapshot,
    'snapshot'
  >;
  let values = new Uint32Array(1 << 20);
  let count = 0;
  const push = (v: number) => {
    if (count === values.length) {
      const grown = new Uint32Array(values.length * 2);
      grown.set(values);
      values = grown;
    }
    values[count++] = v;
  };
  let n = 0;
  let inNumber = false;
  for (let i = nodesAt + '"nodes":['.length; i < buf.length; i++) {
    const c = buf[i];
    if (c >= 48 && c <= 57) {
      n = n * 10 + (c - 48);
      inNumber = true;
      continue;
    }
    if (inNumber) push(n);
    n = 0;
    inNumber = false;
    if (c === 93) break; // ]
  }
  const strings = JSON.parse(
    buf
      .subarray(stringsAt + '"strings":'.length)
      .toString('utf8')
      .replace(/}\s*$/, ''),
  ) as string[];
  return { snapshot: head.snapshot, nodes: values.subarray(0, count), strings };
}

export function summarizeHeap(file: string, parts = 8): HeapSummary {
  const snap = readSnapshot(file);
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = fields.length;
  const [iType, iName, iSize] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const bySort = new Map<string, number>();
  let total = 0;
  let sourceText = 0;
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + iType]];
    const size = snap.nodes[i + iSize];
    const kind = type === 'object' || type === 'closure' ? `${type}:${snap.strings[snap.nodes[i + iName]]}` : type;
    total += size;
    if (type === 'string' && size > 10_000) sourceText += size;
    bySort.set(kind, (bySort.get(kind) ?? 0) + size);
  }
  const mib = (n: number) => Math.round((n / 2 ** 20) * 10) / 10;
  const top = Object.fromEntries(
    [...bySort]
      .sort((a, b) => b[1] - a[1])
      .slice(0, parts)
      .map(([k, v]) => [k, mib(v)]),
  );
  return { liveMiB: mib(total), top, sourceTextMiB: mib(sourceText) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: node bench/heapsummary.ts FILE.heapsnapshot\n');
    process.exit(2);
  }
  process.stdout.write(`${JSON.stringify(summarizeHeap(file))}\n`);
}
