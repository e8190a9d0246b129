// The freeze switch as the controllers see it (docs/semantics/freeze.md): the ConfigMap
// pacer-freeze in Pacer's namespace, watched alone (a field selector on its name), read by the
// Deployment reconciler (through its snapshots) and the node roller, and exported as pacer_frozen.
// Its switching on or off wakes every Deployment and every NodeRoll.

import { CONFIGMAPS } from '../../kube/client.ts';
import type { Manager } from '../../manager/manager.ts';
import { FREEZE_CONFIGMAP, freezeOf } from '../../engine/index.ts';
import type { Freeze } from '../../engine/index.ts';
import type { Informer } from '../../manager/informer.ts';

interface ConfigMap {
  metadata: { name?: string; namespace?: string; resourceVersion?: string };
  data?: Record<string, string>;
}

export class FreezeSwitch {
  private readonly informer: Informer<ConfigMap>;
  private readonly namespace: string;

  constructor(mgr: Manager, namespace: string) {
    this.namespace = namespace;
    this.informer = mgr.informer<ConfigMap>(CONFIGMAPS, { namespace, fieldSelector: `metadata.name=${FREEZE_CONFIGMAP}` });
    mgr.metrics?.trackFreeze(() => this.current());
  }

  /** The freeze in force, or undefined. */
  current(): Freeze | undefined {
    return freezeOf(this.informer.get(`${this.namespace}/${FREEZE_CONFIGMAP}`));
  }

  /** Calls `fn` whenever the switch is set, changed or lifted. */
  onChange(fn: () => void): void {
    this.informer.on({ add: fn, update: (old, cm) => { if (old.metadata.resourceVersion !== cm.metadata.resourceVersion) fn(); }, delete: fn });
  }
}
