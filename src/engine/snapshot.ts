// The Snapshot for one Deployment, built the same way for the controller (from its caches) and for
// `pacer plan` (from the objects of a file): what one pass may read of the cluster, and nothing more
// (docs/architecture.md#what-a-snapshot-holds). No copies: the engine never changes its input, and
// handing it the source's own objects lets it remember work per object across passes.

import { analysisOf } from '../api/native.ts';
import type { Deployment, PlanResource, Pod, ReplicaSet } from '../api/types.ts';
import type { AnalysisRun, AnalysisTemplate, AnalysisTemplateRef } from '../api/analysis.ts';
import { isEmptySelector, selectorMatches } from '../api/selector.ts';
import { dependencyKeys, deploymentKey } from '../api/dependencies.ts';
import { controllerOf } from '../api/owners.ts';
import { findDependencyCycle } from './marathon/dependencies.ts';
import { needsPeers } from './marathon/requests.ts';
import { strategyOf } from './strategies/index.ts';
import { planStepNames, plansNaming } from './dcos/custom.ts';
import type { Snapshot } from './types.ts';
import type { Freeze } from './freeze.ts';

/** Where a Snapshot's objects come from: the controller's caches, or the objects of a file. */
export interface SnapshotSource {
  /**
   * The ReplicaSets of a namespace. Given a controller's uid, a source may leave out those that
   * another owner controls (the snapshot keeps only the uid's own and the orphans).
   */
  replicaSets(namespace: string, controllerUid?: string): readonly ReplicaSet[];
  /** The pods of a namespace. */
  pods(namespace: string): readonly Pod[];
  /** A Deployment by "namespace/name", if known. */
  deployment(key: string): Deployment | undefined;
  /** The Deployments whose spec.dependencies name `key`; absent when the source does not know them. */
  dependents?(key: string): readonly Deployment[];
  /** Every Deployment the source holds; absent when it cannot list them (force and cancel then see only this one). */
  deployments?(): readonly Deployment[];
  /** The Plan resources of a namespace; absent when the source has none (no custom plan holds anything). */
  plans?(namespace: string): readonly PlanResource[];
  /** The freeze switch, while it is on (absent or undefined: not frozen). */
  freeze?(): Freeze | undefined;
  /** The AnalysisRuns of a namespace; absent when the source has none. */
  analysisRuns?(namespace: string): readonly AnalysisRun[];
  /** A template by reference (a ClusterAnalysisTemplate when clusterScope), if it exists. */
  analysisTemplate?(namespace: string, ref: AnalysisTemplateRef): AnalysisTemplate | undefined;
}

export function buildSnapshot(d: Deployment, source: SnapshotSource, now: number): Snapshot {
  const ns = d.metadata.namespace ?? 'default';
  const selector = d.spec?.selector;
  const selects = !isEmptySelector(selector);
  const uid = d.metadata.uid;
  const replicaSets = source.replicaSets(ns, uid).filter((rs) => {
    const ref = controllerOf(rs);
    if (ref) return ref.uid === uid;
    return selects && !rs.metadata.deletionTimestamp && selectorMatches(selector, rs.metadata.labels);
  });
  // Recreate waits for old pods; the analysis' pod check looks at the new ones (analysis/rollout.ts).
  const readsPods = selects && (strategyOf(d)?.readsPods === true || analysisOf(d)?.podFailures !== undefined);
  const pods = readsPods ? source.pods(ns).filter((p) => selectorMatches(selector, p.metadata.labels)) : [];
  const snapshot: Snapshot = { deployment: d, replicaSets, pods, now };
  const freeze = source.freeze?.();
  if (freeze) snapshot.freeze = freeze;
  // An apps/v1 Deployment's analysis is its pacer.dev/analysis annotation (api/native.ts).
  const analysis = analysisOf(d);
  if (analysis) {
    const found = (ref: AnalysisTemplateRef) => {
      const template = source.analysisTemplate?.(ns, ref);
      return template ? { ref, template } : { ref };
    };
    snapshot.analysis = {
      runs: (source.analysisRuns?.(ns) ?? []).filter((r) => uid !== undefined && controllerOf(r)?.uid === uid),
      templates: (analysis.templates ?? []).map(found),
      ...(analysis.canarySteps ? { stepTemplates: (analysis.canarySteps.templates ?? []).map(found) } : {}),
    };
  }

  if (needsPeers(d) && source.deployments) snapshot.deployments = [...source.deployments()];
  const key = deploymentKey(d.metadata.namespace, d.metadata.name);
  const plans = plansNaming(source.plans?.(ns) ?? [], d.metadata.name ?? '');
  if (plans.length > 0) {
    const names = new Set(plans.flatMap(planStepNames));
    const deployments = [...names]
      .map((n) => source.deployment(deploymentKey(ns, n)))
      .filter((x): x is Deployment => x !== undefined);
    snapshot.plans = { plans, deployments };
  }
  const dependents = source.dependents?.(key);
  if (dependents) snapshot.dependents = [...dependents];
  const deps = dependencyKeys(d);
  if (deps.length === 0) return snapshot;
  snapshot.dependencies = deps.map((ref) => {
    const x = source.deployment(ref);
    return x ? { ref, deployment: x } : { ref };
  });
  const cycle = findDependencyCycle(key, (k) => {
    if (k === key) return deps;
    const x = source.deployment(k);
    return x ? dependencyKeys(x) : undefined;
  });
  if (cycle) snapshot.dependencyCycle = cycle;
  return snapshot;
}
