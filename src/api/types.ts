// Resource types of pacer.dev/v1alpha1 and the apps/v1 and v1 objects Pacer reads and writes.
// Plain JSON shapes, as they travel on the wire: the engine, the controller, `pacer plan` and the
// simulated cluster all use these, and none of them depends on a Kubernetes client library.

import type { WindowsSpec } from './windows.ts';

/** Where the install manifests put Pacer: its Lease and its freeze switch live there. */
export const PACER_NAMESPACE = 'pacer-system';
export const GROUP = 'pacer.dev';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;
export const KIND = 'Deployment';
/** The built-in kind Pacer also controls in native mode (docs/native.md). */
export const APPS_API_VERSION = 'apps/v1';

/** An apps/v1 Deployment (native mode), told by its apiVersion: the engine then writes apps/v1's status and owner references. */
export function isAppsDeployment(d: { apiVersion?: string }): boolean {
  return d.apiVersion === APPS_API_VERSION;
}
export const PLURAL = 'deployments';

export type IntOrString = number | string;

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
}

export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/** A pod spec is carried as opaque JSON: Pacer hashes and compares it, it never interprets it. */
export type PodSpec = Record<string, unknown>;

export interface PodTemplateSpec {
  metadata?: ObjectMeta;
  spec?: PodSpec;
}

// ---------------------------------------------------------------------------------------------
// pacer.dev/v1alpha1 Deployment: field for field the apps/v1 Deployment.

export type StrategyType = 'RollingUpdate' | 'Recreate' | 'MinimumHealth';

export interface RollingUpdateDeployment {
  maxSurge?: IntOrString;
  maxUnavailable?: IntOrString;
}

/**
 * Marathon's upgradeStrategy (Pacer addition, strategy type MinimumHealth). Both are shares of
 * spec.replicas between 0.0 and 1.0.
 */
export interface MinimumHealthDeployment {
  /** Share of replicas that stay available throughout: m = ceil(replicas × this). Defaults to 1.0. */
  minimumHealthCapacity?: number;
  /**
   * Share of extra replicas allowed during the upgrade: the total stays within
   * trunc(replicas × (1 + this)). Absent: the old version shrinks to m and the new one starts to m
   * side by side, then the new one takes over.
   */
  maximumOverCapacity?: number;
}

export interface DeploymentStrategy {
  type?: StrategyType | string;
  rollingUpdate?: RollingUpdateDeployment;
  /** Only with type MinimumHealth (Pacer addition). */
  minimumHealth?: MinimumHealthDeployment;
}

export interface DeploymentSpec extends WindowsSpec {
  replicas?: number;
  selector?: LabelSelector;
  template?: PodTemplateSpec;
  strategy?: DeploymentStrategy;
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  progressDeadlineSeconds?: number;
  paused?: boolean;
  /**
   * Other pacer.dev Deployments this one depends on (Marathon's dependencies), as `name` (same
   * namespace) or `namespace/name`. It makes progress only while every one of them is complete.
   * Pacer addition.
   */
  dependencies?: string[];
  /**
   * How the Deployment's deploy-plan phase releases its steps (one step per replica slot): a gate
   * on top of the rollout strategy's own budget. Absent: parallel (no gate). Pacer addition
   * (the DC/OS SDK's phase strategies).
   */
  plan?: DeploymentPlanSpec;
  /**
   * Judge each rollout by metrics (AnalysisTemplates) and abort, roll back or pause it when they
   * turn bad: docs/semantics/analysis.md. Pacer addition (Argo Rollouts' analysis).
   */
  analysis?: DeploymentAnalysis;
  // spec.windows and spec.blackouts (WindowsSpec, docs/semantics/windows.md): a rollout waits for a
  // maintenance window (Progressing Unknown OutsideWindow, its deadline not running); scaling does
  // not. Pacer addition.
}

