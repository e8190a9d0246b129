// The ConfigMaps in Pacer's namespace that the plugin writes for the controllers to read: the
// freeze switch (pacer-freeze, freeze.ts) and the cluster's default maintenance windows
// (pacer-maintenance-windows, windows.ts). Reading one by name, and recording each change as an
// Event on it, are the same for both.

import { PACER_NAMESPACE } from '../api/types.ts';
import { CONFIGMAPS } from '../kube/client.ts';
import { isKind } from '../kube/errors.ts';
import { recordOperation } from '../planops/service.ts';
import type { Session } from './options.ts';
import { PLUGIN_COMPONENT } from './options.ts';

export interface ConfigMap {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name?: string;
    namespace?: string;
    uid?: string;
    labels?: Record<string, string>;
    creationTimestamp?: string;
  };
  data?: Record<string, string>;
}

/** The namespace of Pacer's ConfigMaps: -n when given, else Pacer's own. */
export function pacerNamespace(explicit: string | undefined): string {
  return explicit || PACER_NAMESPACE;
}

/** The ConfigMap `name` in `ns`, or undefined when there is none. */
export async function getConfigMap(s: Session, ns: string, name: string): Promise<ConfigMap | undefined> {
  try {
    return await s.client.get<ConfigMap>(CONFIGMAPS, ns, name);
  } catch (err) {
    if (isKind(err, 'NotFound')) return undefined;
    throw err;
  }
}

/** An Event on `cm` for a change the plugin made (a failure to record it is a warning, not an error). */
export const recordOnConfigMap = (s: Session, ns: string, cm: ConfigMap, reason: string, message: string) =>
  recordOperation(
    { client: s.client, namespace: ns, component: PLUGIN_COMPONENT, warn: (m) => s.io.stderr.write(`Warning: ${m}\n`) },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: cm.metadata as { name: string } },
    reason,
    message,
  );
