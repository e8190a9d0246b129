// The page's model of the cluster: the views the server sent (a snapshot, then changes), and what
// each view of the page reads from them. Pure functions, no DOM: test/unit/dashboard/page-state.test.ts
// runs them under Node.

import type {
  Change,
  ConfigView,
  DashboardState,
  DeploymentView,
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
}

/** The home page's rows: those that pass `f`, by namespace then name. */
export function rows(m: Model, f: Filter): DeploymentView[] {
  const name = f.name.trim().toLowerCase();
  return [...m.deployments.values()]
    .filter((d) => (name === '' || d.name.toLowerCase().includes(name)) && (f.state === '' || d.state === f.state))
    .sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
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
