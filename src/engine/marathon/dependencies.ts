// Dependency order (Marathon's `dependencies`), level-triggered: the gate that holds a Deployment's
// progress until every dependency exists and is complete, its DependenciesReady condition, the
// graph's cycles and levels (pure, shared with the deployment plans), and the pacer.dev/dependents
// finalizer that orders stops: docs/semantics/marathon.md#dependencies-in-pacer.

import type { Deployment, DeploymentCondition, DeploymentStatus } from '../../api/types.ts';
import { dependencyKeys, deploymentKey, parseDependency } from '../../api/dependencies.ts';
import { DEPENDENCIES_READY, formatTime, getCondition } from '../kubernetes/conditions.ts';
import type { Action, Decision, Snapshot } from '../types.ts';

export const DEPENDENTS_FINALIZER = 'pacer.dev/dependents';

/**
 * Set on the other members of a deployment plan cancelled by a forced change (locks.ts), and on
 * each app a cancel request rolled back (cancel.ts): the app
 * converges to its own spec without waiting on its dependencies (a missing one or a cycle still
 * holds it); removed once the app is complete.
 */
export const CANCELLED_PLAN_ANNOTATION = 'pacer.dev/cancelled-deployment';

/**
 * An operator's override of the lock (locks.ts, docs/semantics/marathon.md#the-lock-and-force-in-pacer); here beside
 * the stamp it leads to.
 */
export const FORCE_ANNOTATION = 'pacer.dev/force';

export const DEPENDENCY_REASON = {
  ready: 'DependenciesReady',
  notReady: 'DependenciesNotReady',
  missing: 'DependencyMissing',
  cycle: 'DependencyCycle',
} as const;

export type Gate =
  | { ready: true; reason: typeof DEPENDENCY_REASON.ready; message: string }
  | {
      ready: false;
      reason: typeof DEPENDENCY_REASON.notReady | typeof DEPENDENCY_REASON.missing | typeof DEPENDENCY_REASON.cycle;
      message: string;
    };

export interface ResolvedDependency {
  /** "namespace/name" */
  key: string;
  deployment?: Deployment;
}

/** Each of `d`'s dependencies with the Deployment found for it (matched by resolved key). */
export function resolveDependencies(d: Deployment, known: Snapshot['dependencies']): ResolvedDependency[] {
  const found = new Map<string, Deployment>();
  for (const k of known ?? []) {
    if (!k.deployment) continue;
    const r = parseDependency(k.ref, d.metadata.namespace);
    found.set(deploymentKey(r.namespace, r.name), k.deployment);
  }
  return dependencyKeys(d).map((key) => {
    const dep = found.get(key);
    return dep ? { key, deployment: dep } : { key };
  });
}

/** Why `dep` is not complete (kubectl rollout status's wording), or undefined when it is. */
export function incompleteReason(dep: Deployment): string | undefined {
  const s = dep.status ?? {};
  const want = dep.spec?.replicas ?? 1;
  const updated = s.updatedReplicas ?? 0;
  const total = s.replicas ?? 0;
  const available = s.availableReplicas ?? 0;
  if ((s.observedGeneration ?? 0) < (dep.metadata.generation ?? 0)) return 'spec update not yet observed';
  if (updated < want) return `${updated} of ${want} new replicas have been updated`;
  if (total > updated) return `${total - updated} old replicas are pending termination`;
  if (available < updated) return `${available} of ${updated} updated replicas are available`;
  if (total !== want || updated !== want || available !== want) return `${total} replicas, ${want} wanted`;
  return undefined;
}

/** A cycle of keys shown relative to `namespace`: `web → api → web`. */
export function formatCycle(cycle: readonly string[], namespace: string | undefined): string {
  const ns = `${namespace ?? 'default'}/`;
  return cycle.map((k) => (k.startsWith(ns) ? k.slice(ns.length) : k)).join(' → ');
}

/**
 * The gate: ready, or the reason and message of the wait. `cycle` is the dependency cycle through
 * `d` (keys, first = last = d), when the caller found one.
 */
