// The freeze switch as the controllers see it (docs/semantics/freeze.md): the ConfigMap
// pacer-freeze in Pacer's namespace, watched alone (a field selector on its name), read by the
// Deployment reconciler (through its snapshots) and the node roller, and exported as pacer_frozen.
// It is a watched value (manager/watches.ts): its switching on or off wakes every Deployment and
// every NodeRoll that watch it; a resync is no change.

import { CONFIGMAPS } from '../../kube/client.ts';
import type { Manager } from '../../manager/manager.ts';
import { FREEZE_CONFIGMAP, freezeOf } from '../../engine/index.ts';
import type { Freeze } from '../../engine/index.ts';
import type { Informer, InformerHandlers } from '../../manager/informer.ts';
import { resourceVersionChanged } from '../../manager/watches.ts';
import type { WatchedValue } from '../../manager/watches.ts';

interface ConfigMap {
  metadata: { name?: string; namespace?: string; resourceVersion?: string };
  data?: Record<string, string>;
}

export class FreezeSwitch implements WatchedValue<Freeze | undefined> {
  private readonly informer: Informer<ConfigMap>;
  private readonly namespace: string;

  constructor(mgr: Manager, namespace: string) {
    this.namespace = namespace;
    this.informer = mgr.informer<ConfigMap>(CONFIGMAPS, {
      namespace,
      fieldSelector: `metadata.name=${FREEZE_CONFIGMAP}`,
    });
    mgr.metrics?.trackFreeze(() => this.current());
  }

  /** The freeze in force, or undefined. */
  current(): Freeze | undefined {
    return freezeOf(this.informer.get(`${this.namespace}/${FREEZE_CONFIGMAP}`));
  }

  /** The switch set, changed or lifted. */
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
