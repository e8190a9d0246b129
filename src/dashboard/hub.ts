// The dashboard's one cache for every page: one informer per type (pacer.dev Deployments, apps/v1
// ReplicaSets, the pods of Deployments; the manager's Informer, which recovers from every failed
// list and watch), each object turned into its view (model.ts) as it changes. Every change that
// alters a view gets the next sequence number and goes into a bounded log, so a page that lost
// its stream asks for what came after the last id it saw and gets exactly that, or, when that id
// is no longer in the log (or is from an earlier run of the server), a new snapshot.

import { randomUUID } from 'node:crypto';
import type { AnalysisRun } from '../api/analysis.ts';
import type { NodeRoll } from '../api/noderoll.ts';
import type { Deployment, PlanResource, Pod, ReplicaSet } from '../api/types.ts';
import { PACER_NAMESPACE } from '../api/types.ts';
import { FREEZE_CONFIGMAP, planStepNames, serviceMembers } from '../engine/index.ts';
import {
  ANALYSIS_RUNS,
  CONFIGMAPS,
  DEPLOYMENTS,
  EVENTS,
  NODEROLLS,
  NODES,
  PLANS,
  PODS,
  REPLICASETS,
} from '../kube/client.ts';
import type { KubeClient } from '../kube/client.ts';
import { toKubeError } from '../kube/errors.ts';
import type { KubeError } from '../kube/errors.ts';
import { cacheTransform } from '../kube/slim.ts';
import { Informer, kubeSource } from '../manager/informer.ts';
import type { ListWatchSource } from '../manager/informer.ts';
import type {
  AnalysisRunView,
  Change,
  DeploymentView,
  EventView,
  FreezeView,
  Kind,
  NodeRollView,
  PlanResourceView,
  PodView,
  ReplicaSetView,
  RevisionDiffView,
  ServicePlansView,
  SourceView,
} from './api.ts';
import { analysisRunView } from './analysis.ts';
import { deploymentView, eventView, podView, replicaSetView, slimEvent } from './model.ts';
import type { EventObject } from './model.ts';
import { freezeView, nodeRollView, zoneOf } from './noderolls.ts';
import type { NodeFacts } from './noderolls.ts';
import { servicePlansView } from './plans.ts';
import { revisionTemplates, templateDiff } from './diff.ts';

/** The label every pod of a Deployment carries (the ReplicaSet's pod-template-hash): the pods watched. */
export const DEPLOYMENT_PODS = 'pod-template-hash';

/** A Node as the hub keeps it: identity and labels (its zone, the node rolls' selectors). */
export type NodeObject = {
  metadata: {
    name?: string;
    namespace?: string;
    resourceVersion?: string;
    uid?: string;
    labels?: Record<string, string>;
  };
};
export type ConfigMapObject = {
  metadata: { name?: string; namespace?: string; resourceVersion?: string; uid?: string; creationTimestamp?: string };
  data?: Record<string, string>;
};

export interface HubSources {
  deployments: ListWatchSource<Deployment>;
  replicaSets: ListWatchSource<ReplicaSet>;
  pods: ListWatchSource<Pod>;
  /**
   * The optional sources: the page is served without them (a user RBAC denies them still sees the
   * Deployments), and each one's state is told to the page as a `source` view.
   */
  nodeRolls?: ListWatchSource<NodeRoll>;
  nodes?: ListWatchSource<NodeObject>;
  plans?: ListWatchSource<PlanResource>;
  freeze?: ListWatchSource<ConfigMapObject>;
  analysisRuns?: ListWatchSource<AnalysisRun>;
  /** core/v1 Events (those about Deployments, ReplicaSets and pods are kept): one informer for every page. */
  events?: ListWatchSource<EventObject>;
}

const slimNode = (n: NodeObject): NodeObject => ({
  metadata: {
    name: n.metadata.name,
    resourceVersion: n.metadata.resourceVersion,
    uid: n.metadata.uid,
    ...(n.metadata.labels ? { labels: n.metadata.labels } : {}),
  },
});

