// The page's model of the cluster: the views the server sent (a snapshot, then changes), and what
// each view of the page reads from them. Pure functions, no DOM: test/unit/dashboard/page-state.test.ts
// runs them under Node.

import type {
  AnalysisRunView,
  Change,
  ConfigView,
  DashboardState,
  DeploymentView,
  EventView,
  FreezeView,
  Kind,
  NodeRollView,
  PlanResourceView,
  PodView,
  ReplicaSetView,
  Snapshot,
  SourceView,
} from '../src/dashboard/api.ts';

export interface Model {
  config: ConfigView;
  deployments: ReadonlyMap<string, DeploymentView>;
  replicaSets: ReadonlyMap<string, ReplicaSetView>;
  pods: ReadonlyMap<string, PodView>;
  /** By "/NAME" (cluster-scoped). */
  nodeRolls: ReadonlyMap<string, NodeRollView>;
  /** The freeze switch: at most one entry, present while on. */
  freeze: ReadonlyMap<string, FreezeView>;
  /** The optional sources' state, by "/NAME" (noderolls, nodes, plans, freeze). */
  sources: ReadonlyMap<string, SourceView>;
  planResources: ReadonlyMap<string, PlanResourceView>;
  analysisRuns: ReadonlyMap<string, AnalysisRunView>;
  /** Events of Deployments, ReplicaSets and pods, by "NAMESPACE/EVENT-NAME". */
  events: ReadonlyMap<string, EventView>;
}

/** The Model's map of each kind of change. */
const MAP_OF: Readonly<Record<Kind, keyof Omit<Model, 'config'>>> = {
  deployment: 'deployments',
  replicaSet: 'replicaSets',
  pod: 'pods',
  nodeRoll: 'nodeRolls',
  freeze: 'freeze',
  source: 'sources',
  planResource: 'planResources',
  analysisRun: 'analysisRuns',
  event: 'events',
};

/** The labels of the states, in the order the page lists them (every state: the type says so). */
export const STATE_LABELS: Readonly<Record<DashboardState, string>> = {
  progressing: 'progressing',
  complete: 'complete',
  paused: 'paused',
  waiting: 'waiting for an operator',
  'deadline-exceeded': 'deadline exceeded',
  'analysis-failing': 'analysis failing',
  invalid: 'invalid spec',
};

export const STATES = Object.keys(STATE_LABELS) as DashboardState[];

export const keyOf = (v: { namespace: string; name: string }): string => `${v.namespace}/${v.name}`;

function byKey<V extends { namespace: string; name: string }>(items: readonly V[]): Map<string, V> {
  return new Map(items.map((v) => [keyOf(v), v]));
}

export function fromSnapshot(s: Snapshot): Model {
  return {
    config: s.config,
    deployments: byKey(s.deployments),
    replicaSets: byKey(s.replicaSets),
    pods: byKey(s.pods),
    nodeRolls: byKey(s.nodeRolls),
    freeze: byKey(s.freeze),
    sources: byKey(s.sources),
    planResources: byKey(s.planResources),
    analysisRuns: byKey(s.analysisRuns),
    events: byKey(s.events),
  };
}

/** The model after `changes`, in order; the maps that changed are new (the page redraws from them). */
export function applyChanges(m: Model, changes: readonly Change[]): Model {
  const changed = new Map<keyof Omit<Model, 'config'>, Map<string, unknown>>();
  for (const c of changes) {
    const key = c.op === 'put' ? keyOf(c.obj) : `${c.namespace}/${c.name}`;
    const field = MAP_OF[c.kind];
    let map = changed.get(field);
    if (!map) changed.set(field, (map = new Map<string, unknown>(m[field])));
    if (c.op === 'put') map.set(key, c.obj);
    else map.delete(key);
  }
  return { ...m, ...Object.fromEntries(changed) } as Model;
}

/** The freeze switch while it is on. */
export function frozen(m: Model): FreezeView | undefined {
  return m.freeze.values().next().value;
}