export const PLAN_PHASE_STRATEGIES = ['serial', 'parallel', 'serial-canary', 'parallel-canary'] as const;
export type PlanPhaseStrategy = (typeof PLAN_PHASE_STRATEGIES)[number];

export interface DeploymentPlanSpec {
  /** serial: one new pod at a time; parallel: no gate; the canary variants wait for `continue` first. */
  strategy?: PlanPhaseStrategy;
  /** Canary only: how many continues release the canary (default 2). */
  requiredProceeds?: number;
}

export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface DeploymentCondition {
  type: string;
  status: ConditionStatus;
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
  /**
   * Only on DependenciesReady: metadata.generation when the condition last changed status. Pacer
   * addition (metav1.Condition's field of that name).
   */
  observedGeneration?: number;
}

export interface DeploymentStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  /** Σ of the ReplicaSets' terminatingReplicas; absent when a synced ReplicaSet does not report it. */
  terminatingReplicas?: number;
  collisionCount?: number;
  conditions?: DeploymentCondition[];
  /** The label selector as a string, for the scale subresource (`kubectl scale`, HPA). Pacer addition. */
  selector?: string;
  /**
   * "readyReplicas/spec.replicas" (e.g. "2/3"), the READY column of `kubectl get deploy`, which a
   * CRD printer column cannot compute from two fields. Pacer addition.
   */
  ready?: string;
  /**
   * The pod-template-hash of the last revision that completed, kept only while spec.analysis is
   * set: where an aborted rollout returns to. Pacer addition (Argo Rollouts' status.stableRS).
   */
  stableRS?: string;
  /**
   * The pod-template-hash of a revision the analysis' pod check failed: it stays aborted (its pods
   * are gone once it is) until the template changes. Pacer addition.
   */
  abortedRS?: string;
}

export interface Deployment {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: DeploymentSpec;
  status?: DeploymentStatus;
}

// ---------------------------------------------------------------------------------------------
// pacer.dev/v1alpha1 Plan: a custom plan (the DC/OS SDK's custom YAML plans), whose steps are
// Deployments of its namespace rolled to their current spec (docs/semantics/plans.md#custom-plans-pacers-mapping).

export const PLAN_KIND = 'Plan';
export const PLAN_PLURAL = 'plans';
/** A plan's own strategy over its phases (canary is for phases). */
export const PLAN_LEVEL_STRATEGIES = ['serial', 'parallel'] as const;
export type PlanStrategyName = (typeof PLAN_LEVEL_STRATEGIES)[number];
/** The names the plans of a service already use: a custom plan may not take them. */
export const RESERVED_PLAN_NAMES = ['deploy', 'recovery', 'decommission'] as const;

export interface PlanPhaseSpec {
  name: string;
  /** serial (default), parallel, serial-canary or parallel-canary, over the phase's steps. */
  strategy?: PlanPhaseStrategy;
  /** Canary only: how many continues release the canary steps (default 2). */
  requiredProceeds?: number;
  /** The Deployments of the Plan's namespace this phase rolls, one step each, in order. */
  steps: string[];
}

export interface PlanResourceSpec {
  /** serial (default): a phase starts once the ones before it are COMPLETE; parallel: all at once. */
  strategy?: PlanStrategyName;
  phases: PlanPhaseSpec[];
}

export interface PlanStepStatus {
  name: string;
  status: string;
  message?: string;
}

export interface PlanPhaseStatus {
  name: string;
  status: string;
  steps: PlanStepStatus[];
}

/** What the plan controller last saw: each element's status, as `kubectl pacer plan show` prints them. */
export interface PlanResourceStatus {
  observedGeneration?: number;
  status?: string;
  errors?: string[];
  phases?: PlanPhaseStatus[];
}

export interface PlanResource {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: PlanResourceSpec;
  status?: PlanResourceStatus;
}

// ---------------------------------------------------------------------------------------------
// apps/v1 ReplicaSet