/**
 * The sources through `client`: Deployments, ReplicaSets, pods, custom Plans and AnalysisRuns in `namespace`
 * (undefined: every namespace); NodeRolls and Nodes (cluster-scoped); and the freeze switch, the
 * ConfigMap pacer-freeze in `pacerNamespace` (by a field selector on its name: no other ConfigMap).
 */
export function kubeSources(
  client: KubeClient,
  namespace: string | undefined,
  pacerNamespace: string = PACER_NAMESPACE,
): HubSources {
  const slimPod = cacheTransform(PODS) as (p: Pod) => Pod;
  return {
    nodeRolls: kubeSource<NodeRoll>(client, NODEROLLS, undefined, undefined, cacheTransform(NODEROLLS)),
    nodes: kubeSource<NodeObject>(client, NODES, undefined, undefined, slimNode),
    plans: kubeSource<PlanResource>(client, PLANS, namespace, undefined, cacheTransform(PLANS)),
    freeze: kubeSource<ConfigMapObject>(client, CONFIGMAPS, pacerNamespace, `metadata.name=${FREEZE_CONFIGMAP}`),
    analysisRuns: kubeSource<AnalysisRun>(client, ANALYSIS_RUNS, namespace, undefined, cacheTransform(ANALYSIS_RUNS)),
    deployments: kubeSource<Deployment>(client, DEPLOYMENTS, namespace, undefined, cacheTransform(DEPLOYMENTS)),
    replicaSets: kubeSource<ReplicaSet>(client, REPLICASETS, namespace, undefined, cacheTransform(REPLICASETS)),
    events: kubeSource<EventObject>(client, EVENTS, namespace, undefined, slimEvent),
    pods: {
      list: (signal) =>
        client.list<Pod>(PODS, namespace, { labelSelector: DEPLOYMENT_PODS, transform: slimPod }, signal),
      watch: (resourceVersion, onEvent, signal, onOpen) =>
        client.watch<Pod>(
          PODS,
          namespace,
          {
            resourceVersion,
            labelSelector: DEPLOYMENT_PODS,
            timeoutSeconds: 300 + Math.floor(Math.random() * 300),
            ...(onOpen ? { onOpen } : {}),
          },
          (e) =>
            onEvent(
              e.type === 'ADDED' || e.type === 'MODIFIED' || e.type === 'DELETED'
                ? { ...e, object: slimPod(e.object) }
                : e,
            ),
          signal,
        ),
    },
  };
}

/** A change and its place in the stream. */
export interface Sequenced {
  id: string;
  change: Change;
}

export interface HubOptions {
  /** How many changes are kept for pages that resume (default 10,000). */
  logSize?: number;
  onError?(err: KubeError, what: string): void;
  /** The time the plans are built at (default Date.now). */
  now?: () => number;
}

type View =
  | DeploymentView
  | ReplicaSetView
  | PodView
  | NodeRollView
  | FreezeView
  | SourceView
  | PlanResourceView
  | AnalysisRunView
  | EventView;

/** The optional sources by the name their `source` view has. */
type Optional = 'noderolls' | 'nodes' | 'plans' | 'freeze' | 'analysisruns' | 'events';

export class Hub {
  /** This run's prefix of every id: an id of an earlier run is never taken for one of this run. */
  readonly epoch = randomUUID().slice(0, 8);
  private seq = 0;
  private readonly log: Array<{ seq: number; change: Change }> = [];
  private readonly logSize: number;
  private readonly views: Record<Kind, Map<string, { json: string; view: View }>> = {
    deployment: new Map(),
    replicaSet: new Map(),
    pod: new Map(),
    nodeRoll: new Map(),
    freeze: new Map(),
    source: new Map(),
    planResource: new Map(),
    analysisRun: new Map(),
    event: new Map(),
  };
  private readonly listeners = new Set<(s: Sequenced) => void>();
  /** Why each type's last list failed (the API server's words), until a list works. */
  private readonly failing = new Map<string, string>();
  private readonly problemListeners = new Set<() => void>();
  private readonly informers: Array<Informer<Deployment> | Informer<ReplicaSet> | Informer<Pod>>;
  private readonly optional: Array<{ start(): void; stop(): Promise<void> }> = [];
  private readonly deploymentCache: Informer<Deployment>;
  private readonly replicaSetCache: Informer<ReplicaSet>;
  private readonly podCache: Informer<Pod>;
  private planCache: Informer<PlanResource> | undefined;
  private nodeRollCache: Informer<NodeRoll> | undefined;
  private nodeCache: Informer<NodeObject> | undefined;
  /** The zone of every node seen while the dashboard ran, by name (a roll's original nodes are counted from it once gone). */
  private readonly seenZones = new Map<string, string>();
  private readonly now: () => number;

