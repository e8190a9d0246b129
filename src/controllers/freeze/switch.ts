// The freeze switch as the controllers see it (docs/semantics/freeze.md): the ConfigMap
// pacer-freeze in Pacer's namespace, watched alone (namedconfigmap.ts), read by the Deployment
// reconciler (through its snapshots) and the node roller, and exported as pacer_frozen. Its
// switching on or off wakes every Deployment and every NodeRoll that watch it.

import type { Manager } from '../../manager/manager.ts';
import { FREEZE_CONFIGMAP, freezeOf } from '../../engine/index.ts';
import type { Freeze } from '../../engine/index.ts';
import { NamedConfigMap } from './namedconfigmap.ts';

export class FreezeSwitch extends NamedConfigMap<Freeze | undefined> {
  constructor(mgr: Manager, namespace: string) {
    super(mgr, namespace, FREEZE_CONFIGMAP, freezeOf);
    mgr.metrics?.trackFreeze(() => this.current());
  }
}