export function dependencyGate(d: Deployment, deps: readonly ResolvedDependency[], cycle?: readonly string[]): Gate {
  if (cycle && cycle.length > 1) {
    return {
      ready: false,
      reason: DEPENDENCY_REASON.cycle,
      message: `dependency cycle: ${formatCycle(cycle, d.metadata.namespace)}`,
    };
  }
  const missing: string[] = [];
  const waiting: string[] = [];
  for (const dep of deps) {
    if (!dep.deployment) missing.push(`${dep.key} not found`);
    else {
      const why = incompleteReason(dep.deployment);
      if (why) waiting.push(`waiting for ${dep.key}: ${why}`);
    }
  }
  const cancelled = d.metadata.annotations?.[CANCELLED_PLAN_ANNOTATION];
  if (missing.length > 0)
    return { ready: false, reason: DEPENDENCY_REASON.missing, message: [...missing, ...waiting].join('; ') };
  if (waiting.length > 0 && cancelled) {
    return {
      ready: true,
      reason: DEPENDENCY_REASON.ready,
      message: `deployment ${cancelled} was cancelled: not waiting for ${deps.map((x) => x.key).join(', ')}`,
    };
  }
  if (waiting.length > 0) return { ready: false, reason: DEPENDENCY_REASON.notReady, message: waiting.join('; ') };
  const names = deps.map((x) => x.key).join(', ');
  return {
    ready: true,
    reason: DEPENDENCY_REASON.ready,
    message: deps.length === 1 ? `${names} is complete` : `dependencies are complete: ${names}`,
  };
}

/**
 * Sets DependenciesReady on the working `status` from the gate (undefined: no dependencies, the
 * condition goes). Unlike the upstream conditions, a new message is written too (it says what is
 * still awaited), with lastUpdateTime; lastTransitionTime moves only when the status changes.
 * `generation` (the Deployment's metadata.generation) is stamped as observedGeneration at each
 * transition and kept in between: "True at the current generation" then says that the current
 * spec waited for its dependencies (the deployment plans, deploymentplans.ts, read it).
 */
export function setDependenciesCondition(
  status: DeploymentStatus,
  gate: Gate | undefined,
  now: number,
  generation?: number,
): void {
  const cur = getCondition(status, DEPENDENCIES_READY);
  const others = (status.conditions ?? []).filter((c) => c.type !== DEPENDENCIES_READY);
  if (!gate) {
    if (cur) status.conditions = others;
    return;
  }
  const want = gate.ready ? 'True' : 'False';
  if (cur && cur.status === want && cur.reason === gate.reason && cur.message === gate.message) return;
  const t = formatTime(now);
  const holds = cur !== undefined && cur.status === want && cur.lastTransitionTime !== undefined;
  const next: DeploymentCondition = {
    type: DEPENDENCIES_READY,
    status: want,
    lastUpdateTime: t,
    lastTransitionTime: holds ? cur.lastTransitionTime : t,
    reason: gate.reason,
    message: gate.message,
  };
  const stamp = holds ? cur.observedGeneration : generation;
  if (stamp !== undefined) next.observedGeneration = stamp;
  status.conditions = [...others, next];
}

/**
 * The gate for a snapshot, its condition set on `status`: true when the pass may make progress.
 * A Deployment without dependencies always may (and carries no condition).
 */
export function checkDependencies(snapshot: Snapshot, d: Deployment, status: DeploymentStatus, now: number): boolean {
  if (dependencyKeys(d).length === 0) {
    setDependenciesCondition(status, undefined, now);
    return true;
  }
  const gate = dependencyGate(d, resolveDependencies(d, snapshot.dependencies), snapshot.dependencyCycle);
  setDependenciesCondition(status, gate, now, d.metadata.generation);
  return gate.ready;
}

// ---------------------------------------------------------------------------------------------
// The graph: cycles and levels.

/**
 * The shortest dependency cycle through `start` (keys, first = last = start), or undefined.
 * `dependenciesOf` gives a known Deployment's dependency keys (undefined when not known).
 */
export function findDependencyCycle(
  start: string,
  dependenciesOf: (key: string) => readonly string[] | undefined,
): string[] | undefined {
  const parent = new Map<string, string>();
  const queue: string[] = [start];
  for (let i = 0; i < queue.length; i++) {
    const at = queue[i];
    for (const next of dependenciesOf(at) ?? []) {
      if (next === start) {
        const chain: string[] = [];
        for (let k = at; k !== start; k = parent.get(k)!) chain.push(k);
        return [start, ...chain.reverse(), start];
      }
      if (!parent.has(next) && next !== start) {
        parent.set(next, at);
        queue.push(next);
      }
    }
  }
  return undefined;
}

export interface DependencyLevels {
  /** "namespace/name" → level (1 = depends on nothing among the given Deployments). */
  levels: Map<string, number>;
  /** One cycle per strongly connected group of Deployments that depend on each other. */
  cycles: string[][];
}

