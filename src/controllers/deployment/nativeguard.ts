// Native mode's watch for another Deployment controller (docs/native.md#the-built-in-controller-must-be-off):
// the start-up check (cli/native.ts) finds one running when Pacer starts; this one notices one
// switched on later, by its writes: an apps/v1 Deployment whose status was written by
// kube-controller-manager after Pacer started. The apps/v1 controller then stands down (it writes nothing
// more) rather than fight over the same ReplicaSets.

import type { Deployment } from '../../api/types.ts';

interface StatusEntry {
  manager?: string;
  subresource?: string;
  time?: string;
}

/**
 * The built-in Deployment controller's field manager: kube-controller-manager's name for itself.
 * Only its writes stand Pacer down: other clients write a Deployment's status too (tools, tests such
 * as upstream's own "Deployment Status endpoints" spec) without controlling its ReplicaSets.
 */
export const BUILT_IN_CONTROLLER_MANAGER = 'kube-controller-manager';

/**
 * kube-controller-manager, when it wrote `d`'s status at or after `sinceMs` (managedFields keep
 * whole seconds, so the second Pacer started in counts), or undefined.
 */
export function otherStatusWriter(d: Deployment, sinceMs: number): string | undefined {
  const entries = ((d.metadata as { managedFields?: StatusEntry[] }).managedFields ?? []).filter(
    (f) => f.subresource === 'status',
  );
  const since = Math.floor(sinceMs / 1000) * 1000;
  for (const f of entries) {
    if (f.manager !== BUILT_IN_CONTROLLER_MANAGER) continue;
    const t = Date.parse(f.time ?? '');
    if (Number.isFinite(t) && t >= since) return f.manager;
  }
  return undefined;
}

/** Why the apps/v1 controller stood down, in words that say how to fix it. */
export function standDownMessage(manager: string, d: Deployment): string {
  return (
    `native mode stopped: another Deployment controller (${manager}) wrote the status of deployment ` +
    `${d.metadata.namespace}/${d.metadata.name} after Pacer started; Pacer writes no apps/v1 Deployment ` +
    'until it is restarted. Start kube-controller-manager with --controllers=*,-deployment-controller ' +
    '(docs/native.md), then restart Pacer'
  );
}
