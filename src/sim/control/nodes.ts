// Node lifecycle: the simulated cluster's nodes (node-1 … node-N spread over the zones), the
// status their kubelets post (registration, Ready), NotReady through the `sim.pacer.dev/not-ready`
// annotation (as if the kubelet stopped posting), and the cordon helpers kubectl mirrors.

import { REF } from '../resources.ts';
import { KUBE_VERSION } from '../version.ts';
import { ApiError, type KubeObject, type StoreApi } from '../types.ts';
import { keys, type ControlConfig, type ControlContext } from './context.ts';
import { ANN_NODE_NOT_READY, LABEL_HOSTNAME, LABEL_ZONE, annotationTrue, findCondition, isoTime } from './util.ts';

const ACTOR = 'sim/node-lifecycle';
export const KUBELET_VERSION = KUBE_VERSION.gitVersion;

/** Reason and message the node lifecycle controller uses when a kubelet stops posting status. */
export const NODE_UNKNOWN_REASON = 'NodeStatusUnknown';
export const NODE_UNKNOWN_MESSAGE = 'Kubelet stopped posting node status.';

export function nodeName(i: number): string {
  return `node-${i}`;
}

/** Zone of the i-th node (1-based): round robin over the zones. */
export function zoneOf(i: number, zones: string[]): string {
  return zones.length === 0 ? '' : zones[(i - 1) % zones.length];
}

/** A node can run pods when its kubelet reports Ready and it is not marked NotReady by annotation. */
export function isNodeReady(node: KubeObject): boolean {
  if (annotationTrue(node, ANN_NODE_NOT_READY)) return false;
  return findCondition(node, 'Ready')?.status === 'True';
}

export function isCordoned(node: KubeObject): boolean {
  return (node.spec as { unschedulable?: boolean } | undefined)?.unschedulable === true;
}

/** How many pods the node takes: status.allocatable.pods, else capacity.pods, else the default. */
export function podCapacity(node: KubeObject, fallback: number): number {
  const st = (node.status as Record<string, any> | undefined) ?? {};
  for (const v of [st.allocatable?.pods, st.capacity?.pods]) {
    if (v === undefined) continue;
    const n = Number.parseInt(String(v), 10);
    if (Number.isFinite(n)) return n;
  }
  return fallback;
}

export function nodeInternalIP(node: KubeObject): string | undefined {
  const addrs = (node.status as { addresses?: Array<{ type: string; address: string }> } | undefined)?.addresses;
  return addrs?.find((a) => a.type === 'InternalIP')?.address;
}

function readyCondition(ready: boolean, nowIso: string): Record<string, unknown> {
  return ready
    ? {
        type: 'Ready',
        status: 'True',
        lastHeartbeatTime: nowIso,
        lastTransitionTime: nowIso,
        reason: 'KubeletReady',
        message: 'kubelet is posting ready status',
      }
    : {
        type: 'Ready',
        status: 'Unknown',
        lastHeartbeatTime: nowIso,
        lastTransitionTime: nowIso,
        reason: NODE_UNKNOWN_REASON,
        message: NODE_UNKNOWN_MESSAGE,
      };
}

