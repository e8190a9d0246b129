// The simulated control plane: nodes, and the loops a real cluster runs in kube-controller-manager,
// kube-scheduler and the kubelets, all working through the same Store as the API server. Event
// driven: every committed change updates the cache and queues the keys it concerns; timers only
// for delays (pod start and readiness, minReadySeconds, finalization, expiring disruptions).

import { selectorMatches } from '../../api/selector.ts';
import type { LabelSelector } from '../../api/types.ts';
import { BUILTIN_RESOURCES, REF, refOf } from '../resources.ts';
import { ApiError, type KubeObject, type ResourceRef, type StoreApi, type StoreEvent } from '../types.ts';
import { ClusterCache, refKey, type GcNode } from './cache.ts';
import { keys, type ControlConfig, type ControlContext } from './context.ts';
import { FOREGROUND, ORPHAN, crdRef, syncDeletingOwner, syncDependent } from './gc.ts';
import { eventRecorder, noEvents } from './events.ts';
import { KubeletState, syncPod } from './kubelet.ts';
import { createNodes, isNodeReady, syncNode } from './nodes.ts';
import { syncPdb } from './pdb.ts';
import { NODE_GROUP_LABEL, syncNodeGroup } from './nodegroups.ts';
import { syncReplicaSet } from './replicaset.ts';
import { schedulePending } from './scheduler.ts';
import { WorkQueue, type Timers } from './queue.ts';
import { realClock } from '../../kube/clock.ts';
import { jsonEqual } from '../../kube/jsonequal.ts';
import { controllerRef, isActivePod, isTerminal, nodeNameOf } from './util.ts';

export { cordon, uncordon, setNodeNotReady } from './nodes.ts';
export { evictPod } from './eviction.ts';

export interface ControlPlaneOptions {
  /** Nodes node-1 … node-N to create (existing ones are kept). */
  nodes: number;
  /** Zones the nodes are spread over, round robin (label topology.kubernetes.io/zone). */
  zones: string[];
  /** Pods a node takes (status.capacity.pods). */
  podsPerNode: number;
  /** Pending → Running delay; a pod's `sim.pacer.dev/start-delay-ms` annotation overrides it. Default 200. */
  podStartMs: number;
  /** Running → Ready delay; a pod's `sim.pacer.dev/ready-after-ms` annotation overrides it. Default 300. */
  podReadyMs: number;
  /** The clock (ms since the epoch); defaults to Date.now. */
  now?: () => number;
  /** Timers for delays; default setTimeout/clearTimeout (unref'd). */
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
  /** Random numbers in [0, 1) for generated pod names; default Math.random. */
  random?: () => number;
  /** Record core/v1 Events (SuccessfulCreate, Scheduled, FailedScheduling, ...); default true. */
  events?: boolean;
  /** Called when a loop fails on a key (it is retried with backoff); default: unexpected errors go to stderr. */
  onError?: (key: string, err: unknown) => void;
}

export interface ControlPlane {
  stop(): void;
  /** Resolves once every queued key has been handled (delayed keys do not count). */
  settle(): Promise<void>;
}

export const DEFAULT_POD_START_MS = 200;
export const DEFAULT_POD_READY_MS = 300;

