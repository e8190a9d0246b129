// The chaos run at its big size (test/chaos/chaos.ts; `make chaos`): by default 200 Deployments of
// every strategy changed 10 times a second for 5 minutes under 10% API errors (500 5%, 429 3%, 409
// on writes 2%), latency up to 5 ms, watches dropped every 7 s and resourceVersions expired every
// 11 s, with the controller SIGKILLed 50 times; then the time to converge. Prints one JSON line
// (the figures bench/RESULTS.md records) and exits 1 when a promise was broken or a rollout did not
// converge. With --shards N (N > 1) the run is sharded (docs/sharding.md): --replicas (default 3)
// controller processes share N shards, the fleet spread over namespaces of every shard.
//   node bench/chaos.bench.ts [--deployments N] [--kills N] [--churn SECONDS] [--rate CHANGES_PER_S] [--seed N]
//                             [--shards N [--replicas N]]

import { runChaos } from '../test/chaos/chaos.ts';
import { numberFlag } from './flags.ts';

const started = Date.now();
const shards = numberFlag('--shards', 1, { integer: true, min: 1 });
const f = await runChaos({
  ...(shards > 1 ? { shards, replicas: numberFlag('--replicas', 3, { integer: true, min: 1 }) } : {}),
  deployments: numberFlag('--deployments', 200, { integer: true, min: 1 }),
  kills: numberFlag('--kills', 50, { integer: true }),
  churnMs: numberFlag('--churn', 300) * 1000,
  changesPerSecond: numberFlag('--rate', 10),
  seed: numberFlag('--seed', 20261124, { integer: true }),
  faults: 'error=500@0.05;error=429@0.03;error=409@0.02:verb=update|patch;latency=0ms-5ms;drop-watches=7s;expire=11s',
  convergeTimeoutMs: 600_000,
  log: (line) => process.stderr.write(`${line}\n`),
});
process.stdout.write(
  `${JSON.stringify({ bench: 'chaos', ...f, wallSeconds: Math.round((Date.now() - started) / 1000) })}\n`,
);
process.exit(f.violations.length === 0 && f.unconverged.length === 0 && f.endState.length === 0 ? 0 : 1);
