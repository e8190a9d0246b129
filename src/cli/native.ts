// Native mode's safety check (docs/native.md#the-built-in-controller-must-be-off): before Pacer
// controls apps/v1 Deployments it makes sure no other Deployment controller does, since two
// controllers scaling the same ReplicaSets fight. kube-controller-manager's controllers are not
// listed anywhere a client can read, so the check asks the cluster itself: it creates a probe
// Deployment of 0 replicas and watches whether anyone writes its status within a few seconds.
// Pacer writes nothing else before the answer; the probe is deleted either way.

import type { Deployment } from '../api/types.ts';
import { APPS_DEPLOYMENTS, type KubeClient } from '../kube/client.ts';
import { toKubeError } from '../kube/errors.ts';

export const PROBE_LABEL = 'pacer.dev/native-probe';

/** How long the probe waits for another controller to observe it (default 5 s). */
export const PROBE_WAIT_MS = 5_000;

interface ManagedFieldsEntry {
  manager?: string;
  subresource?: string;
  time?: string;
}

/** Who wrote the probe's status (a managedFields manager), or undefined: nobody did. */
export function statusWriter(d: Deployment): string | undefined {
  if ((d.status?.observedGeneration ?? 0) < 1) return undefined;
  const fields = (d.metadata as { managedFields?: ManagedFieldsEntry[] }).managedFields ?? [];
  return fields.find((f) => f.subresource === 'status')?.manager ?? 'an unknown controller';
}

/** Another Pacer (a replica of this one) may control apps/v1 Deployments too; anything else may not. */
export function isPacer(manager: string): boolean {
  return manager.startsWith('pacer');
}

/** The refusal, in words that say how to fix it. */
export function refusal(manager: string, namespace: string): string {
  return (
    `native mode refused: another Deployment controller (${manager}) controls apps/v1 Deployments: it observed ` +
    `the probe Deployment Pacer created in namespace ${namespace}. Start kube-controller-manager with ` +
    `--controllers=*,-deployment-controller (docs/native.md says where the flag goes for kubeadm, k3s and kind), ` +
    'or run Pacer without --deployments apps'
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Why native mode is refused (a controller other than Pacer observed a probe Deployment in
 * `namespace` within `waitMs`), or undefined. The probe has no pods (0 replicas) and is deleted
 * before returning; a probe that cannot be created throws, naming the namespace and the cause.
 */
export async function otherDeploymentController(
  client: KubeClient,
  namespace: string,
  waitMs = PROBE_WAIT_MS,
): Promise<string | undefined> {
  const name = `pacer-native-probe-${Math.random().toString(36).slice(2, 8)}`;
  const probe: Deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels: { [PROBE_LABEL]: 'true' } },
    spec: {
      replicas: 0,
      selector: { matchLabels: { [PROBE_LABEL]: name } },
      template: {
        metadata: { labels: { [PROBE_LABEL]: name } },
        spec: { containers: [{ name: 'probe', image: 'registry.k8s.io/pause:3.10' }] },
      },
    },
  };
  try {
    await client.create(APPS_DEPLOYMENTS, namespace, probe);
  } catch (err) {
    const e = toKubeError(err);
    throw new Error(
      `native mode: cannot create the probe Deployment ${namespace}/${name} that checks no other Deployment controller runs: ${e.message}`,
    );
  }
  let writer: string | undefined;
  try {
    const deadline = Date.now() + waitMs;
    while (Date.now() < deadline && writer === undefined) {
      await sleep(250);
      const seen = await client.get<Deployment>(APPS_DEPLOYMENTS, namespace, name);
      const by = statusWriter(seen);
      if (by !== undefined && !isPacer(by)) writer = by;
    }
  } finally {
    await client.delete(APPS_DEPLOYMENTS, namespace, name, { propagationPolicy: 'Background' }).catch(() => {});
  }
  return writer === undefined ? undefined : refusal(writer, namespace);
}
