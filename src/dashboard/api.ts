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
  /** The names of the template's containers, in the order of `images` (set image and a pod's log pick one). */
  containers: string[];
  conditions: ConditionView[];
  /** The strategy's budget in numbers, resolved against spec.replicas as the controller resolves it. */
  budget: BudgetView;
  createdAt: string;
}

/**
 * How far a rollout may go above and below spec.replicas, in pods, as the controller resolves the
 * strategy's settings (engine/fenceposts.ts): `gradual` false for Recreate (every old pod goes first).
 * `settings` is what the spec says, as `kubectl pacer get` lists it under Strategy: (`MaxSurge 25%,
 * MaxUnavailable 25%`, `MinimumHealthCapacity 0.5, MaximumOverCapacity 0.2`), defaults included;
 * '' for Recreate.
 */
export interface BudgetView {
  gradual: boolean;
  settings: string;
  /** maxSurge in pods (MinimumHealth: its envelope's maxTotal − replicas). */
  maxSurge: number;
  /** maxUnavailable in pods, capped at replicas (MinimumHealth: replicas − its minimum healthy). */
  maxUnavailable: number;
  /** The most pods at once: replicas + maxSurge. */
  maxPods: number;
  /** The fewest available pods kept: replicas − maxUnavailable. */
  minAvailable: number;
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
  /**
   * In the cluster (`pacer dashboard`), the user signed in, as the API server's TokenReview names
   * them; null on this machine (`kubectl pacer dashboard`), where the page acts with the kubeconfig.
   */
  user: string | null;
}

/** One node of a NodeRoll's checkpoint: its step and since when (RFC 3339; '' while Pending). */
export interface NodeRollNodeView {
  name: string;
  step: string;
  since: string;
  /** Skipped by an operator: back at the end of the order. */
  skipped: boolean;
  /** The node's zone, when the dashboard has seen the node ('' otherwise). */
  zone: string;
}

/**
 * The health gate: whose health gates each next node (every workload, or a selector), the analysis
 * templates run after each node, and where the gate stands now: `open` (no node at the gate),
 * `waiting` (a node is at it: `detail` says for what), `paused` (a health or analysis wait a person
 * must lift), `done`.
 */
export interface HealthGateView {
  scope: string;
  analysis: string[];
  state: 'open' | 'waiting' | 'paused' | 'done';
  detail: string;
}

export interface NodeRollView {
  uid: string;
  /** Always '': a NodeRoll is cluster-scoped. */
  namespace: string;
  name: string;
  phase: string;
  message: string;
  mode: string;
  nodeGroup: string;
  nodesAtATime: number;
  /** Replace: the group's size when done; null for Drain. */
  desiredNodes: number | null;
  /** spec.paused, the operator's own hold. */
  specPaused: boolean;
  /** A pause a timeout or a node's analysis set, for a person (status.paused). */
  pause: { node: string; wait: string; message: string } | null;
  nodes: NodeRollNodeView[];
  /** Nodes per zone of the original nodes (those whose zone the dashboard saw; '?' for the others). */
  zonesBefore: Record<string, number>;
  /** Nodes per zone of the nodes the selector matches now. */
  zonesNow: Record<string, number>;
  /** Zone moves: planned once the original nodes are done, and the nodes moved (null: not planned yet). */
  zoneMoves: { planned: number; moved: string[] } | null;
  gate: HealthGateView;
  conditions: ConditionView[];
  createdAt: string;
}

/** The freeze switch (the ConfigMap pacer-freeze in Pacer's namespace): on while it exists. */
export interface FreezeView {
  namespace: string;
  name: string;
  reason: string;
  /** When it was switched on (RFC 3339), '' when unknown. */
  since: string;
}

/** Whether an optional source (node rolls, nodes, custom Plans, the freeze switch) could be read, and why not. */
export interface SourceView {
  namespace: string;
  /** The source: noderolls, nodes, plans, freeze. */
  name: string;
  synced: boolean;
  /** The last list's failure in the API server's words ('' when none). */
  problem: string;
}

/** A custom Plan resource, as far as the page needs it: which plans a service's page shows come from the server. */
export interface PlanResourceView {
  namespace: string;
  name: string;
  resourceVersion: string;
}

/** A comparison of the result with one number, which the run's chart draws as a line (analysis.ts: thresholdOf). */
export interface Threshold {
  /** The result against the value: `result[0] < 0.05` is `<` 0.05 at index 0. */
  op: '<' | '<=' | '>' | '>=' | '==';
  value: number;
  /** The list element compared (`result[N]`), or null for `result` itself. */
  index: number | null;
}

/** A metric's success or failure condition (CEL over `result`), and its threshold when it is a simple comparison. */
export interface ConditionReading {
  expression: string;
  threshold: Threshold | null;
}