/**
 * Marathon's levels over `deployments`: the number of Deployments on the longest dependency path
 * that starts at one, itself included. Dependencies not among `deployments` are ignored (they are
 * waited for, not levelled). Deployments on a cycle, or depending on one, get no level; the cycles
 * are reported instead.
 */
export function dependencyLevels(deployments: readonly Deployment[]): DependencyLevels {
  const graph = new Map<string, string[]>();
  for (const d of deployments) graph.set(deploymentKey(d.metadata.namespace, d.metadata.name), dependencyKeys(d));
  const edges = (k: string) => (graph.get(k) ?? []).filter((x) => graph.has(x));

  const levels = new Map<string, number>();
  const cycles: string[][] = [];
  const onCycle = new Set<string>();
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  // Depth-first; a back edge to a node on the stack closes a cycle. A node gets a level only when
  // everything below it has one.
  const visit = (k: string): number | undefined => {
    const s = state.get(k);
    if (s === 'done') return levels.get(k);
    if (s === 'visiting') {
      const cycle = [...stack.slice(stack.indexOf(k)), k];
      if (!cycle.slice(0, -1).some((x) => onCycle.has(x))) cycles.push(cycle);
      for (const x of cycle) onCycle.add(x);
      return undefined;
    }
    state.set(k, 'visiting');
    stack.push(k);
    let level: number | undefined = 1;
    for (const x of edges(k)) {
      const below = visit(x);
      if (below === undefined) level = undefined;
      else if (level !== undefined) level = Math.max(level, below + 1);
    }
    stack.pop();
    state.set(k, 'done');
    if (level !== undefined) levels.set(k, level);
    return level;
  };
  for (const k of [...graph.keys()].sort()) visit(k);
  return { levels, cycles };
}

/** Deployments grouped by level, lowest first (Marathon's dependency-ordered steps). */
export function levelGroups(levels: ReadonlyMap<string, number>): string[][] {
  const out: string[][] = [];
  for (const [k, l] of [...levels].sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]))) (out[l - 1] ??= []).push(k);
  return out.filter((g) => g !== undefined);
}

// ---------------------------------------------------------------------------------------------
// The stop order: the pacer.dev/dependents finalizer.

/**
 * The finalizers `d` should carry given the Deployments that depend on it, or undefined when its
 * list is right as it is. A live Deployment has the finalizer exactly while it has dependents; a
 * deleting one only loses it (an object being deleted takes no new finalizers), once none is left.
 */
export function desiredFinalizers(d: Deployment, dependents: readonly Deployment[]): string[] | undefined {
  const current = d.metadata.finalizers ?? [];
  const has = current.includes(DEPENDENTS_FINALIZER);
  const want = dependents.length > 0 && (!d.metadata.deletionTimestamp || has);
  if (want === has) return undefined;
  return want ? [...current, DEPENDENTS_FINALIZER] : current.filter((f) => f !== DEPENDENTS_FINALIZER);
}

/**
 * Adds the finalizer change to a decision: merged into the Deployment update when there is one,
 * else a metadata-only update issued last (after the status write, so that removing the last
 * finalizer of a deleting Deployment is the final write). No change when the caller did not say
 * who depends on the Deployment (snapshot.dependents undefined).
 */
export function withDependentsFinalizer(snapshot: Snapshot, decision: Decision): Decision {
  if (!snapshot.dependents) return decision;
  const finalizers = desiredFinalizers(snapshot.deployment, snapshot.dependents);
  if (!finalizers) return decision;
  const actions: Action[] = [...decision.actions];
  const i = actions.findIndex((a) => a.verb === 'update' && a.kind === 'Deployment');
  const current = i >= 0 ? actions[i] : undefined;
  if (current?.verb === 'update')
    actions[i] = { ...current, object: withFinalizers(current.object as Deployment, finalizers) };
  else
    actions.push({
      verb: 'update',
      kind: 'Deployment',
      name: snapshot.deployment.metadata.name ?? '',
      object: withFinalizers(snapshot.deployment, finalizers),
    });
  return {
    ...decision,
    actions,
    objects: { ...decision.objects, deployment: withFinalizers(decision.objects.deployment, finalizers) },
  };
}

/** `d` with its finalizer list replaced (removed when empty). */
function withFinalizers(d: Deployment, finalizers: string[]): Deployment {
  const { finalizers: _old, ...metadata } = d.metadata;
  return { ...d, metadata: finalizers.length > 0 ? { ...metadata, finalizers } : metadata };
}
