// The simulated kubelets: a pod bound to a node goes Pending (ContainerCreating) → Running after
// the start delay → Ready after the ready delay, with the conditions, IPs and container statuses a
// real kubelet posts. Pod annotations inject behaviour (never-ready, crash-loop, per-pod delays).
// A pod being deleted stops as a real one does: its containers take their own time to stop
// (sim.pacer.dev/stop-after-ms, default 100 ms), and no longer than its grace period, when the
// kubelet kills them; then it is finalized. Pods on a NotReady node turn not Ready;
// pods on a node that no longer exists are force-deleted (the pod garbage collector's job).

import { jsonEqual } from '../../kube/jsonequal.ts';
import { REF } from '../resources.ts';
import { ApiError, type KubeObject } from '../types.ts';
import { keys, mutateSamePod, type ControlContext } from './context.ts';
import { isNodeReady, nodeInternalIP } from './nodes.ts';
import {
  ANN_CRASH_LOOP,
  ANN_NEVER_READY,
  ANN_READY_AFTER,
  ANN_START_DELAY,
  ANN_STOP_AFTER,
  annotationMs,
  annotationTrue,
  isDeleting,
  isPodReady,
  isTerminal,
  isoTime,
  nodeNameOf,
  phaseOf,
  podSpec,
  podStatus,
  setCondition,
  type Condition,
} from './util.ts';

const ACTOR = 'sim/kubelet';
/** How long a pod's containers take to stop after a deletion unless its annotation says otherwise (quick, so tests stay fast). */
export const DEFAULT_STOP_MS = 100;
/** A crash-looping container restarts about once a second. */
export const CRASH_PERIOD_MS = 1000;

/** What the kubelet remembers about a pod it runs (by uid). */
export interface PodTimeline {
  /** When the kubelet first saw the pod bound to its node. */
  boundAt: number;
  podIP: string;
  /** When the kubelet first saw the pod's deletion. */
  deletingSince?: number;
}

export interface KubeletBehaviour {
  startDelayMs: number;
  readyAfterMs: number;
  neverReady: boolean;
  crashLoop: boolean;
}

export function behaviourOf(pod: KubeObject, defaults: { podStartMs: number; podReadyMs: number }): KubeletBehaviour {
  return {
    startDelayMs: annotationMs(pod, ANN_START_DELAY) ?? defaults.podStartMs,
    readyAfterMs: annotationMs(pod, ANN_READY_AFTER) ?? defaults.podReadyMs,
    neverReady: annotationTrue(pod, ANN_NEVER_READY),
    crashLoop: annotationTrue(pod, ANN_CRASH_LOOP),
  };
}

interface Container {
  name: string;
  image?: string;
  resources?: { requests?: object; limits?: object };
}

function containersOf(pod: KubeObject): Container[] {
  const c = podSpec(pod).containers;
  return Array.isArray(c) ? (c as Container[]) : [];
}

function qosClass(containers: Container[]): string {
  const has = (o: object | undefined) => !!o && Object.keys(o).length > 0;
  return containers.some((c) => has(c.resources?.requests) || has(c.resources?.limits)) ? 'Burstable' : 'BestEffort';
}

export interface KubeletView {
  status: Record<string, unknown>;
  /** When the status changes next by the clock alone. */
  nextAt?: number;
}

/**
 * The status the kubelet posts for `pod` at `now`, given when it was bound and how it behaves.
 * Conditions keep their lastTransitionTime while their status holds.
 */
