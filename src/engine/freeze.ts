// The freeze switch's rules (docs/semantics/freeze.md#what-stops): what the ConfigMap pacer-freeze
// means, the Progressing condition a Deployment shows while frozen (Frozen, then FreezeLifted), and
// the one size change a frozen pass may still make, a scale-up to a larger spec.replicas. The
// controller watches the switch; decide.ts and noderoll/pause.ts apply it.

import type { Deployment, DeploymentStatus } from '../api/types.ts';
import { MESSAGE, PROGRESSING, REASON, getCondition, newCondition, setCondition } from './kubernetes/conditions.ts';
import { hasProgressDeadline } from './kubernetes/progress.ts';

/** The freeze switch's ConfigMap, in Pacer's namespace (the leader election Lease's). */
export const FREEZE_CONFIGMAP = 'pacer-freeze';
/** Its data keys: why (free text), and when it was switched on (RFC 3339, written by the plugin). */
export const FREEZE_REASON_KEY = 'reason';
export const FREEZE_SINCE_KEY = 'since';

/** The freeze in force. */
export interface Freeze {
  readonly reason: string;
  readonly since?: string;
}

/** The freeze a ConfigMap says (undefined: none, no ConfigMap). Any pacer-freeze ConfigMap freezes, whatever its data. */
export function freezeOf(
  cm: { metadata: { name?: string }; data?: Record<string, string> } | undefined,
): Freeze | undefined {
  if (!cm || cm.metadata.name !== FREEZE_CONFIGMAP) return undefined;
  const reason = cm.data?.[FREEZE_REASON_KEY]?.trim() ?? '';
  const since = cm.data?.[FREEZE_SINCE_KEY];
  return { reason: reason === '' ? 'no reason given' : reason, ...(since ? { since } : {}) };
}

/** The freeze in words, for a condition or a status message. */
export function freezeInWords(f: Freeze): string {
  return `Pacer is frozen (${f.reason}): nothing new is disrupted until "kubectl pacer freeze off"`;
}

/**
 * Progressing while frozen, like checkPausedConditions: Unknown Frozen on a Deployment whose
 * rollout is not complete (`complete` as stored before the pass), Unknown FreezeLifted once the
 * freeze is gone; a timeout is never overwritten. True when the condition changed.
 */
export function checkFrozenConditions(
  d: Deployment,
  status: DeploymentStatus,
  freeze: Freeze | undefined,
  complete: boolean,
  now: number,
): boolean {
  if (!hasProgressDeadline(d)) return false;
  const c = getCondition(status, PROGRESSING);
  if (c?.reason === REASON.timedOut) return false;
  const frozenCondExists = c?.reason === REASON.frozen;
  if (freeze && !frozenCondExists && !complete) {
    return setCondition(status, newCondition(PROGRESSING, 'Unknown', REASON.frozen, freezeInWords(freeze), now));
  }
  if (freeze && frozenCondExists && c.message !== freezeInWords(freeze)) {
    // A new reason: the message follows, the transition time stays (setCondition keeps a condition of the same reason).
    const cond = {
      ...newCondition(PROGRESSING, 'Unknown', REASON.frozen, freezeInWords(freeze), now),
      lastTransitionTime: c.lastTransitionTime,
    };
    status.conditions = (status.conditions ?? []).map((x) => (x.type === PROGRESSING ? cond : x));
    return true;
  }
  if (!freeze && frozenCondExists) {
    return setCondition(status, newCondition(PROGRESSING, 'Unknown', REASON.freezeLifted, MESSAGE.freezeLifted, now));
  }
  return false;
}

/**
 * Whether a scaling event may be carried out while frozen: only a larger spec.replicas (every
 * active ReplicaSet was sized for fewer), which adds pods and takes none away.
 */
export function scalesUpOnly(replicas: number, desiredOfActive: ReadonlyArray<number | undefined>): boolean {
  return desiredOfActive.every((x) => x === undefined || x < replicas);
}
