// What the node roller reads of the cluster (docs/semantics/node-roll.md): a node's name and
// readiness, and which pods a drain evicts and waits for. A drain leaves DaemonSet pods, mirror pods
// and finished pods alone; it waits for every other pod being deleted from its node (#graceful-drains).

import type { RollNode, RollPod } from './types.ts';

export const nameOf = (x: { metadata: { name?: string } }) => x.metadata.name ?? '';

export function isReady(n: RollNode): boolean {
  return n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
}

/** A pod a drain leaves alone: DaemonSet-managed (its controller puts it back), a mirror pod, or finished. */
const drainIgnores = (p: RollPod) =>
  p.status?.phase === 'Succeeded' ||
  p.status?.phase === 'Failed' ||
  p.metadata.ownerReferences?.some((r) => r.controller && r.kind === 'DaemonSet') === true ||
  p.metadata.annotations?.['kubernetes.io/config.mirror'] !== undefined;

/** The pods a drain evicts: not DaemonSet-managed, not mirror pods, not finished, not already going. */
export function drainablePods(pods: readonly RollPod[], node: string): RollPod[] {
  return pods.filter((p) => p.spec?.nodeName === node && !p.metadata.deletionTimestamp && !drainIgnores(p));
}

/**
 * The pods a drain still waits for: being deleted (evicted, or deleted by anyone) but not yet gone,
 * and not reported terminated by their node. As `kubectl drain` does, a node is taken out only once
 * they are gone, so no pod's graceful shutdown is cut short by its node's termination.
 */
export function stoppingPods(pods: readonly RollPod[], node: string): RollPod[] {
  return pods.filter(
    (p) => p.spec?.nodeName === node && p.metadata.deletionTimestamp !== undefined && !drainIgnores(p),
  );
}

/**
 * The stopping pods in words, those still there after their grace period ended first (the API
 * server sets a deleted pod's deletionTimestamp to the end of its grace period): "default/web-1
 * (still running 12 s after its grace period ended)", "default/web-2 (grace period 30 s)".
 */
export function stoppingInWords(pods: readonly RollPod[], now: number): string {
  const late = (p: RollPod) => now - Date.parse(p.metadata.deletionTimestamp ?? '');
  const sorted = [...pods].sort((a, b) => late(b) - late(a));
  const shown = sorted.slice(0, 3).map((p) => {
    const over = late(p);
    const grace = p.metadata.deletionGracePeriodSeconds;
    const why =
      over >= 1000
        ? `still running ${Math.round(over / 1000)} s after its grace period ended`
        : grace !== undefined
          ? `grace period ${grace} s`
          : 'stopping';
    return `${p.metadata.namespace ?? ''}/${nameOf(p)} (${why})`;
  });
  return `${shown.join(', ')}${sorted.length > 3 ? ` and ${sorted.length - 3} more` : ''}`;
}
