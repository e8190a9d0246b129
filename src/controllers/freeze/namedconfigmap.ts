// One ConfigMap in Pacer's namespace, watched alone (a field selector on its name) and read as a
// value: the freeze switch (pacer-freeze) and the cluster's default maintenance windows
// (pacer-maintenance-windows) are both such a ConfigMap. It is a watched value (manager/watches.ts):
// its creation, change or deletion wakes whoever watches it; a resync (the same resourceVersion) is
// no change. It only reads: what the data means is the engine's, through `read`.

import { CONFIGMAPS } from '../../kube/client.ts';
import type { Manager } from '../../manager/manager.ts';
import type { Informer, InformerHandlers } from '../../manager/informer.ts';
import { resourceVersionChanged } from '../../manager/watches.ts';
import type { WatchedValue } from '../../manager/watches.ts';

export interface ConfigMap {
  metadata: { name?: string; namespace?: string; resourceVersion?: string };
  data?: Record<string, string>;
}

export class NamedConfigMap<V> implements WatchedValue<V> {
  private readonly informer: Informer<ConfigMap>;
  private readonly key: string;
  private readonly read: (cm: ConfigMap | undefined) => V;

  constructor(mgr: Manager, namespace: string, name: string, read: (cm: ConfigMap | undefined) => V) {
    this.key = `${namespace}/${name}`;
    this.read = read;
    this.informer = mgr.informer<ConfigMap>(CONFIGMAPS, { namespace, fieldSelector: `metadata.name=${name}` });
  }

  /** What the ConfigMap says now (`read` of undefined when there is none). */
  current(): V {
    return this.read(this.informer.get(this.key));
  }

  /** The ConfigMap created, changed or deleted. */
  on(h: InformerHandlers<ConfigMap>): void {
    this.informer.on({
      add: (cm) => h.add?.(cm),
      update: (old, cm) => {
        if (resourceVersionChanged(old, cm)) h.update?.(old, cm);
      },
      delete: (cm) => h.delete?.(cm),
    });
  }
}
