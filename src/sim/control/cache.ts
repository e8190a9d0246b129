// The control plane's informer cache: what the simulated controllers read, fed by the store's
// change stream (synchronous after each commit, so it is never behind a write that returned).
// It keeps whole objects for the kinds the loops reason about (pods, ReplicaSets, nodes, PDBs),
// the indexes they need (pods by controller, by node, unscheduled), and the garbage
// collector's graph (every object's owners, every owner's dependents) for all other kinds.

import type { KubeObject, ResourceRef, StoreEvent } from '../types.ts';
import { controllerRef, isActivePod, isDeleting, isTerminal, nodeNameOf, type OwnerRef } from './util.ts';

export function refKey(ref: ResourceRef): string {
  return `${ref.group}/${ref.resource}`;
}

/** Objects of one kind by namespace ('' for cluster-scoped) and name. */
export class KindIndex {
  readonly byNs = new Map<string, Map<string, KubeObject>>();

  get(namespace: string | undefined, name: string): KubeObject | undefined {
    return this.byNs.get(namespace ?? '')?.get(name);
  }

  inNamespace(namespace: string | undefined): KubeObject[] {
    return [...(this.byNs.get(namespace ?? '')?.values() ?? [])];
  }

  all(): KubeObject[] {
    const out: KubeObject[] = [];
    for (const m of this.byNs.values()) out.push(...m.values());
    return out;
  }

  countIn(namespace: string | undefined): number {
    return this.byNs.get(namespace ?? '')?.size ?? 0;
  }

  set(obj: KubeObject): KubeObject | undefined {
    const ns = obj.metadata.namespace ?? '';
    let m = this.byNs.get(ns);
    if (!m) this.byNs.set(ns, (m = new Map()));
    const old = m.get(obj.metadata.name ?? '');
    m.set(obj.metadata.name ?? '', obj);
    return old;
  }

  remove(obj: KubeObject): KubeObject | undefined {
    const ns = obj.metadata.namespace ?? '';
    const m = this.byNs.get(ns);
    const old = m?.get(obj.metadata.name ?? '');
    m?.delete(obj.metadata.name ?? '');
    if (m && m.size === 0) this.byNs.delete(ns);
    return old;
  }
}

/** One vertex of the garbage collector's graph. */
export interface GcNode {
  uid: string;
  ref: ResourceRef;
  namespace?: string;
  name: string;
  owners: OwnerRef[];
  deleting: boolean;
  finalizers: string[];
}

function addTo<K, V>(m: Map<K, Set<V>>, k: K, v: V): void {
  let s = m.get(k);
  if (!s) m.set(k, (s = new Set()));
  s.add(v);
}

function removeFrom<K, V>(m: Map<K, Set<V>>, k: K, v: V): void {
  const s = m.get(k);
  if (!s) return;
  s.delete(v);
  if (s.size === 0) m.delete(k);
}

/** The object of a "namespace/name" key ("/name" when cluster-scoped). */
function byKey(kind: KindIndex, key: string): KubeObject | undefined {
  const i = key.indexOf('/');
  return kind.get(key.slice(0, i), key.slice(i + 1));
}

export class ClusterCache {
  readonly pods = new KindIndex();
  readonly replicasets = new KindIndex();
  readonly nodes = new KindIndex();
  readonly pdbs = new KindIndex();
  /** Pod keys ("ns/name") by the uid of their controller; pods without one under "orphan/<ns>". */
  readonly podsByController = new Map<string, Set<string>>();
  /** Pod keys by spec.nodeName. */
  readonly podsByNode = new Map<string, Set<string>>();
  /**
   * Non-terminal pods by spec.nodeName (terminating pods still hold their slot): what the scheduler
   * weighs a node by, kept here so that a pass costs the nodes, not every pod they hold.
   */
  readonly livePodsByNode = new Map<string, number>();
  /** Active pods that no node holds yet: the scheduler's queue. */
  readonly unscheduled = new Set<string>();
  /** The garbage collector's graph. */
  readonly gcNodes = new Map<string, GcNode>();
  readonly dependents = new Map<string, Set<string>>();

  private kind(ref: ResourceRef): KindIndex | undefined {
    switch (refKey(ref)) {
      case '/pods':
        return this.pods;
      case 'apps/replicasets':
        return this.replicasets;
      case '/nodes':
        return this.nodes;
      case 'policy/poddisruptionbudgets':
        return this.pdbs;
      default:
        return undefined;
    }
  }