export function kubeletStatus(
  pod: KubeObject,
  t: PodTimeline,
  b: KubeletBehaviour,
  hostIP: string,
  now: number,
): KubeletView {
  const old = podStatus(pod);
  const startAt = t.boundAt + b.startDelayMs;
  const readyAt = startAt + b.readyAfterMs;
  const started = now >= startAt;
  const restarts = b.crashLoop && started ? Math.floor((now - startAt) / CRASH_PERIOD_MS) : 0;
  const ready = started && !b.neverReady && !b.crashLoop && now >= readyAt;
  const containers = containersOf(pod);
  let nextAt: number | undefined;
  if (!started) nextAt = startAt;
  else if (b.crashLoop) nextAt = startAt + (restarts + 1) * CRASH_PERIOD_MS;
  else if (!ready && !b.neverReady) nextAt = readyAt;

  const uid = pod.metadata.uid ?? '';
  const containerStatuses = containers.map((c, i) => {
    const base = {
      name: c.name,
      image: c.image ?? '',
      imageID: started ? `sim.pacer.dev/${c.image ?? ''}@sha256:${'0'.repeat(64)}` : '',
      ...(started ? { containerID: `containerd://${uid.replace(/-/g, '')}${i}` } : {}),
      ready: ready,
      restartCount: restarts,
      started: started && restarts === 0,
    };
    if (!started) return { ...base, state: { waiting: { reason: 'ContainerCreating' } }, lastState: {} };
    if (restarts === 0) return { ...base, state: { running: { startedAt: isoTime(startAt) } }, lastState: {} };
    const lastStart = startAt + (restarts - 1) * CRASH_PERIOD_MS;
    return {
      ...base,
      state: {
        waiting: {
          reason: 'CrashLoopBackOff',
          message: `back-off 10s restarting failed container=${c.name} pod=${pod.metadata.name}_${pod.metadata.namespace}(${uid})`,
        },
      },
      lastState: {
        terminated: {
          exitCode: 1,
          reason: 'Error',
          startedAt: isoTime(lastStart),
          finishedAt: isoTime(lastStart + CRASH_PERIOD_MS / 2),
          containerID: base.containerID,
        },
      },
    };
  });

  const unready = containers.filter(() => !ready).map((c) => c.name);
  const nowIso = isoTime(now);
  const notReadyFields = {
    reason: 'ContainersNotReady',
    message: `containers with unready status: [${unready.join(' ')}]`,
  };
  let conditions: Condition[] = Array.isArray(old.conditions) ? old.conditions : [];
  const set = (c: Condition) => {
    conditions = setCondition(conditions, { ...c, lastProbeTime: null, lastTransitionTime: nowIso });
  };
  set({ type: 'PodReadyToStartContainers', status: 'True' });
  set({ type: 'Initialized', status: 'True' });
  set(ready ? { type: 'Ready', status: 'True' } : { type: 'Ready', status: 'False', ...notReadyFields });
  set(
    ready
      ? { type: 'ContainersReady', status: 'True' }
      : { type: 'ContainersReady', status: 'False', ...notReadyFields },
  );
  set({ type: 'PodScheduled', status: 'True' });
  conditions = orderConditions(conditions);

  const status: Record<string, unknown> = {
    ...old,
    phase: started ? 'Running' : 'Pending',
    conditions,
    hostIP,
    hostIPs: [{ ip: hostIP }],
    podIP: t.podIP,
    podIPs: [{ ip: t.podIP }],
    startTime: isoTime(t.boundAt),
    containerStatuses,
    qosClass: qosClass(containers),
  };
  return { status, nextAt };
}

const CONDITION_ORDER = ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'];

function orderConditions<C extends { type: string }>(list: C[]): C[] {
  const rank = (c: C) => {
    const i = CONDITION_ORDER.indexOf(c.type);
    return i < 0 ? CONDITION_ORDER.length : i;
  };
  return [...list].sort((a, b) => rank(a) - rank(b));
}

/** The pod as the node lifecycle controller leaves it when its node is NotReady: Ready=False. */
export function notReadyOnNode(pod: KubeObject, now: number): Record<string, unknown> | undefined {
  const st = podStatus(pod);
  const list: Array<Record<string, any>> = Array.isArray(st.conditions) ? st.conditions : [];
  const ready = list.find((c) => c.type === 'Ready');
  if (!ready || ready.status === 'False') return undefined;
  return {
    ...st,
    conditions: list.map((c) => (c.type === 'Ready' ? { ...c, status: 'False', lastTransitionTime: isoTime(now) } : c)),
  };
}

// ------------------------------------------------------------------------------------------------

/** The kubelet's memory of the pods it runs, by uid. */
export class KubeletState {
  readonly pods = new Map<string, PodTimeline>();
  private ipCounter = 0;

  forget(uid: string | undefined): void {
    if (uid) this.pods.delete(uid);
  }