  constructor(sources: HubSources, opts: HubOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.logSize = opts.logSize ?? 10_000;
    const onError = opts.onError ? { onError: opts.onError } : {};
    const deployments = new Informer(this.watched('deployments', sources.deployments), {
      name: 'deployments',
      ...onError,
    });
    const replicaSets = new Informer(this.watched('replicasets', sources.replicaSets), {
      name: 'replicasets',
      ...onError,
    });
    const pods = new Informer(this.watched('pods', sources.pods), { name: 'pods', ...onError });
    this.follow(deployments, 'deployment', deploymentView);
    this.follow(replicaSets, 'replicaSet', replicaSetView);
    this.follow(pods, 'pod', podView);
    this.informers = [deployments, replicaSets, pods];
    this.deploymentCache = deployments;
    this.replicaSetCache = replicaSets;
    this.podCache = pods;
    if (sources.nodes) {
      const nodes = this.optionalInformer('nodes', sources.nodes, onError);
      this.nodeCache = nodes;
      const refresh = () => this.refreshNodeRolls();
      nodes.on({
        add: (n) => {
          this.seenZones.set(n.metadata.name ?? '', zoneOf(n.metadata.labels));
          refresh();
        },
        update: (old, n) => {
          if (old.metadata.resourceVersion === n.metadata.resourceVersion) return;
          this.seenZones.set(n.metadata.name ?? '', zoneOf(n.metadata.labels));
          refresh();
        },
        delete: refresh,
      });
    }
    if (sources.nodeRolls) {
      this.nodeRollCache = this.optionalInformer('noderolls', sources.nodeRolls, onError);
      this.follow(this.nodeRollCache, 'nodeRoll', (r) => this.nodeRollViewOf(r));
    }
    if (sources.plans) {
      this.planCache = this.optionalInformer('plans', sources.plans, onError);
      this.follow(this.planCache, 'planResource', (p) => ({
        namespace: p.metadata.namespace ?? '',
        name: p.metadata.name ?? '',
        resourceVersion: p.metadata.resourceVersion ?? '',
      }));
    }
    if (sources.freeze) this.follow(this.optionalInformer('freeze', sources.freeze, onError), 'freeze', freezeView);
    if (sources.analysisRuns)
      this.follow(this.optionalInformer('analysisruns', sources.analysisRuns, onError), 'analysisRun', analysisRunView);
    if (sources.events) this.follow(this.optionalInformer('events', sources.events, onError), 'event', eventView);
  }

  /** An informer of an optional source: its lists' outcomes go to the page as a `source` view, never hold it. */
  private optionalInformer<
    T extends { metadata: { name?: string; namespace?: string; resourceVersion?: string; uid?: string } },
  >(name: Optional, source: ListWatchSource<T>, onError: Pick<HubOptions, 'onError'>): Informer<T> {
    const tell = (problem: string) =>
      this.put('source', { namespace: '', name, synced: informer.hasSynced(), problem } satisfies SourceView);
    const informer: Informer<T> = new Informer(
      {
        list: async (signal) => {
          try {
            const list = await source.list(signal);
            // The list's objects are delivered after this returns: synced is told once they are.
            queueMicrotask(() => tell(''));
            return list;
          } catch (err) {
            if (!signal.aborted) tell(toKubeError(err).message);
            throw err;
          }
        },
        watch: (rv, onEvent, signal, onOpen) => source.watch(rv, onEvent, signal, onOpen),
      },
      { name, ...onError },
    );
    this.put('source', { namespace: '', name, synced: false, problem: '' } satisfies SourceView);
    this.optional.push(informer);
    void informer.waitForSync().then(() => tell(''));
    return informer;
  }

