// The cluster's default maintenance windows as the node roller sees them (docs/semantics/windows.md#the-clusters-default):
// the ConfigMap pacer-maintenance-windows beside the freeze switch, in Pacer's namespace, watched
// alone as pacer-freeze is (namedconfigmap.ts). What the data means, and whether it is valid, is
// the engine's (engine/defaultwindows.ts). Its creation, change or deletion wakes every NodeRoll.

import type { Manager } from '../../manager/manager.ts';
import { DEFAULT_WINDOWS_CONFIGMAP, defaultWindowsOf } from '../../engine/index.ts';
import type { DefaultWindows } from '../../engine/index.ts';
import { NamedConfigMap } from './namedconfigmap.ts';

/** The default windows in force (invalid ones included: they hold every roll), or undefined. */
export class DefaultWindowsSource extends NamedConfigMap<DefaultWindows | undefined> {
  constructor(mgr: Manager, namespace: string) {
    super(mgr, namespace, DEFAULT_WINDOWS_CONFIGMAP, defaultWindowsOf);
  }
}
