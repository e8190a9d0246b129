// The node roll controller, a reconciler on the manager (docs/semantics/node-roll.md): for each
// NodeRoll, the engine's pass (engine/noderoll/pass.ts) from the NodeRoll and its checkpoint, every
// node, every pod, the Pacer Deployments and ReplicaSets, the freeze and the cluster's default
// maintenance windows; then the pass's actions
// (scale the group, hold its rebalancing, cordon, evict through the Eviction API, terminate through
// the group or uncordon in place; start the health gate's AnalysisRuns), its Events, and the checkpoint written back to status. A
// restart or a new leader resumes from status and finds its runs by name; every action is idempotent, so
// a pass repeated after a crash does no harm.

import type { Deployment, Pod, ReplicaSet } from '../../api/types.ts';
import type { NodeRoll, NodeRollStatus } from '../../api/noderoll.ts';
import type { AnalysisRun, AnalysisTemplate } from '../../api/analysis.ts';
import { RUN_NODEROLL_LABEL } from '../../api/analysis.ts';
import {
  ANALYSIS_RUNS,
  ANALYSIS_TEMPLATES,
  CLUSTER_ANALYSIS_TEMPLATES,
  DEPLOYMENTS,
  NODEROLLS,
  NODES,
  PODS,
  REPLICASETS,
} from '../../kube/client.ts';
import { isKind } from '../../kube/errors.ts';
import type { Logger } from '../../observe/logger.ts';
import type { NodeRollSample } from '../../observe/metrics.ts';
import { register } from '../../manager/controller.ts';
import type { Controller } from '../../manager/controller.ts';
import type { Manager } from '../../manager/manager.ts';
import { finalizersAfter, freezeInWords, hasFinalizer, rollPass, semanticEqual } from '../../engine/index.ts';
import type { DefaultWindows, Freeze, RollAction, RollNode, SizedPod } from '../../engine/index.ts';
import type { EventRecorder } from '../../manager/events.ts';
import type { Informer } from '../../manager/informer.ts';
import { resourceVersionChanged, watch } from '../../manager/watches.ts';
import type { WatchedValue } from '../../manager/watches.ts';
import type { ReconcileResult } from '../../manager/workqueue.ts';
import type { NodeGroupProvider } from './nodegroups.ts';

export const NODEROLL_CONTROLLER_NAME = 'noderoll';

export interface NodeRollOptions {
  /** How the roller reaches a node group. */
  provider: NodeGroupProvider;
  /** The freeze switch: while on, nothing is done and no wait times out. */
  freeze?: WatchedValue<Freeze | undefined>;
  /** The cluster's default maintenance windows (the ConfigMap beside the freeze switch). */
  defaultWindows?: WatchedValue<DefaultWindows | undefined>;
  /** Read and watch AnalysisRuns and the templates (the analysis CRDs served): spec.healthGate.analysis. */
  analysis?: boolean;
}

/** A NodeRoll as the pacer_noderoll_* series show it (from its status). */
export function rollSample(r: NodeRoll): NodeRollSample {
  const st = r.status ?? {};
  const steps: Record<string, number> = {};
  for (const n of st.nodes ?? []) steps[n.step] = (steps[n.step] ?? 0) + 1;
  return {
    name: r.metadata.name ?? '',
    phase: st.phase ?? 'Rolling',
    steps,
    ...(st.paused ? { paused: { wait: st.paused.wait, ...(st.paused.node ? { node: st.paused.node } : {}) } } : {}),
  };
}

/** A roll the roller still has work on: not done, or done with its finalizer still to remove. */
const atWork = (r: NodeRoll): boolean => !(r.status?.done && !hasFinalizer(r));

export class NodeRollController {
  readonly rolls: Informer<NodeRoll>;
  readonly nodes: Informer<RollNode & { metadata: { name?: string; namespace?: string; resourceVersion?: string } }>;
  readonly controller: Controller;
  private readonly mgr: Manager;
  private readonly deployments: Informer<Deployment>;
  private readonly replicaSets: Informer<ReplicaSet>;
  private readonly pods: Informer<Pod>;
  /** Events on the NodeRoll (a pause, the end): the manager's recorder. */
  private readonly recorder: EventRecorder;
  private readonly freeze?: WatchedValue<Freeze | undefined>;
  private readonly defaultWindows?: WatchedValue<DefaultWindows | undefined>;
  private readonly provider: NodeGroupProvider;
  /** The analysis resources, when served (spec.healthGate.analysis). */
  private readonly analysis?: {
    runs: Informer<AnalysisRun>;
    templates: Informer<AnalysisTemplate>;
    clusterTemplates: Informer<AnalysisTemplate>;
  };

