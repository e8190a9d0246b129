// What a process allocates that lives until a full collection: loaded into the controller with
// `node --import` (scale.bench.ts's `--controller-node-options "--import=$PWD/bench/heapsampler.ts"`),
// it starts V8's sampling heap profiler, keeping the samples of objects a full (mark-compact)
// collection frees or that are still alive, and dropping those a young-generation collection frees
// (includeObjectsCollectedByMajorGC / ...MinorGC). At exit it writes the profile to
// $PACER_HEAPPROF (a .heapprofile, which Chrome DevTools opens; for bench/RESULTS.md its samples
// were summed by their nearest frame in src/). The figure weights what is allocated most as well as what lives longest:
// objects still young and dead when a full collection comes are freed by it, so they count too.

import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

const file = process.env.PACER_HEAPPROF;
if (!file) throw new Error('bench/heapsampler.ts: set PACER_HEAPPROF to the file to write, got nothing');

const session = new Session();
session.connect();
session.post('HeapProfiler.enable');
session.post('HeapProfiler.startSampling', {
  samplingInterval: 16384,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: false,
});

process.on('exit', () => {
  // The in-process session answers at once, so the profile is written before the process ends.
  session.post('HeapProfiler.stopSampling', (err, res) => {
    if (err) process.stderr.write(`bench/heapsampler.ts: ${err.message}\n`);
    else writeFileSync(file, JSON.stringify(res.profile));
  });
});