export interface ReplicaSetCondition {
  type: string;
  status: ConditionStatus;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export interface ReplicaSetSpec {
  replicas?: number;
  minReadySeconds?: number;
  selector: LabelSelector;
  template?: PodTemplateSpec;
}

export interface ReplicaSetStatus {
  replicas: number;
  fullyLabeledReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  /** Pods being deleted that are not yet Succeeded or Failed (beta since Kubernetes 1.35, on by default). */
  terminatingReplicas?: number;
  observedGeneration?: number;
  conditions?: ReplicaSetCondition[];
}

export interface ReplicaSet {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: ReplicaSetSpec;
  status?: ReplicaSetStatus;
}

// ---------------------------------------------------------------------------------------------
// v1 Pod (only what the rollout logic reads)

export interface PodCondition {
  type: string;
  status: ConditionStatus;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface PodStatus {
  phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown' | string;
  conditions?: PodCondition[];
  [key: string]: unknown;
}

export interface Pod {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: PodSpec;
  status?: PodStatus;
}

// ---------------------------------------------------------------------------------------------
// A Deployment's spec.analysis (docs/semantics/analysis.md#a-rollout-under-analysis); the
// analysis resources themselves are in analysis.ts.

export interface AnalysisTemplateRef {
  templateName: string;
  /** The template is a ClusterAnalysisTemplate. */
  clusterScope?: boolean;
}

/** A value the Deployment gives one of its templates' arguments. */
export interface DeploymentArgument {
  name: string;
  value?: string;
  valueFrom?: DeploymentArgumentValueFrom;
}

/** What happens to a rollout whose run fails. */
export const ON_FAILURE = ['Abort', 'Rollback', 'Pause'] as const;
export type OnFailure = (typeof ON_FAILURE)[number];

export interface DeploymentAnalysis {
  /** The background run's templates: it judges the new revision from startAfterAvailable to the end. */
  templates: AnalysisTemplateRef[];
  args?: DeploymentArgument[];
  /**
   * When the run starts: once this many new replicas are available (a number, or a share of
   * spec.replicas such as "50%"). Default 1: with the first available pod of the new revision.
   */
  startAfterAvailable?: IntOrString;
  /**
   * How long the run keeps measuring after the rollout completes (a Go duration); a failure then
   * still aborts. Absent: the run ends with the rollout.
   */
  postRollout?: string;
  /** Abort (default), Rollback or Pause. An Inconclusive run always pauses. */
  onFailure?: OnFailure;
  /**
   * The built-in check, without metrics: a new pod backing off (CrashLoopBackOff, ImagePullBackOff,
   * ErrImagePull) once it is `window` old, or restarted more than `restarts` times, fails the new
   * revision as a failed run would. With it, `templates` may be empty.
   */
  podFailures?: PodFailureCheck;
  /**
   * A run at each canary step of the deploy plan (spec.plan.strategy serial-canary or
   * parallel-canary): once the released canary pods are available, a run from these templates
   * judges them, and a Successful one continues the next step as `kubectl pacer plan continue`
   * would. Every metric needs a count (the run must end). With it, `templates` may be empty.
   */
  canarySteps?: CanaryStepAnalysis;
}

export interface CanaryStepAnalysis {
  templates: AnalysisTemplateRef[];
}

export interface PodFailureCheck {
  /** How old a backing-off pod must be before it counts (a Go duration, default "30s"). */
  window?: string;
  /** Restarts of any container of a new pod tolerated (default 3). */
  restarts?: number;
}

/** Where a Deployment takes an argument's value from: the template hash of a revision, or a field. */
export interface DeploymentArgumentValueFrom {
  /** Latest: the revision being rolled out (the spec's template); Stable: the last one that completed. */
  podTemplateHashValue?: 'Latest' | 'Stable';
  /** A field of the Deployment: metadata.name, metadata.namespace, metadata.labels['k'], metadata.annotations['k']. */
  fieldRef?: { fieldPath: string };
}
