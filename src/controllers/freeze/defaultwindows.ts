// The cluster's default maintenance windows as the node roller sees them (docs/semantics/windows.md#the-clusters-default):
// the ConfigMap pacer-maintenance-windows beside the freeze switch, in Pacer's namespace, watched
// alone (a field selector on its name, as pacer-freeze is). It only reads: what the data means, and
// whether it is valid, is the engine's (engine/defaultwindows.ts). A watched value: its creation,
// change or deletion wakes every NodeRoll; a resync is no change.

import { CONFIGMAPS } from '../../kube/client.ts';
import type { Manager } from '../../manager/manager.ts';
import { DEFAULT_WINDOWS_CONFIGMAP, defaultWindowsOf } from '../../engine/index.ts';
import type { DefaultWindows, WindowsConfigMap } from '../../engine/index.ts';
import type { Informer, InformerHandlers } from '../../manager/informer.ts';
import { resourceVersionChanged } from '../../manager/watches.ts';
import type { WatchedValue } from '../../manager/watches.ts';

type ConfigMap = WindowsConfigMap & { metadata: { resourceVersion?: string } };

export class DefaultWindowsSource implements WatchedValue<DefaultWindows | undefined> {
  private readonly informer: Informer<ConfigMap>;
  private readonly namespace: string;

  constructor(mgr: Manager, namespace: string) {
    this.namespace = namespace;
    this.informer = mgr.informer<ConfigMap>(CONFIGMAPS, {
      namespace,
      fieldSelector: `metadata.name=${DEFAULT_WINDOWS_CONFIGMAP}`,
    });
  }

  /** The default windows in force (invalid ones included: they hold every roll), or undefined. */
  current(): DefaultWindows | undefined {
    return defaultWindowsOf(this.informer.get(`${this.namespace}/${DEFAULT_WINDOWS_CONFIGMAP}`));
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
