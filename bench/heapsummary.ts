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
  nodes: number[];
  strings: string[];
}

export function summarizeHeap(file: string, parts = 8): HeapSummary {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
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
  const top = Object.fromEntries([...bySort].sort((a, b) => b[1] - a[1]).slice(0, parts).map(([k, v]) => [k, mib(v)]));
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
