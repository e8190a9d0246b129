// `kubectl pacer rollout restart NAME`: the pod-template annotation
// kubectl.kubernetes.io/restartedAt = now (RFC 3339, whole seconds), which changes the template
// and so starts an ordinary rollout. kubectl's messages, including its refusal of a paused
// Deployment and of a second restart within the same second. The patch carries the
// resourceVersion it was decided on, decided again when the controller wrote in between
// (src/plugin/stale.ts).

import type { Deployment } from '../api/types.ts';
import { PluginError } from './errors.ts';
import { untilNotStale } from './stale.ts';
import { formatRFC3339 } from './format.ts';
import type { Session } from './options.ts';
import { PACER_KIND, kindOf } from './target.ts';
import type { DeploymentKind } from './target.ts';

import { RESTARTED_AT_ANNOTATION } from '../planops/service.ts';

export { RESTARTED_AT_ANNOTATION };

export const RESTART_MESSAGES = {
  restarted: (name: string, k: DeploymentKind = PACER_KIND) => `${k.prefix}${name} restarted`,
  paused: "can't restart paused deployment (run rollout resume first)",
  tooSoon: (name: string) =>
    `failed to create patch for ${name}: if restart has already been triggered within the past second, please wait before attempting to trigger another`,
} as const;

/** The merge patch for a restart at `now` (ms), or kubectl's error. Pure. */
export function restartPatch(d: Deployment, now: number, offsetMinutes?: number): unknown {
  const name = d.metadata.name ?? '';
  if (d.spec.paused) throw new PluginError(RESTART_MESSAGES.paused);
  const at = formatRFC3339(now, offsetMinutes);
  if (d.spec.template?.metadata?.annotations?.[RESTARTED_AT_ANNOTATION] === at)
    throw new PluginError(RESTART_MESSAGES.tooSoon(name));
  return {
    metadata: { resourceVersion: d.metadata.resourceVersion },
    spec: { template: { metadata: { annotations: { [RESTARTED_AT_ANNOTATION]: at } } } },
  };
}

export async function runRestart(s: Session, name: string, now: () => number = Date.now): Promise<number> {
  const d = await untilNotStale(async () => {
    const d = await s.client.getDeployment(s.namespace, name);
    await s.client.patchDeployment(s.namespace, name, restartPatch(d, now()));
    return d;
  });
  s.io.stdout.write(`${RESTART_MESSAGES.restarted(name, kindOf(d))}\n`);
  return 0;
}
