// MinimumHealth: Marathon's upgradeStrategy on the RollingUpdate machinery. This file decides the
// two numbers rolling.ts works within each pass (maxTotal, minAvailable):
// docs/semantics/marathon.md#how-pacer-runs-it-on-replicasets. The capacity formulas are Marathon's
// bit for bit, rounding artefacts kept (docs/semantics/marathon.md#floating-point). The departure:
// Pacer keeps no state, so step 4's extra pod is granted whenever m == cap > 0, not only when the
// healthy pods filled cap at the start (docs/semantics/marathon.md#where-minimumhealth-differs-from-marathon).

import type { Deployment, ReplicaSet } from '../../api/types.ts';
import { DEFAULT_MINIMUM_HEALTH_CAPACITY } from '../../api/defaults.ts';
import { availableReplicas, deploymentReplicas } from '../kubernetes/replicasets.ts';
import type { RolloutBudget } from '../limits.ts';

/** m: the replicas that stay available, ceil(n × minimumHealthCapacity) on the raw double product. */
export function minimumHealthy(replicas: number, minimumHealthCapacity: number): number {
  return Math.ceil(replicas * minimumHealthCapacity);
}

/** cap: the most replicas at once, trunc(n × (1 + maximumOverCapacity)) as Scala's toInt does. */
export function maximumCapacity(replicas: number, maximumOverCapacity: number): number {
  return Math.trunc(replicas * (1 + maximumOverCapacity));
}

// ---------------------------------------------------------------------------------------------
// Marathon's TaskReplaceActor (docs/semantics/marathon.md#marathons-restart-strategy), for table tests. Pacer's rollout does not
// call these; it uses the bounds below.

export interface MarathonRestart {
  minHealthy: number;
  maxCapacity: number;
  /** Old instances killed when the restart starts. */
  killImmediately: number;
}

/**
 * Marathon's restart strategy, steps 1–5, for an app without persistent volumes: `healthy` (H) is the
 * number of current instances considered healthy, `current` (C) the number of all current instances.
 */
export function marathonRestart(
  replicas: number,
  minimumHealthCapacity: number,
  maximumOverCapacity: number,
  healthy: number,
  current: number,
): MarathonRestart {
  const minHealthy = minimumHealthy(replicas, minimumHealthCapacity);
  let maxCapacity = maximumCapacity(replicas, maximumOverCapacity);
  let killImmediately = Math.max(0, healthy - minHealthy);
  if (minHealthy === maxCapacity && maxCapacity <= healthy) maxCapacity += 1; // one temporary extra instance
  if (replicas < current) killImmediately = Math.max(current - replicas, killImmediately);
  return { minHealthy, maxCapacity, killImmediately };
}

/**
 * Marathon's launch formula: new instances started now, with `oldActive` old instances not yet
 * terminal (kills requested but unconfirmed still count) and `started` new ones already launched.
 */
export function marathonLaunch(maxCapacity: number, replicas: number, oldActive: number, started: number): number {
  const leftCapacity = Math.max(0, maxCapacity - oldActive - started);
  return Math.min(Math.max(0, replicas - started), leftCapacity);
}

// ---------------------------------------------------------------------------------------------
// Pacer's MinimumHealth strategy.

export interface MinimumHealthSettings {
  replicas: number;
  minimumHealthCapacity: number;
  /** undefined: the side-by-side rule (docs/semantics/marathon.md#the-side-by-side-rule). */
  maximumOverCapacity: number | undefined;
}

/** The Deployment's settings, with minimumHealthCapacity defaulted to Marathon's 1.0. */
export function minimumHealthSettings(d: Deployment): MinimumHealthSettings {
  const mh = d.spec.strategy?.minimumHealth;
  const over = mh?.maximumOverCapacity;
  return {
    replicas: deploymentReplicas(d),
    minimumHealthCapacity: mh?.minimumHealthCapacity ?? DEFAULT_MINIMUM_HEALTH_CAPACITY,
    maximumOverCapacity: over === undefined || over === null ? undefined : over,
  };
}

/**
 * The envelope of a whole rollout: available never below minAvailable (m), Σ spec.replicas never
 * above maxTotal. fenceposts.ts derives maxSurge (maxTotal − n) and maxUnavailable (n − m) from it
 * for the Available condition, proportional scaling and the max-replicas annotation.
 */
export function minimumHealthEnvelope(s: MinimumHealthSettings): RolloutBudget {
  const n = s.replicas;
  const m = minimumHealthy(n, s.minimumHealthCapacity);
  if (s.maximumOverCapacity === undefined) return { maxTotal: Math.max(2 * m, n), minAvailable: m };
  let cap = maximumCapacity(n, s.maximumOverCapacity);
  if (n > 0 && m === cap) cap += 1; // Marathon's step 4, see the departure above
  return { maxTotal: cap, minAvailable: m };
}

/**
 * The bounds for this pass, given the new ReplicaSet as it is now
 * (docs/semantics/marathon.md#how-pacer-runs-it-on-replicasets).
 */
export function minimumHealthBudget(s: MinimumHealthSettings, newRS: ReplicaSet | undefined): RolloutBudget {
  const envelope = minimumHealthEnvelope(s);
  if (s.maximumOverCapacity !== undefined) return envelope;
  const m = envelope.minAvailable;
  const newAvailable = newRS ? availableReplicas(newRS) : 0;
  if (newAvailable < m) return { maxTotal: 2 * m, minAvailable: m + newAvailable }; // phase 1
  return envelope; // phase 2
}