function defaultOnError(key: string, err: unknown): void {
  // Conflicts and vanished objects are normal races; anything else is worth seeing.
  if (err instanceof ApiError && (err.code === 404 || err.code === 409)) return;
  process.stderr.write(
    `sim control plane: ${key}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
}

function splitKey(rest: string): [string, string] {
  const i = rest.indexOf('/');
  return [rest.slice(0, i), rest.slice(i + 1)];
}

class Runner {
  readonly cache = new ClusterCache();
  readonly kubelet = new KubeletState();
  readonly queue: WorkQueue;
  readonly ctx: ControlContext;
  private readonly store: StoreApi;
  private unsubscribe?: () => void;

  constructor(store: StoreApi, opts: ControlPlaneOptions) {
    this.store = store;
    const timers: Timers = {
      now: opts.now ?? realClock.now,
      setTimer: opts.setTimer ?? realClock.setTimer,
      clearTimer: opts.clearTimer ?? realClock.clearTimer,
    };
    this.queue = new WorkQueue((k) => this.handle(k), timers, opts.onError ?? defaultOnError);
    const config: ControlConfig = {
      nodes: opts.nodes,
      zones: opts.zones,
      podsPerNode: opts.podsPerNode,
      podStartMs: opts.podStartMs ?? DEFAULT_POD_START_MS,
      podReadyMs: opts.podReadyMs ?? DEFAULT_POD_READY_MS,
    };
    const random = opts.random ?? Math.random;
    this.ctx = {
      store,
      cache: this.cache,
      config,
      now: timers.now,
      random,
      events: opts.events === false ? noEvents : eventRecorder(store, timers.now),
      enqueue: (k) => this.queue.add(k),
      wakeAt: (k, at) => this.queue.addAt(k, at),
    };
  }

  start(): void {
    // Read-only: the cache keeps the stored, frozen objects (no copy per event); loops change
    // objects only through store.mutate, which hands them a copy.
    this.unsubscribe = this.store.subscribe((e) => this.onEvent(e), { readonly: true });
    this.initialList();
    createNodes(this.store, this.ctx.config, this.ctx.now());
    this.queue.add(keys.scheduler);
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.queue.stop();
  }

  /** Fills the cache from what the store already holds and queues every object once. */
  private initialList(): void {
    const refs: ResourceRef[] = BUILTIN_RESOURCES.map(refOf).filter((r) => r.resource !== 'events');
    for (const crd of this.store.list(REF.customresourcedefinitions, undefined).items) {
      const r = crdRef(crd);
      if (r) refs.push(r);
    }
    const rv = this.store.currentResourceVersion();
    for (const ref of refs) {
      let items: KubeObject[];
      try {
        items = this.store.list(ref, undefined).items;
      } catch {
        continue; // a CRD not established yet
      }
      for (const object of items) this.onEvent({ type: 'ADDED', ref, object, resourceVersion: rv });
    }
  }

  private handle(key: string): void {
    const slash = key.indexOf('/');
    const kind = slash < 0 ? key : key.slice(0, slash);
    const rest = slash < 0 ? '' : key.slice(slash + 1);
    switch (kind) {
      case 'rs':
        syncReplicaSet(this.ctx, ...splitKey(rest));
        return;
      case 'sched':
        schedulePending(this.ctx);
        return;
      case 'pod':
        syncPod(this.ctx, this.kubelet, ...splitKey(rest));
        return;
      case 'node':
        syncNode(this.ctx, rest);
        return;
      case 'pdb':
        syncPdb(this.ctx, ...splitKey(rest));
        return;
      case 'gc':
        syncDependent(this.ctx, rest);
        return;
      case 'gcowner':
        syncDeletingOwner(this.ctx, rest);
        return;
      case 'ng':
        syncNodeGroup(this.ctx, rest);
        return;
    }
  }

  // ----------------------------------------------------------------------------------------------
  // From a change to the keys it concerns

  private onEvent(e: StoreEvent): void {
    const uid = e.object.metadata.uid;
    const prevGc = uid ? this.cache.gcNodes.get(uid) : undefined;
    const old = this.cache.apply(e);
    const obj = e.object;
    const deleted = e.type === 'DELETED';
    switch (refKey(e.ref)) {
      case '/pods':
        this.onPod(deleted, old, obj);
        break;
      case 'apps/replicasets':
        this.onReplicaSet(deleted, old, obj);
        break;
      case '/nodes':
        this.onNode(deleted, old, obj);
        break;
      case 'policy/poddisruptionbudgets':
        if (!deleted) this.queue.add(keys.pdb(obj.metadata.namespace ?? '', obj.metadata.name ?? ''));
        break;
      case 'sim.pacer.dev/nodegroups':
        if (!deleted) this.queue.add(keys.nodeGroup(obj.metadata.name ?? ''));
        break;
    }
    if (refKey(e.ref) !== '/events') this.onGraphChange(deleted, prevGc, obj);
  }

  private onPod(deleted: boolean, old: KubeObject | undefined, pod: KubeObject): void {
    const ns = pod.metadata.namespace ?? '';
    const name = pod.metadata.name ?? '';
    const node = nodeNameOf(pod) || (old ? nodeNameOf(old) : '');
    if (deleted) this.kubelet.forget(pod.metadata.uid);
    else if (node) this.queue.add(keys.kubelet(ns, name));
    // The scheduler: a new unscheduled pod, or a slot freed while pods wait.
    if (!deleted && !nodeNameOf(pod) && isActivePod(pod)) this.queue.add(keys.scheduler);
    else if (this.cache.unscheduled.size > 0 && node && (deleted || (isTerminal(pod) && !(old && isTerminal(old))))) {
      this.queue.add(keys.scheduler);
    }
    // ReplicaSets: the controller (old and new), or those whose selector may adopt an orphan.
    for (const p of old ? [old, pod] : [pod]) {
      const c = controllerRef(p);
      if (c?.kind === 'ReplicaSet') this.queue.add(keys.replicaSet(ns, c.name));
      else if (!c && !deleted && isActivePod(p)) {
        for (const rs of this.cache.replicasets.inNamespace(ns)) {
          if (selectorMatches((rs.spec as { selector?: LabelSelector } | undefined)?.selector, p.metadata.labels)) {
            this.queue.add(keys.replicaSet(ns, rs.metadata.name ?? ''));
          }
        }
      }
    }
    // Budgets over this pod.
    if (this.cache.pdbs.countIn(ns) > 0) {
      for (const pdb of this.cache.pdbs.inNamespace(ns)) {
        const sel = (pdb.spec as { selector?: LabelSelector } | undefined)?.selector;
        if (selectorMatches(sel, pod.metadata.labels) || (old && selectorMatches(sel, old.metadata.labels))) {
          this.queue.add(keys.pdb(ns, pdb.metadata.name ?? ''));
        }
      }
    }
  }

  private onReplicaSet(deleted: boolean, old: KubeObject | undefined, rs: KubeObject): void {
    const ns = rs.metadata.namespace ?? '';
    if (!deleted) this.queue.add(keys.replicaSet(ns, rs.metadata.name ?? ''));
    // Budgets count the controllers' scale.
    const replicas = (o: KubeObject | undefined) => (o?.spec as { replicas?: number } | undefined)?.replicas;
    if ((deleted || replicas(old) !== replicas(rs)) && this.cache.pdbs.countIn(ns) > 0) {
      for (const pdb of this.cache.pdbs.inNamespace(ns)) this.queue.add(keys.pdb(ns, pdb.metadata.name ?? ''));
    }
  }

  private onNode(deleted: boolean, old: KubeObject | undefined, node: KubeObject): void {
    const name = node.metadata.name ?? '';
    const changed =
      deleted ||
      !old ||
      isNodeReady(old) !== isNodeReady(node) ||
      !jsonEqual(old.spec, node.spec) ||
      !jsonEqual(old.metadata.annotations, node.metadata.annotations) ||
      !jsonEqual(old.metadata.labels, node.metadata.labels) ||
      !jsonEqual((old.status as any)?.allocatable, (node.status as any)?.allocatable);
    if (changed || !(node.status as any)?.conditions) this.queue.add(keys.node(name));
    // Its group counts its members.
    const group = node.metadata.labels?.[NODE_GROUP_LABEL];
    if (group && changed) this.queue.add(keys.nodeGroup(group));
  }

  private onGraphChange(deleted: boolean, prev: GcNode | undefined, obj: KubeObject): void {
    const uid = obj.metadata.uid;
    if (!uid) return;
    const cur = deleted ? undefined : this.cache.gcNodes.get(uid);
    if (deleted) {
      // Its dependents may have lost their last owner.
      for (const d of this.cache.dependents.get(uid) ?? []) this.queue.add(keys.gcDependent(d));
    } else if (
      cur &&
      cur.owners.length > 0 &&
      (!prev || !jsonEqual(prev.owners, cur.owners) || prev.deleting !== cur.deleting)
    ) {
      this.queue.add(keys.gcDependent(uid));
    }
    // Owners that wait for dependents, and the ones this object stopped pointing at.
    const owners = new Set<string>([...(prev?.owners ?? []), ...(cur?.owners ?? [])].map((o) => o.uid));
    for (const o of owners) {
      const owner = this.cache.gcNodes.get(o);
      if (owner?.deleting && (owner.finalizers.includes(FOREGROUND) || owner.finalizers.includes(ORPHAN))) {
        this.queue.add(keys.gcOwner(o));
      }
    }
    if (cur?.deleting && (cur.finalizers.includes(FOREGROUND) || cur.finalizers.includes(ORPHAN))) {
      this.queue.add(keys.gcOwner(uid));
      // Its dependents are deleted in turn.
      for (const d of this.cache.dependents.get(uid) ?? []) this.queue.add(keys.gcDependent(d));
    }
  }
}

/** Starts the simulated control plane on `store`; stop() ends every loop and timer. */
export function startControlPlane(store: StoreApi, opts: ControlPlaneOptions): ControlPlane {
  const runner = new Runner(store, opts);
  runner.start();
  return {
    stop: () => runner.stop(),
    settle: async () => {
      for (let i = 0; i < 1000; i++) {
        await runner.queue.idle();
        await new Promise((r) => setImmediate(r));
        if (runner.queue.size === 0) return;
      }
    },
  };
}