/** The status a freshly registered kubelet posts. */
export function registeredNodeStatus(
  name: string,
  ip: string,
  podsPerNode: number,
  ready: boolean,
  now: number,
): Record<string, unknown> {
  const t = isoTime(now);
  const resources = { cpu: '4', memory: '16Gi', 'ephemeral-storage': '100Gi', pods: String(podsPerNode) };
  const pressure = (type: string, reason: string, message: string) => ({
    type,
    status: 'False',
    lastHeartbeatTime: t,
    lastTransitionTime: t,
    reason,
    message,
  });
  return {
    capacity: { ...resources },
    allocatable: { ...resources },
    conditions: [
      pressure('MemoryPressure', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
      pressure('DiskPressure', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
      pressure('PIDPressure', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
      readyCondition(ready, t),
    ],
    addresses: [
      { type: 'InternalIP', address: ip },
      { type: 'Hostname', address: name },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: {
      machineID: name,
      systemUUID: name,
      bootID: name,
      kernelVersion: '6.1.0-sim',
      osImage: 'Pacer simulated node',
      containerRuntimeVersion: 'containerd://1.7.24',
      kubeletVersion: KUBELET_VERSION,
      kubeProxyVersion: KUBELET_VERSION,
      operatingSystem: 'linux',
      architecture: 'amd64',
    },
  };
}

/** Creates node-1 … node-N (the ones that do not exist yet) with zone and hostname labels. */
export function createNodes(store: StoreApi, config: ControlConfig, now: number): void {
  for (let i = 1; i <= config.nodes; i++) {
    const name = nodeName(i);
    if (store.get(REF.nodes, undefined, name)) continue;
    const labels: Record<string, string> = {
      [LABEL_HOSTNAME]: name,
      'kubernetes.io/os': 'linux',
      'kubernetes.io/arch': 'amd64',
    };
    const zone = zoneOf(i, config.zones);
    if (zone) labels[LABEL_ZONE] = zone;
    store.create(
      REF.nodes,
      undefined,
      { apiVersion: 'v1', kind: 'Node', metadata: { name, labels }, spec: {} },
      { actor: ACTOR },
    );
    store.mutate(
      REF.nodes,
      undefined,
      name,
      (n) => {
        n.status = registeredNodeStatus(
          name,
          nodeIP(i),
          config.podsPerNode,
          !annotationTrue(n, ANN_NODE_NOT_READY),
          now,
        );
        return n;
      },
      { subresource: 'status', actor: ACTOR },
    );
  }
}

function nodeIP(ordinal: number): string {
  return `10.0.${Math.floor(ordinal / 250)}.${(ordinal % 250) + 2}`;
}

/**
 * One node's lifecycle pass: a node without status (created through the API) is registered by
 * its kubelet; the not-ready annotation turns Ready to Unknown and its removal turns it back.
 * A Ready condition set through the API by someone else is left alone.
 */
export function syncNode(ctx: ControlContext, name: string): void {
  const node = ctx.cache.nodes.get(undefined, name);
  for (const key of ctx.cache.podsByNode.get(name) ?? []) {
    const i = key.indexOf('/');
    ctx.enqueue(keys.kubelet(key.slice(0, i), key.slice(i + 1)));
  }
  ctx.enqueue(keys.scheduler);
  if (!node) return;
  const wantReady = !annotationTrue(node, ANN_NODE_NOT_READY);
  const ready = findCondition(node, 'Ready');
  const now = ctx.now();
  let next: ((n: KubeObject) => KubeObject | undefined) | undefined;
  if (!ready) {
    const used = new Set(ctx.cache.nodes.all().map(nodeInternalIP));
    let ordinal = 1;
    while (used.has(nodeIP(ordinal))) ordinal++;
    next = (n) => {
      if (findCondition(n, 'Ready')) return undefined;
      n.status = {
        ...registeredNodeStatus(name, nodeIP(ordinal), ctx.config.podsPerNode, wantReady, now),
        ...(n.status ?? {}),
      };
      const st = n.status as Record<string, any>;
      if (!Array.isArray(st.conditions) || !st.conditions.some((c: { type: string }) => c.type === 'Ready')) {
        st.conditions = [
          ...(Array.isArray(st.conditions) ? st.conditions : []),
          readyCondition(wantReady, isoTime(now)),
        ];
      }
      return n;
    };
  } else if (!wantReady && ready.status === 'True') {
    next = (n) => replaceReady(n, readyCondition(false, isoTime(now)));
  } else if (wantReady && ready.status !== 'True' && ready.reason === NODE_UNKNOWN_REASON) {
    next = (n) => replaceReady(n, readyCondition(true, isoTime(now)));
  }
  if (!next) return;
  try {
    ctx.store.mutate(REF.nodes, undefined, name, next, { subresource: 'status', actor: ACTOR });
  } catch (err) {
    if (!(err instanceof ApiError && err.code === 404)) throw err;
  }
}

function replaceReady(n: KubeObject, cond: Record<string, unknown>): KubeObject {
  const st = (n.status ?? {}) as Record<string, any>;
  const list: Array<Record<string, unknown>> = Array.isArray(st.conditions) ? st.conditions : [];
  st.conditions = list.some((c) => c.type === 'Ready')
    ? list.map((c) => (c.type === 'Ready' ? cond : c))
    : [...list, cond];
  n.status = st;
  return n;
}

// ------------------------------------------------------------------------------------------------
// Helpers for tests and tools (kubectl does the same through the API)

export function cordon(store: StoreApi, name: string): KubeObject | undefined {
  return store.mutate(
    REF.nodes,
    undefined,
    name,
    (n) => {
      const spec = (n.spec ?? {}) as Record<string, unknown>;
      if (spec.unschedulable === true) return undefined;
      n.spec = { ...spec, unschedulable: true };
      return n;
    },
    { actor: 'sim/cordon' },
  );
}

export function uncordon(store: StoreApi, name: string): KubeObject | undefined {
  return store.mutate(
    REF.nodes,
    undefined,
    name,
    (n) => {
      const spec = { ...((n.spec ?? {}) as Record<string, unknown>) };
      if (spec.unschedulable !== true) return undefined;
      delete spec.unschedulable;
      n.spec = spec;
      return n;
    },
    { actor: 'sim/cordon' },
  );
}

/** Marks a node NotReady (or Ready again) through the `sim.pacer.dev/not-ready` annotation. */
export function setNodeNotReady(store: StoreApi, name: string, notReady: boolean): KubeObject | undefined {
  return store.mutate(
    REF.nodes,
    undefined,
    name,
    (n) => {
      const ann = { ...(n.metadata.annotations ?? {}) };
      if (notReady === (ann[ANN_NODE_NOT_READY] === 'true')) return undefined;
      if (notReady) ann[ANN_NODE_NOT_READY] = 'true';
      else delete ann[ANN_NODE_NOT_READY];
      n.metadata.annotations = ann;
      return n;
    },
    { actor: 'sim/node-lifecycle' },
  );
}
