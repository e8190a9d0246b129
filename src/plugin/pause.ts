// `kubectl pacer rollout pause|resume NAME`: spec.paused through a merge patch guarded by the
// resourceVersion it was decided on (decided again when the controller wrote in between:
// src/plugin/stale.ts), with kubectl's messages.

import type { Deployment } from '../api/types.ts';
import { PluginError } from './errors.ts';
import { untilNotStale } from './stale.ts';
import type { Session } from './options.ts';
import { PACER_KIND, kindOf } from './target.ts';
import type { DeploymentKind } from './target.ts';

export const PAUSE_MESSAGES = {
  paused: (name: string, k: DeploymentKind = PACER_KIND) => `${k.prefix}${name} paused`,
  resumed: (name: string, k: DeploymentKind = PACER_KIND) => `${k.prefix}${name} resumed`,
  alreadyPaused: (name: string, k: DeploymentKind = PACER_KIND) => `${k.resource} "${name}" is already paused`,
  notPaused: (name: string, k: DeploymentKind = PACER_KIND) => `${k.resource} "${name}" is not paused`,
} as const;

/** The merge patch that sets spec.paused to `paused`, or kubectl's error when it already is. Pure. */
export function pausePatch(
  d: Deployment,
  paused: boolean,
): { metadata: { resourceVersion?: string }; spec: { paused: boolean } } {
  const name = d.metadata.name ?? '';
  const current = d.spec.paused === true;
  if (current === paused)
    throw new PluginError(
      paused ? PAUSE_MESSAGES.alreadyPaused(name, kindOf(d)) : PAUSE_MESSAGES.notPaused(name, kindOf(d)),
    );
  return { metadata: { resourceVersion: d.metadata.resourceVersion }, spec: { paused } };
}

export async function runPause(s: Session, name: string, paused: boolean): Promise<number> {
  const d = await untilNotStale(async () => {
    const d = await s.client.getDeployment(s.namespace, name);
    await s.client.patchDeployment(s.namespace, name, pausePatch(d, paused));
    return d;
  });
  const k = kindOf(d);
  s.io.stdout.write(`${paused ? PAUSE_MESSAGES.paused(name, k) : PAUSE_MESSAGES.resumed(name, k)}\n`);
  return 0;
}