/** One kept measurement of a metric. */
export interface AnalysisMeasurementView {
  phase: string;
  /** When it finished (or started, while in flight), RFC 3339; '' when unknown. */
  at: string;
  /** The provider's value as the run's status has it ('' for none: an Error's, a Job's). */
  value: string;
  /** What the chart plots: the value (or its list element the conditions read) as a finite number, else null. */
  number: number | null;
  message: string;
}

export interface AnalysisMetricView {
  name: string;
  phase: string;
  message: string;
  /** A dry-run metric: measured and shown, never counted against the run. */
  dryRun: boolean;
  /** The provider and what it asks (`prometheus http://...: QUERY`, `web GET URL`, `job`). */
  provider: string;
  /** What the chart's points are: `result`, or `result[N]` when the conditions read an element. */
  plotted: string;
  successCondition: ConditionReading | null;
  failureCondition: ConditionReading | null;
  counts: {
    count: number;
    successful: number;
    failed: number;
    inconclusive: number;
    error: number;
    consecutiveError: number;
  };
  /** The limits in force (defaults filled in, arguments resolved); `problem` when they cannot be read. */
  limits: {
    count: number | null;
    failureLimit: number;
    inconclusiveLimit: number;
    consecutiveErrorLimit: number;
    problem: string;
  };
  /** The kept measurements, oldest first (at most the retention limit: counts go on beyond them). */
  measurements: AnalysisMeasurementView[];
}

/** An AnalysisRun: what it judges (a Deployment's revision, a canary step, a node roll's node) and its metrics. */
export interface AnalysisRunView {
  uid: string;
  namespace: string;
  name: string;
  phase: string;
  message: string;
  /** Its pacer.dev/deployment label ('' for none). */
  deployment: string;
  /** The uid of its controller (the Deployment or NodeRoll), '' for none. */
  ownerUid: string;
  /** The revision it judges (its pacer.dev/revision annotation), null when unknown. */
  revision: number | null;
  podTemplateHash: string;
  attempt: number | null;
  canaryStep: number | null;
  /** Its pacer.dev/noderoll and pacer.dev/node labels ('' for none). */
  nodeRoll: string;
  node: string;
  /** spec.terminate: stopped by the Deployment controller (the rollout completed) or by hand. */
  terminated: boolean;
  startedAt: string;
  createdAt: string;
  metrics: AnalysisMetricView[];
}

export interface Snapshot {
  config: ConfigView;
  deployments: DeploymentView[];
  replicaSets: ReplicaSetView[];
  pods: PodView[];
  nodeRolls: NodeRollView[];
  freeze: FreezeView[];
  sources: SourceView[];
  planResources: PlanResourceView[];
  analysisRuns: AnalysisRunView[];
  /** The Events of Deployments, ReplicaSets and pods (the cache's: the page picks a Deployment's own). */
  events: EventView[];
}

export type Kind =
  | 'deployment'
  | 'replicaSet'
  | 'pod'
  | 'nodeRoll'
  | 'freeze'
  | 'source'
  | 'planResource'
  | 'analysisRun'
  | 'event';

/**
 * A core/v1 Event about a Deployment, ReplicaSet or pod (the others are not kept): what `kubectl
 * describe` lists under Events. `name` is the Event's own name; `object` names what it is about.
 */
export interface EventView {
  namespace: string;
  name: string;
  /** The involved object: its kind (Deployment, ReplicaSet, Pod) and name. */
  objectKind: string;
  objectName: string;
  /** Normal or Warning. */
  type: string;
  reason: string;
  message: string;
  /** How many times it happened (series included; 1 when the Event does not say). */
  count: number;
  /** When it last happened (RFC 3339; lastTimestamp, the series' last, eventTime or creation). */
  lastSeen: string;
  /** Who reported it (the component). */
  source: string;
}

export type Change =
  | { kind: 'deployment'; op: 'put'; obj: DeploymentView }
  | { kind: 'replicaSet'; op: 'put'; obj: ReplicaSetView }
  | { kind: 'pod'; op: 'put'; obj: PodView }
  | { kind: 'nodeRoll'; op: 'put'; obj: NodeRollView }
  | { kind: 'freeze'; op: 'put'; obj: FreezeView }
  | { kind: 'source'; op: 'put'; obj: SourceView }
  | { kind: 'planResource'; op: 'put'; obj: PlanResourceView }
  | { kind: 'analysisRun'; op: 'put'; obj: AnalysisRunView }
  | { kind: 'event'; op: 'put'; obj: EventView }
  | { kind: Kind; op: 'delete'; namespace: string; name: string };

/** A step of a plan, with its status (PENDING, PREPARED, STARTING, STARTED, COMPLETE, DELAYED, ERROR, WAITING...). */
export interface PlanStepView {
  name: string;
  status: string;
  /** The SDK's line for it (the stored status, the displayed one, forced complete). */
  message: string;
}