  private nodeRollViewOf(roll: NodeRoll): NodeRollView {
    const nodes: NodeFacts[] = (this.nodeCache?.list() ?? []).map((n) => ({
      name: n.metadata.name ?? '',
      labels: n.metadata.labels ?? {},
    }));
    return nodeRollView(roll, this.seenZones, nodes);
  }

  /** Every roll's view again (a node changed: its zones now may have). */
  private refreshNodeRolls(): void {
    for (const r of this.nodeRollCache?.list() ?? []) this.put('nodeRoll', this.nodeRollViewOf(r));
  }

  /**
   * The Deployments a plan operation changes, as the controller's plan API counts them: a custom
   * Plan's (the Deployments its steps name), else the service's (it and those joined to it; just
   * `service` when the cache has none of them).
   */
  planTargets(namespace: string, service: string, plan: string): { deployments: string[]; custom: boolean } {
    const custom =
      plan !== 'deploy' && plan !== 'recovery'
        ? this.planCache?.list(namespace).find((p) => p.metadata.name === plan)
        : undefined;
    if (custom) return { deployments: planStepNames(custom), custom: true };
    const members = serviceMembers(this.deploymentCache.list(namespace), namespace, service).map(
      (d) => d.metadata.name ?? '',
    );
    return { deployments: members.length > 0 ? members : [service], custom: false };
  }

  /** The cached pacer.dev Deployments as stored (of `namespace`, or all): Marathon's deployments and the promotion order are derived from them. */
  deploymentObjects(namespace?: string): Deployment[] {
    return this.deploymentCache.list(namespace);
  }

  /** A service's plans from the caches; undefined when its Deployment is not cached. */
  servicePlans(namespace: string, service: string): ServicePlansView | undefined {
    return servicePlansView(namespace, service, {
      deployments: this.deploymentCache.list(namespace),
      replicaSets: this.replicaSetCache.list(namespace),
      pods: this.podCache.list(namespace),
      plans: this.planCache?.list(namespace) ?? [],
      now: this.now(),
    });
  }

  /**
   * Revision `revision`'s pod template against the Deployment's template now (what an undo to it
   * would change), or, with `against`, against revision `against`'s; or what is missing: the
   * Deployment, or a revision (the first of the two not found).
   */
  revisionDiff(
    namespace: string,
    name: string,
    revision: number,
    against?: number,
  ): RevisionDiffView | 'no deployment' | { missing: number } {
    const d = this.deploymentCache.get(namespace, name);
    if (!d) return 'no deployment';
    const found = revisionTemplates(d, this.replicaSetCache.list(namespace), [
      revision,
      ...(against === undefined ? [] : [against]),
    ]);
    if ('missing' in found) return found;
    const to = found.get(revision)!;
    const from = against === undefined ? undefined : found.get(against)!;
    const lines = templateDiff(from ? from.template : d.spec.template, to.template);
    return {
      namespace,
      name,
      revision,
      replicaSet: to.replicaSet,
      against: against ?? null,
      againstReplicaSet: from?.replicaSet ?? '',
      changed: lines.some((l) => l.op !== 'same'),
      lines,
    };
  }

  /** `source` with its lists' outcomes kept: a failing list (RBAC's 403, say) is a problem the pages are told. */
  private watched<T>(name: string, source: ListWatchSource<T>): ListWatchSource<T> {
    return {
      list: async (signal) => {
        try {
          const list = await source.list(signal);
          this.setProblem(name, undefined);
          return list;
        } catch (err) {
          if (!signal.aborted) this.setProblem(name, toKubeError(err).message);
          throw err;
        }
      },
      watch: (rv, onEvent, signal, onOpen) => source.watch(rv, onEvent, signal, onOpen),
    };
  }

  private setProblem(name: string, message: string | undefined): void {
    if (this.failing.get(name) === message) return;
    if (message === undefined) this.failing.delete(name);
    else this.failing.set(name, message);
    for (const l of this.problemListeners) l();
  }

  /** Why the cache cannot fill, one line per type whose list fails now (`pods: list pods in default: ...`). */
  problems(): string[] {
    return [...this.failing].map(([name, message]) => `${name}: ${message}`);
  }