  timeline(pod: KubeObject, now: number, b: KubeletBehaviour): PodTimeline {
    const uid = pod.metadata.uid ?? '';
    let t = this.pods.get(uid);
    if (!t) {
      const st = podStatus(pod);
      // A pod that already runs (the control plane restarted) keeps its progress.
      let boundAt = now;
      if (isPodReady(pod)) boundAt = now - b.startDelayMs - b.readyAfterMs;
      else if (phaseOf(pod) === 'Running') boundAt = now - b.startDelayMs;
      const podIP = typeof st.podIP === 'string' && st.podIP ? st.podIP : this.nextIP();
      t = { boundAt, podIP };
      this.pods.set(uid, t);
    }
    return t;
  }

  private nextIP(): string {
    const c = this.ipCounter++;
    const block = Math.floor(c / (254 * 256));
    const third = Math.floor(c / 254) % 256;
    return `10.${244 + (block % 12)}.${third}.${(c % 254) + 1}`;
  }
}

/** How long a deleted pod takes to stop: its containers' own time, cut short when its grace period ends. */
export function stopDelayMs(pod: KubeObject): number {
  const grace = pod.metadata.deletionGracePeriodSeconds;
  const stop = annotationMs(pod, ANN_STOP_AFTER) ?? DEFAULT_STOP_MS;
  return typeof grace === 'number' ? Math.min(stop, grace * 1000) : stop;
}

function forceDelete(ctx: ControlContext, pod: KubeObject): void {
  try {
    ctx.store.delete(REF.pods, pod.metadata.namespace, pod.metadata.name ?? '', {
      gracePeriodSeconds: 0,
      preconditions: { uid: pod.metadata.uid },
      actor: ACTOR,
    });
  } catch (err) {
    if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) throw err;
  }
}

function writeStatus(
  ctx: ControlContext,
  pod: KubeObject,
  compute: (p: KubeObject) => Record<string, unknown> | undefined,
): void {
  mutateSamePod(
    ctx,
    pod,
    (p) => {
      const next = compute(p);
      if (!next || jsonEqual(next, p.status ?? {})) return undefined;
      p.status = next;
      return p;
    },
    { subresource: 'status', actor: ACTOR },
  );
}

export function syncPod(ctx: ControlContext, state: KubeletState, namespace: string, name: string): void {
  const pod = ctx.cache.pods.get(namespace, name);
  if (!pod) return;
  const nodeName = nodeNameOf(pod);
  if (!nodeName) return;
  const node = ctx.cache.nodes.get(undefined, nodeName);
  const now = ctx.now();
  const key = keys.kubelet(namespace, name);
  if (!node) {
    // The node is gone: the pod garbage collector force-deletes what was bound to it.
    state.forget(pod.metadata.uid);
    forceDelete(ctx, pod);
    return;
  }
  const nodeReady = isNodeReady(node);
  if (isDeleting(pod)) {
    // A kubelet that is down cannot confirm the deletion: the pod stays Terminating.
    if (!nodeReady) {
      writeStatus(ctx, pod, (p) => notReadyOnNode(p, now));
      return;
    }
    const t = state.timeline(pod, now, behaviourOf(pod, ctx.config));
    t.deletingSince ??= now;
    const delay = stopDelayMs(pod);
    if (now >= t.deletingSince + delay) {
      state.forget(pod.metadata.uid);
      forceDelete(ctx, pod);
    } else {
      ctx.wakeAt(key, t.deletingSince + delay);
    }
    return;
  }
  if (isTerminal(pod)) return;
  if (!nodeReady) {
    writeStatus(ctx, pod, (p) => notReadyOnNode(p, now));
    return;
  }
  const b = behaviourOf(pod, ctx.config);
  const t = state.timeline(pod, now, b);
  const hostIP = nodeInternalIP(node) ?? '10.0.0.1';
  let nextAt: number | undefined;
  writeStatus(ctx, pod, (p) => {
    const view = kubeletStatus(p, t, behaviourOf(p, ctx.config), hostIP, now);
    nextAt = view.nextAt;
    return view.status;
  });
  if (nextAt === undefined) nextAt = kubeletStatus(pod, t, b, hostIP, now).nextAt;
  if (nextAt !== undefined) ctx.wakeAt(key, nextAt);
}
