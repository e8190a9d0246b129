// The live heap per cached object, by kind: the controller's informers (kube/slim.ts's transform,
// the ReplicaSets' index by controller, as the Deployment controller adds it) filled one kind at a
// time from a running cluster, the heap measured after a full garbage collection before and after
// each. What a figure includes: the object as the cache keeps it, its key and its entries in the
// informer's maps and indexes. Run by bench/scale.bench.ts at the end of its run; also on its own:
//   node --expose-gc bench/cacheprobe.ts --kubeconfig FILE [--namespace NS] [--as kept|slim|sent]
// --as kept (the default): as the caches keep objects (kube/slim.ts cacheKeep: slimmed and interned);
// slim: slimmed only (cacheTransform, the caches before interning); sent: as the API server sends them.
// Prints one JSON line: [{ kind, objects, liveMiB, bytesPerObject }].

import { setTimeout as sleep } from 'node:timers/promises';
import { KubeClient, DEPLOYMENTS, NODES, PODS, REPLICASETS } from '../src/kube/client.ts';
import { loadKubeConfig } from '../src/kube/clientnode.ts';
import type { ResourceType } from '../src/kube/client.ts';
import { cacheKeep, cacheTransform } from '../src/kube/slim.ts';
import { Informer, kubeSource } from '../src/manager/informer.ts';
import type { ObjectWithMeta } from '../src/manager/informer.ts';
import { BY_CONTROLLER, byController } from '../src/controllers/deployment/reconciler.ts';
import { stringFlag } from './flags.ts';

export interface KindFigure {
  kind: string;
  objects: number;
  liveMiB: number;
  bytesPerObject: number;
}

const gc = (globalThis as { gc?: () => void }).gc;

async function liveHeap(): Promise<number> {
  // Twice, with a turn of the event loop between: finalizers and weak references settle.
  gc!();
  await sleep(50);
  gc!();
  return process.memoryUsage().heapUsed;
}

export type KeptAs = 'kept' | 'slim' | 'sent';
const TRANSFORMS = { kept: cacheKeep, slim: cacheTransform, sent: undefined };

async function probe(kubeconfig: string, namespace: string | undefined, as: KeptAs): Promise<KindFigure[]> {
  if (!gc) throw new Error('cacheprobe: run with node --expose-gc (globalThis.gc is not defined)');
  const client = new KubeClient(loadKubeConfig({ kubeconfig }), { userAgent: 'pacer-cache-probe' });
  const kept: Informer<ObjectWithMeta>[] = [];
  const out: KindFigure[] = [];
  const kinds: Array<[ResourceType, ((inf: Informer<ObjectWithMeta>) => void) | undefined]> = [
    [DEPLOYMENTS, undefined],
    [REPLICASETS, (inf) => inf.addIndex(BY_CONTROLLER, byController)],
    [PODS, undefined],
  ];
  // A warm-up through the same code (the nodes, dropped): what the first cache would otherwise
  // count of compiled code and the client's own buffers belongs to no kind.
  const warmUp = new Informer<ObjectWithMeta>(
    kubeSource(client, NODES, undefined, undefined, TRANSFORMS[as]?.(NODES)),
    {
      name: 'warm-up',
      resyncMs: 0,
      watchdogMs: 0,
    },
  );
  warmUp.start();
  await warmUp.waitForSync();
  await warmUp.stop();
  for (const [type, index] of kinds) {
    const before = await liveHeap();
    const inf = new Informer<ObjectWithMeta>(kubeSource(client, type, namespace, undefined, TRANSFORMS[as]?.(type)), {
      name: type.plural,
      resyncMs: 0,
      watchdogMs: 0,
    });
    index?.(inf);
    inf.start();
    await inf.waitForSync();
    await inf.stop();
    kept.push(inf);
    const after = await liveHeap();
    const objects = inf.list().length;
    out.push({
      kind: type.kind,
      objects,
      liveMiB: Math.round(((after - before) / 2 ** 20) * 10) / 10,
      bytesPerObject: objects ? Math.round((after - before) / objects) : 0,
    });
  }
  if (kept.length !== kinds.length) throw new Error('cacheprobe: an informer was lost');
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const kubeconfig = stringFlag('--kubeconfig');
  if (!kubeconfig) {
    process.stderr.write('error: --kubeconfig: expected the path of a kubeconfig file, got nothing\n');
    process.exit(2);
  }
  const as = stringFlag('--as') ?? 'kept';
  if (!(as in TRANSFORMS)) {
    process.stderr.write(`error: --as: expected kept, slim or sent, got ${JSON.stringify(as)}\n`);
    process.exit(2);
  }
  const figures = await probe(kubeconfig, stringFlag('--namespace'), as as KeptAs);
  process.stdout.write(`${JSON.stringify(figures)}\n`);
  process.exit(0);
}