  /** Calls `fn` whenever problems() changes; returns the unsubscribe. */
  onProblems(fn: () => void): () => void {
    this.problemListeners.add(fn);
    return () => this.problemListeners.delete(fn);
  }

  private follow<T extends { metadata: { name?: string; namespace?: string } }>(
    informer: Informer<T & { metadata: { resourceVersion?: string; uid?: string } }>,
    kind: Kind,
    view: (obj: T) => View | undefined,
  ): void {
    const put = (obj: T) => {
      const v = view(obj);
      if (v === undefined) this.remove(kind, obj);
      else this.put(kind, v);
    };
    informer.on({
      add: put,
      // A resync delivers the same version again: nothing changed.
      update: (old, obj) => {
        if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) put(obj);
      },
      delete: (obj) => this.remove(kind, obj),
    });
  }

  private put(kind: Kind, view: View): void {
    const key = `${view.namespace}/${view.name}`;
    const json = JSON.stringify(view);
    const had = this.views[kind].get(key);
    if (had?.json === json) return;
    this.views[kind].set(key, { json, view });
    this.emit({ kind, op: 'put', obj: view } as Change);
  }

  private remove(kind: Kind, obj: { metadata: { name?: string; namespace?: string } }): void {
    const key = `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
    if (!this.views[kind].delete(key)) return;
    this.emit({ kind, op: 'delete', namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '' });
  }

  private emit(change: Change): void {
    const seq = ++this.seq;
    this.log.push({ seq, change });
    if (this.log.length > this.logSize) this.log.splice(0, this.log.length - this.logSize);
    const s = { id: this.idOf(seq), change };
    for (const l of this.listeners) l(s);
  }

  private idOf(seq: number): string {
    return `${this.epoch}-${seq}`;
  }

  /** The id of the last change (the one a snapshot taken now is current to). */
  lastId(): string {
    return this.idOf(this.seq);
  }

  start(): void {
    for (const i of [...this.informers, ...this.optional]) i.start();
  }

  async stop(): Promise<void> {
    this.listeners.clear();
    this.problemListeners.clear();
    await Promise.all([...this.informers, ...this.optional].map((i) => i.stop()));
  }

  /** Resolves once every informer has listed once. */
  async waitForSync(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.waitForSync()));
  }

  hasSynced(): boolean {
    return this.informers.every((i) => i.hasSynced());
  }

  /** Every view now, and the id it is current to. */
  snapshot(): {
    id: string;
    deployments: DeploymentView[];
    replicaSets: ReplicaSetView[];
    pods: PodView[];
    nodeRolls: NodeRollView[];
    freeze: FreezeView[];
    sources: SourceView[];
    planResources: PlanResourceView[];
    analysisRuns: AnalysisRunView[];
    events: EventView[];
  } {
    const all = <V>(kind: Kind) => [...this.views[kind].values()].map((e) => e.view as V);
    return {
      id: this.lastId(),
      deployments: all<DeploymentView>('deployment'),
      replicaSets: all<ReplicaSetView>('replicaSet'),
      pods: all<PodView>('pod'),
      nodeRolls: all<NodeRollView>('nodeRoll'),
      freeze: all<FreezeView>('freeze'),
      sources: all<SourceView>('source'),
      planResources: all<PlanResourceView>('planResource'),
      analysisRuns: all<AnalysisRunView>('analysisRun'),
      events: all<EventView>('event'),
    };
  }

  /**
   * The changes after `id`, in order; undefined when they cannot be told: an id of another run, an
   * id not yet given, or one so old that the log no longer reaches back to it.
   */
  since(id: string): Sequenced[] | undefined {
    const m = /^([0-9a-f]{8})-([0-9]{1,15})$/.exec(id);
    if (!m || m[1] !== this.epoch) return undefined;
    const after = Number(m[2]);
    if (after > this.seq) return undefined;
    if (after === this.seq) return [];
    const first = this.log[0]?.seq ?? this.seq + 1;
    if (after < first - 1) return undefined;
    return this.log.filter((e) => e.seq > after).map((e) => ({ id: this.idOf(e.seq), change: e.change }));
  }

  /** Calls `fn` with every change from now on; returns the unsubscribe. */
  subscribe(fn: (s: Sequenced) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}
