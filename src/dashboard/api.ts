// The dashboard's JSON API: what the server sends and the page reads (types only; the page
// imports them too, so both sides are type-checked against one definition). docs/dashboard.md
// describes the endpoints.

/** A Deployment's state on the home page, from its conditions and counts (model.ts). */
export type DashboardState =
  | 'progressing'
  | 'complete'
  | 'paused'
  | 'waiting'
  | 'deadline-exceeded'
  | 'analysis-failing'
  | 'invalid';

export interface ConditionView {
  type: string;
  status: string;
  reason: string;
  message: string;
  lastUpdateTime: string;
}

export interface DeploymentView {
  uid: string;
  namespace: string;
  name: string;
  strategy: string;
  desired: number;
  ready: number;
  updated: number;
  available: number;
  /** The revision annotation (pacer.dev/revision); null before the controller has written one. */
  revision: number | null;
  state: DashboardState;
  /** Why, as `Reason: message` of the deciding condition ('' for nothing to say). */
  stateMessage: string;
  paused: boolean;
  images: string[];
  conditions: ConditionView[];
  createdAt: string;
}

export interface ReplicaSetView {
  uid: string;
  namespace: string;
  name: string;
  /** The uid of the pacer.dev Deployment that controls it. */
  deploymentUid: string;
  revision: number | null;
  desired: number;
  replicas: number;
  ready: number;
  available: number;
  images: string[];
  changeCause: string;
  createdAt: string;
}

export interface PodView {
  uid: string;
  namespace: string;
  name: string;
  /** The name of the ReplicaSet that controls it. */
  replicaSet: string;
  /** In kubelet's words: Running, ContainerCreating, CrashLoopBackOff, Terminating... */
  status: string;
  /** Running with every container ready. */
  healthy: boolean;
  readyContainers: number;
  containers: number;
  restarts: number;
  node: string;
  createdAt: string;
}

export interface ConfigView {
  /** The namespace served, or null for every namespace (-A). */
  namespace: string | null;
  readOnly: boolean;
  /** The API server the dashboard talks to. */
  server: string;
}

export interface Snapshot {
  config: ConfigView;
  deployments: DeploymentView[];
  replicaSets: ReplicaSetView[];
  pods: PodView[];
}

export type Kind = 'deployment' | 'replicaSet' | 'pod';

export type Change =
  | { kind: 'deployment'; op: 'put'; obj: DeploymentView }
  | { kind: 'replicaSet'; op: 'put'; obj: ReplicaSetView }
  | { kind: 'pod'; op: 'put'; obj: PodView }
  | { kind: Kind; op: 'delete'; namespace: string; name: string };

/** The `waiting` event, before the snapshot: the lists that fail, in the API server's words (RBAC's 403, say). */
export interface Waiting {
  problems: string[];
}

/** The `resumed` event: the stream goes on after the id the page last saw, with `changes` to replay. */
export interface Resumed {
  after: string;
  changes: number;
}

export type Action = 'pause' | 'resume' | 'undo';

export interface ActionRequest {
  /** For undo: the revision to go back to (0 or absent: the previous one). */
  toRevision?: number;
}

/** A POST's answer, success or not: kubectl's line (`deployment.pacer.dev/web paused`, or the error). */
export interface ActionResult {
  ok: boolean;
  message: string;
  warnings?: string[];
}