/** The node rolls by name. */
export function nodeRolls(m: Model): NodeRollView[] {
  return [...m.nodeRolls.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** Zone counts in words, zones by name: "a 2, b 2, c 2" ('—' for none). */
export function zonesInWords(z: Readonly<Record<string, number>>): string {
  const names = Object.keys(z).sort();
  return names.length === 0 ? '—' : names.map((n) => `${n || '(no zone)'} ${z[n]}`).join(', ');
}

export interface Filter {
  /** A part of the name, any case ('' for every name). */
  name: string;
  /** One state, or '' for every state. */
  state: DashboardState | '';
  /** One namespace, or '' (or left out) for every namespace served. */
  namespace?: string;
  /** Only the Deployments that need someone (ATTENTION_STATES). */
  attention?: boolean;
}

/**
 * The states that need someone: a deadline missed, failing analysis, an invalid spec, or a plan or
 * freeze waiting for an operator. Paused is left out: somebody chose it.
 */
export const ATTENTION_STATES: ReadonlySet<DashboardState> = new Set([
  'deadline-exceeded',
  'analysis-failing',
  'invalid',
  'waiting',
]);

/** The home page's columns, in the order of the table. */
export const SORT_KEYS = [
  'name',
  'namespace',
  'strategy',
  'ready',
  'updated',
  'available',
  'revision',
  'state',
] as const;
export type SortKey = (typeof SORT_KEYS)[number];

/** The home page's order: a column, and which way (ties by namespace, then name). */
export interface Sort {
  by: SortKey;
  descending: boolean;
}

/** The default order: by namespace, then name. */
export const DEFAULT_SORT: Sort = { by: 'namespace', descending: false };

/** Each column's value for sorting: names as text; counts as numbers; ready as the share of desired; states in STATES' order. */
const SORT_VALUE: Readonly<Record<SortKey, (d: DeploymentView) => string | number>> = {
  name: (d) => d.name,
  namespace: (d) => d.namespace,
  strategy: (d) => d.strategy,
  ready: (d) => (d.desired === 0 ? 1 : d.ready / d.desired),
  updated: (d) => d.updated,
  available: (d) => d.available,
  revision: (d) => d.revision ?? -1,
  state: (d) => STATES.indexOf(d.state),
};

function compareBy(sort: Sort): (a: DeploymentView, b: DeploymentView) => number {
  const value = SORT_VALUE[sort.by];
  const sign = sort.descending ? -1 : 1;
  return (a, b) => {
    const x = value(a);
    const y = value(b);
    const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
    return sign * c || a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name);
  };
}

/** The home page's rows: those that pass `f`, in `sort`'s order (by namespace then name unless given). */
export function rows(m: Model, f: Filter, sort: Sort = DEFAULT_SORT): DeploymentView[] {
  const name = f.name.trim().toLowerCase();
  return [...m.deployments.values()]
    .filter(
      (d) =>
        (name === '' || d.name.toLowerCase().includes(name)) &&
        (f.state === '' || d.state === f.state) &&
        (!f.namespace || d.namespace === f.namespace) &&
        (!f.attention || ATTENTION_STATES.has(d.state)),
    )
    .sort(compareBy(sort));
}

/** The namespaces of the Deployments shown, by name (the namespace filter's choices). */
export function namespaces(m: Model): string[] {
  return [...new Set([...m.deployments.values()].map((d) => d.namespace))].sort();
}

/** How many rows a page of the home table shows: a thousand Deployments are ten pages, not one long table. */
export const PAGE_SIZE = 100;

/** Page `page` (from 0, clamped to the pages there are) of `all`: its rows, and which page of how many it is. */
export function pageOf<T>(
  all: readonly T[],
  page: number,
  size = PAGE_SIZE,
): { items: T[]; page: number; pages: number } {
  const pages = Math.max(1, Math.ceil(all.length / size));
  const at = Math.min(Math.max(0, Math.floor(page)), pages - 1);
  return { items: all.slice(at * size, (at + 1) * size), page: at, pages };
}

/** How many Deployments are in each state (every state present, 0 included). */
export function counts(m: Model): Record<DashboardState, number> {
  const out = Object.fromEntries(STATES.map((s) => [s, 0])) as Record<DashboardState, number>;
  for (const d of m.deployments.values()) out[d.state]++;
  return out;
}

export interface RevisionNode {
  replicaSet: ReplicaSetView;
  pods: PodView[];
  /** The Deployment's current revision. */
  current: boolean;
}

/** A Deployment's ReplicaSets, newest revision first, each with its pods by name. */
export function revisions(m: Model, d: DeploymentView): RevisionNode[] {
  const rss = [...m.replicaSets.values()].filter((rs) => rs.deploymentUid === d.uid && rs.namespace === d.namespace);
  const podsOf = new Map<string, PodView[]>(rss.map((rs) => [rs.name, []]));
  for (const p of m.pods.values()) if (p.namespace === d.namespace) podsOf.get(p.replicaSet)?.push(p);
  return rss
    .sort((a, b) => (b.revision ?? -1) - (a.revision ?? -1) || a.name.localeCompare(b.name))
    .map((rs) => ({
      replicaSet: rs,
      pods: (podsOf.get(rs.name) ?? []).sort((a, b) => a.name.localeCompare(b.name)),
      current: rs.revision !== null && rs.revision === d.revision,
    }));
}

/** How long ago `iso` was, as kubectl prints ages (5s, 3m, 2h, 4d); '' without a time. */
export function age(iso: string, now: number): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const s = Math.max(0, Math.floor((now - t) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

/** How many Events a Deployment's page lists at most (the newest). */
export const EVENTS_SHOWN = 25;

/**
 * The Events of Deployment `d`, its ReplicaSets and their pods (as revisions() finds them; a pod
 * already deleted by its name, its ReplicaSet's and a suffix), newest first (ties by name), at most
 * `limit`, and how many there are in all.
 */
export function eventsOf(m: Model, d: DeploymentView, limit = EVENTS_SHOWN): { items: EventView[]; total: number } {
  const tree = revisions(m, d);
  const about = new Set<string>([`Deployment/${d.name}`]);
  const replicaSets = new Set<string>();
  for (const { replicaSet, pods } of tree) {
    about.add(`ReplicaSet/${replicaSet.name}`);
    replicaSets.add(replicaSet.name);
    for (const p of pods) about.add(`Pod/${p.name}`);
  }
  // A pod already gone is still known by its name: its ReplicaSet's name and a generated suffix.
  const podOfGone = (name: string) => {
    const cut = name.lastIndexOf('-');
    return cut > 0 && replicaSets.has(name.slice(0, cut));
  };
  const all = [...m.events.values()]
    .filter(
      (e) =>
        e.namespace === d.namespace &&
        (about.has(`${e.objectKind}/${e.objectName}`) || (e.objectKind === 'Pod' && podOfGone(e.objectName))),
    )
    .sort((a, b) => (Date.parse(b.lastSeen) || 0) - (Date.parse(a.lastSeen) || 0) || a.name.localeCompare(b.name));
  return { items: all.slice(0, limit), total: all.length };
}
