// Shared by the control-plane tests: a real Store with the default namespace, a running control
// plane with small delays (on the real clock, or on a ManualClock the test moves), bounded polling,
// and object builders.

import { Store } from '../../../../src/sim/store.ts';
import { REF } from '../../../../src/sim/resources.ts';
import type { KubeObject } from '../../../../src/sim/types.ts';
import { startControlPlane, type ControlPlane, type ControlPlaneOptions } from '../../../../src/sim/control/index.ts';
import type { ManualClock } from '../../../../src/kube/clock.ts';

export interface Cluster {
  store: Store;
  plane: ControlPlane;
  stop(): void;
}

/** With `clock`, the store's timestamps and the control plane's delays follow it (see runFor). */
export function startCluster(opts: Partial<ControlPlaneOptions> = {}, clock?: ManualClock): Cluster {
  const store = new Store(clock ? { now: () => clock.now() } : {});
  store.create(REF.namespaces, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  const plane = startControlPlane(store, {
    nodes: 3,
    zones: ['a', 'b', 'c'],
    podsPerNode: 10,
    podStartMs: 5,
    podReadyMs: 5,
    ...(clock
      ? {
          now: () => clock.now(),
          setTimer: (fn: () => void, ms: number) => clock.setTimer(fn, ms),
          clearTimer: (h: unknown) => clock.clearTimer(h),
        }
      : {}),
    ...opts,
  });
  return { store, plane, stop: () => plane.stop() };
}

/**
 * Moves a cluster started on `clock` forward by `ms`, `step` at a time, letting the control plane
 * handle what each step brought before the next one (a simulated second costs no real one).
 */
export async function runFor(c: Cluster, clock: ManualClock, ms: number, step = 10): Promise<void> {
  for (let t = 0; t < ms; t += step) {
    await clock.advance(Math.min(step, ms - t));
    await c.plane.settle();
  }
}

/** Polls `check` until it returns a truthy value (returned) or `timeoutMs` passes (throws with the last value). */
export async function waitFor<T>(what: string, check: () => T, timeoutMs = 5000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = check();
      if (v) return v as NonNullable<T>;
      last = v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${what}; last: ${last instanceof Error ? last.message : JSON.stringify(last)}`,
      );
    await new Promise((r) => setTimeout(r, 10));
  }
}

export function replicaSet(
  name: string,
  replicas: number,
  opts: { annotations?: Record<string, string>; minReadySeconds?: number; labels?: Record<string, string> } = {},
): KubeObject {
  const labels = opts.labels ?? { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name, namespace: 'default', labels },
    spec: {
      replicas,
      ...(opts.minReadySeconds ? { minReadySeconds: opts.minReadySeconds } : {}),
      selector: { matchLabels: labels },
      template: {
        metadata: { labels, ...(opts.annotations ? { annotations: opts.annotations } : {}) },
        spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
      },
    },
  };
}

export function podsOf(store: Store, selector: string): KubeObject[] {
  return store.list(REF.pods, 'default', { labelSelector: selector }).items;
}

export function statusOf(obj: KubeObject | undefined): Record<string, any> {
  return (obj?.status as Record<string, any> | undefined) ?? {};
}

export function isReady(pod: KubeObject): boolean {
  return (statusOf(pod).conditions ?? []).some(
    (c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True',
  );
}

const T0 = Date.parse('2026-01-01T00:00:00Z');

/** Seconds after a fixed epoch, as ms (the tables' clock). */
export function at(seconds: number): number {
  return T0 + seconds * 1000;
}

export function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A pod as the tables describe it. */
export function pod(
  name: string,
  o: {
    node?: string;
    phase?: string;
    ready?: boolean;
    readySince?: number;
    created?: number;
    restarts?: number;
    cost?: number;
    labels?: Record<string, string>;
    deleting?: boolean;
    owner?: string;
    uid?: string;
  } = {},
): KubeObject {
  const conditions =
    o.ready === undefined
      ? []
      : [{ type: 'Ready', status: o.ready ? 'True' : 'False', lastTransitionTime: iso(o.readySince ?? at(0)) }];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'default',
      uid: o.uid ?? `uid-${name}`,
      labels: o.labels ?? { app: 'web' },
      creationTimestamp: iso(o.created ?? at(0)),
      ...(o.cost !== undefined
        ? { annotations: { 'controller.kubernetes.io/pod-deletion-cost': String(o.cost) } }
        : {}),
      ...(o.deleting ? { deletionTimestamp: iso(at(0)) } : {}),
      ...(o.owner
        ? {
            ownerReferences: [
              { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: o.owner, controller: true },
            ],
          }
        : {}),
    },
    spec: { ...(o.node ? { nodeName: o.node } : {}), containers: [{ name: 'app', image: 'nginx' }] },
    status: {
      phase: o.phase ?? 'Running',
      conditions,
      containerStatuses: [{ name: 'app', restartCount: o.restarts ?? 0 }],
    },
  };
}