export interface PlanPhaseView {
  name: string;
  status: string;
  strategy: string;
  steps: PlanStepView[];
}

export interface PlanView {
  name: string;
  status: string;
  strategy: string;
  errors: string[];
  phases: PlanPhaseView[];
}

/** GET .../services/NAME/plans: the service's plans (deploy, recovery, its custom Plans), as the SDK orders them. */
export interface ServicePlansView {
  namespace: string;
  service: string;
  /** The service's Deployments (the named one and those joined through spec.dependencies). */
  members: string[];
  plans: PlanView[];
}

/** The `waiting` event, before the snapshot: the lists that fail, in the API server's words (RBAC's 403, say). */
export interface Waiting {
  problems: string[];
}

/** The `resumed` event: the stream goes on after the id the page last saw, with `changes` to replay. */
export interface Resumed {
  after: string;
  changes: number;
}

/** One line of a template diff: kept by both, only in the template now (removed), or only in the revision's (added). */
export interface DiffLine {
  op: 'same' | 'remove' | 'add';
  text: string;
}

/**
 * GET .../deployments/NAME/revisions/N/diff[?against=M]: revision N's pod template (+) against the
 * Deployment's template now (-), what an undo to N would change; with `against`, against revision
 * M's (-) instead (both as YAML, the pod-template-hash label left out). `changed` is false when they
 * are the same.
 */
export interface RevisionDiffView {
  namespace: string;
  name: string;
  revision: number;
  replicaSet: string;
  /** The revision compared with (its template the `-` side); null: the Deployment's template now. */
  against: number | null;
  /** Its ReplicaSet ('' when `against` is null). */
  againstReplicaSet: string;
  changed: boolean;
  lines: DiffLine[];
}

export type Action = 'pause' | 'resume' | 'undo' | 'restart' | 'setImage';

export type NodeRollAction = 'pause' | 'resume' | 'skip';
export type FreezeAction = 'on' | 'off';
export type PlanAction = 'continue' | 'interrupt' | 'forceComplete' | 'restart' | 'start' | 'stop';
export type MarathonAction = 'cancel';

/** The actions on node rolls, the freeze switch and plans, each with what its body may carry. */
export type Operation =
  | { kind: 'nodeRoll'; name: string; action: NodeRollAction; node?: string; skipAnalysis?: boolean }
  | { kind: 'freeze'; action: FreezeAction; reason?: string }
  | {
      kind: 'plan';
      namespace: string;
      service: string;
      plan: string;
      action: PlanAction;
      phase?: string;
      step?: string;
      /** start's parameters (`-p KEY=VALUE`), as environment variables of the service's pod templates. */
      parameters?: Record<string, string>;
    }
  /** Cancel one of Marathon's active deployments: roll it back, or (force) only stop it. */
  | { kind: 'marathon'; id: string; action: MarathonAction; force: boolean };

export interface ActionRequest {
  /** For undo: the revision to go back to (0 or absent: the previous one). */
  toRevision?: number;
  /** For setImage: the container (`*`: every container) and its new image, as `kubectl set image` takes CONTAINER=IMAGE. */
  container?: string;
  image?: string;
}

/** A POST's answer, success or not: kubectl's line (`deployment.pacer.dev/web paused`, or the error). */
export interface ActionResult {
  ok: boolean;
  message: string;
  warnings?: string[];
}

/** One action of a Marathon deployment's step: `RestartApplication` of `/default/web`, say. */
export interface MarathonActionView {
  action: string;
  app: string;
}

/**
 * GET /api/v1/marathon/deployments: Marathon's active deployments (GET /v2/deployments' fields),
 * derived from the cached Deployments as `kubectl pacer deployments` derives them.
 */
export interface MarathonDeploymentView {
  id: string;
  version: string;
  affectedApps: string[];
  steps: Array<{ actions: MarathonActionView[] }>;
  currentActions: MarathonActionView[];
  /** 1-based. */
  currentStep: number;
  totalSteps: number;
}

/** POST /api/v1/promotions: the canaries to release (Deployments waiting at a canary step). */
export interface PromotionRequest {
  items: Array<{ namespace: string; name: string }>;
}

/** One canary's release, in the order it was tried. */
export interface PromotionItemResult {
  namespace: string;
  name: string;
  /** Its dependency level (1: depends on nothing), null on a dependency cycle. */
  level: number | null;
  /** The release's HTTP status (as the plan's continue answers it); 0 when it was not tried. */
  status: number;
  ok: boolean;
  message: string;
  warnings?: string[];
}

/** The answer of a bulk promotion: ok when every release was. */
export interface PromotionResult {
  ok: boolean;
  items: PromotionItemResult[];
}