  /** Node names in natural order (node-2 before node-10), kept until a node comes or goes. */
  private nodeOrder?: string[];

  /** The nodes in natural order of their names (the scheduler's order of preference on ties). */
  nodesInOrder(): KubeObject[] {
    this.nodeOrder ??= this.nodes
      .all()
      .map((n) => n.metadata.name ?? '')
      .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
    return this.byKeys(
      this.nodes,
      this.nodeOrder.map((n) => `/${n}`),
    );
  }

  /** Applies one change; returns the previous version of the object when the cache held it. */
  apply(e: StoreEvent): KubeObject | undefined {
    const obj = e.object;
    let old: KubeObject | undefined;
    const kind = this.kind(e.ref);
    if (kind) {
      old = e.type === 'DELETED' ? kind.remove(obj) : kind.set(obj);
      if (kind === this.pods) this.indexPod(old, e.type === 'DELETED' ? undefined : obj);
      if (kind === this.nodes && (!old || e.type === 'DELETED')) this.nodeOrder = undefined;
    }
    // Events are many, never owners and never owned: leave them out of the graph.
    if (refKey(e.ref) !== '/events') this.indexGc(e.ref, e.type === 'DELETED' ? undefined : obj, obj);
    return old;
  }

  private indexPod(old: KubeObject | undefined, cur: KubeObject | undefined): void {
    const o = old ?? cur;
    if (!o) return;
    const key = `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
    if (old) {
      removeFrom(this.podsByController, controllerRef(old)?.uid ?? `orphan/${old.metadata.namespace ?? ''}`, key);
      const n = nodeNameOf(old);
      if (n) {
        removeFrom(this.podsByNode, n, key);
        if (!isTerminal(old)) this.countLive(n, -1);
      }
      this.unscheduled.delete(key);
    }
    if (cur) {
      addTo(this.podsByController, controllerRef(cur)?.uid ?? `orphan/${cur.metadata.namespace ?? ''}`, key);
      const n = nodeNameOf(cur);
      if (n) {
        addTo(this.podsByNode, n, key);
        if (!isTerminal(cur)) this.countLive(n, 1);
      } else if (isActivePod(cur)) this.unscheduled.add(key);
    }
  }

  private countLive(node: string, by: number): void {
    const n = (this.livePodsByNode.get(node) ?? 0) + by;
    if (n === 0) this.livePodsByNode.delete(node);
    else this.livePodsByNode.set(node, n);
  }

  private indexGc(ref: ResourceRef, cur: KubeObject | undefined, last: KubeObject): void {
    const uid = last.metadata.uid;
    if (!uid) return;
    const prev = this.gcNodes.get(uid);
    if (prev) {
      for (const o of prev.owners) removeFrom(this.dependents, o.uid, uid);
    }
    if (!cur) {
      this.gcNodes.delete(uid);
      return;
    }
    const node: GcNode = {
      uid,
      ref: { group: ref.group, version: ref.version, resource: ref.resource },
      namespace: cur.metadata.namespace,
      name: cur.metadata.name ?? '',
      owners: [...(cur.metadata.ownerReferences ?? [])],
      deleting: isDeleting(cur),
      finalizers: [...(cur.metadata.finalizers ?? [])],
    };
    this.gcNodes.set(uid, node);
    for (const o of node.owners) addTo(this.dependents, o.uid, uid);
  }

  podByKey(key: string): KubeObject | undefined {
    return byKey(this.pods, key);
  }

  podsOf(index: Map<string, Set<string>>, k: string): KubeObject[] {
    return this.byKeys(this.pods, index.get(k));
  }

  /** The ReplicaSets whose controller has uid `uid`: its dependents in the garbage collector's graph. */
  replicaSetsOf(uid: string): KubeObject[] {
    const out: KubeObject[] = [];
    for (const dep of this.dependents.get(uid) ?? []) {
      const n = this.gcNodes.get(dep);
      if (!n || refKey(n.ref) !== 'apps/replicasets' || !n.owners.some((o) => o.uid === uid && o.controller === true))
        continue;
      const rs = this.replicasets.get(n.namespace, n.name);
      if (rs) out.push(rs);
    }
    return out;
  }

  private byKeys(kind: KindIndex, keys: Iterable<string> | undefined): KubeObject[] {
    const out: KubeObject[] = [];
    for (const key of keys ?? []) {
      const obj = byKey(kind, key);
      if (obj) out.push(obj);
    }
    return out;
  }
}