  /** Registers the node roller with `mgr`: the informers it reads, its watches, queue and worker. */
  constructor(mgr: Manager, opts: NodeRollOptions) {
    this.mgr = mgr;
    this.provider = opts.provider;
    this.freeze = opts.freeze;
    this.defaultWindows = opts.defaultWindows;
    this.rolls = mgr.informer<NodeRoll>(NODEROLLS);
    this.nodes = mgr.informer(NODES);
    this.pods = mgr.informer<Pod>(PODS);
    this.deployments = mgr.informer<Deployment>(DEPLOYMENTS);
    this.replicaSets = mgr.informer<ReplicaSet>(REPLICASETS);
    this.recorder = mgr.eventRecorder();
    const analysis = opts.analysis
      ? (this.analysis = {
          runs: mgr.informer<AnalysisRun>(ANALYSIS_RUNS),
          templates: mgr.informer<AnalysisTemplate>(ANALYSIS_TEMPLATES),
          clusterTemplates: mgr.informer<AnalysisTemplate>(CLUSTER_ANALYSIS_TEMPLATES),
        })
      : undefined;
    // Few NodeRolls: any change that may move one wakes them all.
    const all = () => this.rolls.list().map((r) => r.metadata.name ?? '');
    // Sharded: once no roll is at work, the caches need not hold every namespace any more.
    const settled = () => {
      if (!this.rolls.list().some(atWork)) mgr.uncacheEveryNamespace();
    };
    this.rolls.on({ update: settled, delete: settled });
    // A template's change wakes the rolls whose health gate names it.
    const naming = (t: AnalysisTemplate, clusterScope: boolean) =>
      this.rolls
        .list()
        .filter((r) => {
          const a = r.spec?.healthGate?.analysis;
          return (
            a?.templates?.some(
              (ref) => ref.templateName === t.metadata.name && (ref.clusterScope ?? false) === clusterScope,
            ) === true &&
            (clusterScope || (a.namespace ?? 'default') === (t.metadata.namespace ?? 'default'))
          );
        })
        .map((r) => r.metadata.name ?? '');
    this.controller = register(mgr, {
      name: NODEROLL_CONTROLLER_NAME,
      workers: 1,
      reconcile: (key, log, stats) => this.reconcile(key, log, stats),
      watches: [
        watch(this.rolls, { on: ['add', 'update'], keys: ({ obj }) => [obj.metadata.name ?? ''] }),
        watch(this.nodes, { keys: all }),
        watch(this.pods, { on: ['update', 'delete'], keys: all }),
        watch(this.deployments, { on: ['update'], keys: all }),
        watch(this.replicaSets, { on: ['update'], keys: all }),
        ...(opts.freeze ? [watch(opts.freeze, { keys: all })] : []),
        ...(opts.defaultWindows ? [watch(opts.defaultWindows, { keys: all })] : []),
        // A run's progress wakes the roll that made it (its label); its outcome moves the gate.
        ...(analysis
          ? [
              watch(analysis.runs, {
                changed: resourceVersionChanged,
                keys: ({ obj }) => {
                  const roll = obj.metadata.labels?.[RUN_NODEROLL_LABEL];
                  return roll !== undefined && this.rolls.get(roll) ? [roll] : [];
                },
              }),
              watch(analysis.templates, { keys: ({ obj }) => naming(obj, false) }),
              watch(analysis.clusterTemplates, { keys: ({ obj }) => naming(obj, true) }),
            ]
          : []),
      ],
    });
    mgr.metrics?.trackNodeRolls(() => this.rolls.list().map(rollSample));
  }

