// `kubectl pacer freeze on|off|status` (docs/semantics/freeze.md): the freeze switch is the
// ConfigMap pacer-freeze in Pacer's namespace (pacer-system unless -n names another); on creates it
// (or changes its reason), off deletes it, status reads it. Like kubectl cordon, switching on what
// is already on (or off what is off) says so and succeeds. Each change is an Event on the ConfigMap.

import { humanDuration, metaTime } from '../api/duration.ts';
import { FREEZE_CONFIGMAP, FREEZE_REASON_KEY, FREEZE_SINCE_KEY, freezeOf } from '../engine/index.ts';
import { CONFIGMAPS } from '../kube/client.ts';
import { isKind } from '../kube/errors.ts';
import { getConfigMap, recordOnConfigMap } from './configmaps.ts';
import type { ConfigMap } from './configmaps.ts';
import type { Session } from './options.ts';
import { printData } from './options.ts';

/** on: creates the switch, or gives it the new reason. */
export async function runFreezeOn(
  s: Session,
  ns: string,
  reason: string | undefined,
  now = Date.now(),
): Promise<number> {
  const why = reason?.trim() ?? '';
  const before = await getConfigMap(s, ns, FREEZE_CONFIGMAP);
  if (before) {
    const was = freezeOf(before)!;
    if (why === '' || (before.data?.[FREEZE_REASON_KEY] ?? '') === why) {
      s.io.stdout.write(`pacer already frozen (${was.reason})\n`);
      return 0;
    }
    await s.client.patch(CONFIGMAPS, ns, FREEZE_CONFIGMAP, { data: { [FREEZE_REASON_KEY]: why } }, 'merge');
    await recordOnConfigMap(s, ns, before, 'FreezeReasonChanged', `frozen: ${why} (was: ${was.reason})`);
    s.io.stdout.write(`pacer frozen (${why}; was: ${was.reason})\n`);
    return 0;
  }
  const created = await s.client.create<ConfigMap>(CONFIGMAPS, ns, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: FREEZE_CONFIGMAP,
      namespace: ns,
      labels: { 'app.kubernetes.io/name': 'pacer', 'app.kubernetes.io/component': 'freeze' },
    },
    data: { ...(why !== '' ? { [FREEZE_REASON_KEY]: why } : {}), [FREEZE_SINCE_KEY]: metaTime(now) },
  });
  const f = freezeOf(created)!;
  await recordOnConfigMap(s, ns, created, 'Frozen', `frozen: ${f.reason}`);
  s.io.stdout.write(
    `pacer frozen (${f.reason}): no new rollout step, eviction or node termination until "kubectl pacer freeze off"\n`,
  );
  return 0;
}

/** off: deletes the switch. */
export async function runFreezeOff(s: Session, ns: string): Promise<number> {
  const before = await getConfigMap(s, ns, FREEZE_CONFIGMAP);
  if (!before) {
    s.io.stdout.write('pacer already not frozen\n');
    return 0;
  }
  try {
    await s.client.delete(CONFIGMAPS, ns, FREEZE_CONFIGMAP);
  } catch (err) {
    if (!isKind(err, 'NotFound')) throw err;
  }
  await recordOnConfigMap(s, ns, before, 'Thawed', `freeze lifted (it was: ${freezeOf(before)!.reason})`);
  s.io.stdout.write('pacer thawed: rollouts and node rolls go on\n');
  return 0;
}

/** status: whether it is on, why and since when (-o json|yaml: the ConfigMap). */
export async function runFreezeStatus(
  s: Session,
  ns: string,
  o: { output?: string },
  now = Date.now(),
): Promise<number> {
  if (o.output) {
    // kubectl get's answer when it is off: the API server's NotFound.
    printData(s.io, o.output, await s.client.get<ConfigMap>(CONFIGMAPS, ns, FREEZE_CONFIGMAP));
    return 0;
  }
  const cm = await getConfigMap(s, ns, FREEZE_CONFIGMAP);
  const f = freezeOf(cm);
  if (!f) {
    s.io.stdout.write(`pacer is not frozen (no configmap ${ns}/${FREEZE_CONFIGMAP})\n`);
    return 0;
  }
  const since = Date.parse(f.since ?? cm!.metadata.creationTimestamp ?? '');
  s.io.stdout.write(
    `pacer is frozen (${f.reason})${Number.isNaN(since) ? '' : ` for ${humanDuration(Math.max(0, now - since))}`}\n`,
  );
  return 0;
}
