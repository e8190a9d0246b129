// One informer resync over a large cache: how long the event loop is held. An Informer on a manual
// clock is filled with --objects pod-like objects (each with a controlling ReplicaSet, a phase and a
// container status), --handlers update handlers are attached (each compares the phase and looks the
// owner up in a Set: about what the Deployment controller's pod handlers do on a resync), and the
// clock is moved past the resync period. Reported: the resync's time from the period's end to its
// last delivery, and the event loop's longest delay and p99 meanwhile (perf_hooks, 1 ms
// resolution), after a full collection of the fill's garbage. The simulated API server is not
// involved. --handler-us makes each handler's delivery also spin that many microseconds, to stand
// for handlers that cost more (the resync's pieces are bounded by time, not by count).
// Prints one JSON line.
//   node bench/resync.bench.ts [--objects 100000] [--handlers 3] [--handler-us 0]

import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { WatchEvent } from '../src/kube/client.ts';
import { ManualClock, settle } from '../src/kube/clock.ts';
import { Informer } from '../src/manager/informer.ts';
import type { ListWatchSource } from '../src/manager/informer.ts';
import { numberFlag } from './flags.ts';

const OBJECTS = numberFlag('--objects', 100_000, { integer: true, min: 1 });
const HANDLERS = numberFlag('--handlers', 3, { integer: true, min: 1 });
const HANDLER_US = numberFlag('--handler-us', 0, { min: 0 });

interface PodLike {
  metadata: {
    name: string;
    namespace: string;
    resourceVersion: string;
    uid: string;
    ownerReferences: Array<{ apiVersion: string; kind: string; name: string; uid: string; controller: boolean }>;
  };
  status: { phase: string; containerStatuses: Array<{ name: string; ready: boolean; restartCount: number }> };
}

const pods: PodLike[] = Array.from({ length: OBJECTS }, (_, i) => ({
  metadata: {
    name: `p${i}`,
    namespace: `ns${i % 30}`,
    resourceVersion: String(i + 1),
    uid: `pod-${i}`,
    ownerReferences: [
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `rs${i % 10_000}`, uid: `rs-${i % 10_000}`, controller: true },
    ],
  },
  status: { phase: 'Running', containerStatuses: [{ name: 'app', ready: true, restartCount: 0 }] },
}));

/** Lists the pods once; its watch stays open and silent until the informer stops. */
const source: ListWatchSource<PodLike> = {
  list: async () => ({ items: pods, resourceVersion: String(OBJECTS) }),
  watch: (_rv: string, _onEvent: (e: WatchEvent<PodLike>) => void, signal: AbortSignal) =>
    new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve())),
};

const clock = new ManualClock(Date.now());
const informer = new Informer<PodLike>(source, { name: 'pods', clock, watchdogMs: 0 });
const changedOwners = new Set<string>();
let delivered = 0;
for (let h = 0; h < HANDLERS; h++)
  informer.on({
    update: (old, pod) => {
      delivered++;
      const owner = pod.metadata.ownerReferences.find((r) => r.controller)?.uid;
      if (owner !== undefined && old.status.phase !== pod.status.phase) changedOwners.add(owner);
      if (HANDLER_US > 0) for (const until = performance.now() + HANDLER_US / 1000; performance.now() < until; );
    },
  });
informer.start();
await clock.advance(0);
while (informer.list().length < OBJECTS) await settle();
// The fill's garbage collected first, so that the window below holds the resync's own work.
setFlagsFromString('--expose-gc');
(runInNewContext('gc') as () => void)();

const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
const started = performance.now();
await clock.advance(11 * 60_000); // past the 10-minute period and its jitter
while (delivered < OBJECTS * HANDLERS) await settle();
const resyncMs = performance.now() - started;
await new Promise((r) => setTimeout(r, 20));
delay.disable();
await informer.stop();

process.stdout.write(
  `${JSON.stringify({
    bench: 'resync',
    objects: OBJECTS,
    handlers: HANDLERS,
    handlerUs: HANDLER_US,
    resyncMs: Number(resyncMs.toFixed(1)),
    loopDelayMaxMs: Number((delay.max / 1e6).toFixed(1)),
    loopDelayP99Ms: Number((delay.percentile(99) / 1e6).toFixed(1)),
  })}\n`,
);