  private async reconcile(key: string, log: Logger, stats: { writes: number }): Promise<ReconcileResult> {
    const found = this.rolls.get(key);
    if (!found || !atWork(found)) return {};
    // Sharded, the roller runs with shard 0 and reads pods and ReplicaSets of every namespace (a
    // drain's pods, the health gate's workloads): shard 0's holder caches them all while a roll is
    // at work (docs/sharding.md#caches), from a list begun now.
    await this.mgr.cacheEveryNamespace();
    let roll = found;
    const freeze = this.freeze?.current();
    const defaultWindows = this.defaultWindows?.current();
    const pass = rollPass({
      roll,
      nodes: this.nodes.list(),
      pods: this.pods.list() as SizedPod[],
      deployments: this.deployments.list(),
      replicaSets: this.replicaSets.list(),
      ...(freeze ? { frozen: freezeInWords(freeze) } : {}),
      ...(defaultWindows ? { defaultWindows } : {}),
      ...(this.analysis
        ? {
            analysis: {
              runs: this.analysis.runs.list(),
              templates: this.analysis.templates.list(),
              clusterTemplates: this.analysis.clusterTemplates.list(),
            },
          }
        : {}),
      now: this.mgr.clock.now(),
    });
    for (const a of pass.actions) {
      // The finalizer's patches give a newer NodeRoll: the status is written over that one.
      roll = (await this.carryOut(roll, a, log)) ?? roll;
      stats.writes++;
    }
    for (const e of pass.events) this.recorder.record(roll, e.type, e.reason, e.message);
    // A status that could not be stored (a newer NodeRoll: 409) leaves the requests in place; the
    // next pass, on the newer object, carries them out again.
    if (!(await this.writeStatus(roll, pass.status, stats))) return { requeue: true };
    if (pass.handled.length > 0) {
      // Cleared once the checkpoint that carries them out is stored (again after a crash: no harm).
      await this.mgr.client.patch(
        NODEROLLS,
        undefined,
        roll.metadata.name ?? '',
        { metadata: { annotations: Object.fromEntries(pass.handled.map((k) => [k, null])) } },
        'merge',
      );
      stats.writes++;
    }
    return pass.requeueAfterMs !== undefined ? { requeueAfterMs: Math.max(1000, pass.requeueAfterMs) } : {};
  }

  /** Carries `a` out; the NodeRoll as stored after it when `a` wrote the NodeRoll itself. */
  private async carryOut(current: NodeRoll, a: RollAction, log: Logger): Promise<NodeRoll | undefined> {
    const client = this.mgr.client;
    const roll = current.metadata.name ?? '';
    switch (a.verb) {
      case 'addFinalizer':
      case 'removeFinalizer': {
        // The whole list, guarded by the resourceVersion: another writer's finalizer is kept (a 409 retries the pass).
        const finalizers = finalizersAfter(current.metadata.finalizers, a.verb);
        try {
          const written = await client.patch<NodeRoll>(
            NODEROLLS,
            undefined,
            roll,
            { metadata: { resourceVersion: current.metadata.resourceVersion, finalizers } },
            'merge',
          );
          // Not remembered once off: a deleted roll then goes, and the watch says so.
          if (a.verb === 'addFinalizer') this.rolls.assume(written);
          return written;
        } catch (err) {
          // Gone once its last finalizer was off: nothing is left to do.
          if (a.verb === 'removeFinalizer' && isKind(err, 'NotFound')) return undefined;
          throw err;
        }
      }
      case 'holdRebalance':
        await this.provider.holdRebalance(a.group, roll);
        return;
      case 'releaseRebalance':
        await this.provider.releaseRebalance(a.group, roll);
        return;
      case 'scaleGroup':
        await this.provider.scale(a.group, a.to);
        log.info('scaled node group', { group: a.group, to: a.to });
        return;
      case 'cordon':
      case 'uncordon':
        await client.patch(NODES, undefined, a.node, { spec: { unschedulable: a.verb === 'cordon' } }, 'merge');
        log.info(`${a.verb}ed node`, { node: a.node });
        return;
      case 'evict':
        // A PodDisruptionBudget may say not now (or the pod is gone): the next pass looks again.
        if (await client.evictPod(a.namespace, a.pod))
          log.info('evicted pod', { node: a.node, pod: `${a.namespace}/${a.pod}` });
        return;
      case 'terminate':
        await this.provider.terminate(a.group, a.node, a.shrink);
        log.info('terminated node', { group: a.group, node: a.node });
        return;
      case 'createAnalysisRun': {
        try {
          const run = await client.createAnalysisRun(a.run);
          this.analysis?.runs.assume(run);
          log.info('started analysis run', {
            node: a.node,
            analysisRun: `${run.metadata.namespace}/${run.metadata.name}`,
          });
        } catch (err) {
          // Made by an earlier pass the cache has not seen yet: the watch brings it.
          if (!isKind(err, 'AlreadyExists')) throw err;
        }
        return;
      }
    }
  }

  /** Stores `status` unless it is already stored; false when a newer NodeRoll (409) or none (404) stands in the way. */
  private async writeStatus(roll: NodeRoll, status: NodeRollStatus, stats: { writes: number }): Promise<boolean> {
    if (semanticEqual(status, roll.status ?? {})) return true;
    try {
      const written = await this.mgr.client.replace<NodeRoll>(
        NODEROLLS,
        undefined,
        roll.metadata.name ?? '',
        { ...roll, status },
        'status',
      );
      this.rolls.assume(written);
      stats.writes++;
      return true;
    } catch (err) {
      if (!isKind(err, 'Conflict') && !isKind(err, 'NotFound')) throw err;
      return false;
    }
  }
}
