// pacer.dev/v1alpha1 analysis resources (docs/semantics/analysis.md): AnalysisTemplate (namespaced),
// ClusterAnalysisTemplate (cluster-wide) and AnalysisRun, and `spec.analysis` of a Deployment. Field
// names and phases are Argo Rollouts' where they fit, so that its users read them as they know them.
// Plain JSON shapes as on the wire; the rules live in src/engine/analysis/.

import type {
  AnalysisTemplateRef,
  DeploymentAnalysis,
  DeploymentArgument,
  DeploymentArgumentValueFrom,
  IntOrString,
  ObjectMeta,
  OnFailure,
} from './types.ts';
import { ON_FAILURE } from './types.ts';

// A Deployment's spec.analysis is declared with the Deployment (types.ts).
export type { AnalysisTemplateRef, DeploymentAnalysis, DeploymentArgument, DeploymentArgumentValueFrom, OnFailure };
export { ON_FAILURE };

/** A measurement's, a metric's or a run's phase: Argo Rollouts' AnalysisPhase values. */
export type AnalysisPhase = 'Pending' | 'Running' | 'Successful' | 'Failed' | 'Error' | 'Inconclusive';

export const ANALYSIS_TEMPLATE_KIND = 'AnalysisTemplate';
export const ANALYSIS_TEMPLATE_PLURAL = 'analysistemplates';
export const CLUSTER_ANALYSIS_TEMPLATE_KIND = 'ClusterAnalysisTemplate';
export const CLUSTER_ANALYSIS_TEMPLATE_PLURAL = 'clusteranalysistemplates';
/** A measurement's metadata key holding the name of its Job (Argo Rollouts' JobNameKey). */
export const JOB_NAME_KEY = 'job-name';
export const ANALYSIS_RUN_KIND = 'AnalysisRun';
export const ANALYSIS_RUN_PLURAL = 'analysisruns';

/** Labels Pacer puts on the runs it starts for a Deployment. */
export const RUN_DEPLOYMENT_LABEL = 'pacer.dev/deployment';
/** The pod-template-hash of the revision a run judges. */
export const RUN_TEMPLATE_HASH_LABEL = 'pacer.dev/pod-template-hash';
/** Which run this is for that revision: 1, then one more for each `rollout retry`. */
export const RUN_ATTEMPT_LABEL = 'pacer.dev/attempt';
/** On the run of a canary step of the deploy plan: the step (1 for the first). */
export const RUN_CANARY_STEP_LABEL = 'pacer.dev/canary-step';
/** On a run a NodeRoll's health gate starts: the NodeRoll (docs/semantics/node-roll.md#analysis-at-the-health-gate). */
export const RUN_NODEROLL_LABEL = 'pacer.dev/noderoll';
/** On a NodeRoll's run: the node it judges the cluster after (when the name fits a label value). */
export const RUN_NODE_LABEL = 'pacer.dev/node';

/** Argo Rollouts keeps this many measurements of each metric unless told otherwise. */
export const DEFAULT_MEASUREMENT_RETENTION = 10;

// ---------------------------------------------------------------------------------------------
// Arguments

/** A template's argument: a name, and a default value, a Secret's key, or none (the Deployment must give one). */
export interface Argument {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } } & DeploymentArgumentValueFrom;
}

// ---------------------------------------------------------------------------------------------
// Metrics and their providers

export interface PrometheusMetric {
  /** The Prometheus server, e.g. http://prometheus.monitoring:9090. */
  address: string;
  /** A PromQL query, evaluated as an instant query; `{{args.NAME}}` is replaced by the argument's value. */
  query: string;
  /** Seconds before the query is given up as an Error (default 30). */
  timeout?: number;
}

export interface WebMetricHeader {
  key: string;
  value?: string;
  valueFrom?: { secretKeyRef: { name: string; key: string } };
}

export interface WebMetric {
  url: string;
  /** GET (default), POST or PUT. */
  method?: 'GET' | 'POST' | 'PUT';
  headers?: WebMetricHeader[];
  body?: string;
  /** Seconds before the call is given up as an Error (default 10). */
  timeoutSeconds?: number;
  /** A JSONPath into the response body ({$.data.ok}); absent: the whole body as JSON. */
  jsonPath?: string;
}

export interface JobMetric {
  metadata?: ObjectMeta;
  /** A batch/v1 JobSpec: the measurement succeeds when the Job completes, fails when it fails. */
  spec: Record<string, unknown>;
}

/** Exactly one provider per metric. */
export interface MetricProvider {
  prometheus?: PrometheusMetric;
  web?: WebMetric;
  job?: JobMetric;
}

export const PROVIDER_NAMES = ['prometheus', 'web', 'job'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

export interface Metric {
  name: string;
  /** Time between measurements, a Go duration ("30s"); absent: one measurement (unless count says more). */
  interval?: string;
  /** Time before the first measurement, a Go duration. */
  initialDelay?: string;
  /** Measurements to take; absent with an interval: until the run ends. */
  count?: IntOrString;
  /** CEL over `result`: the measurement is Successful when it holds. */
  successCondition?: string;
  /** CEL over `result`: the measurement is Failed when it holds. */
  failureCondition?: string;
  failureLimit?: IntOrString;
  inconclusiveLimit?: IntOrString;
  consecutiveErrorLimit?: IntOrString;
  /** Successful measurements in a row that end the metric Successful early. */
  consecutiveSuccessLimit?: IntOrString;
  provider: MetricProvider;
}

/** A metric whose outcome is recorded but never fails the run (Argo's dryRun). */
export interface DryRun {
  metricName: string;
}

/** How many measurements of a metric the run's status keeps (Argo's measurementRetention). */
export interface MeasurementRetention {
  metricName: string;
  limit: number;
}

export interface AnalysisTemplateSpec {
  args?: Argument[];
  metrics: Metric[];
  dryRun?: DryRun[];
  measurementRetention?: MeasurementRetention[];
}

export interface AnalysisTemplate {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: AnalysisTemplateSpec;
}

// ---------------------------------------------------------------------------------------------
// AnalysisRun

/** A run's argument: resolved to a value when the run is made, or a Secret's key read at each measurement. */
export interface RunArgument {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef: { name: string; key: string } };
}

export interface AnalysisRunSpec {
  metrics: Metric[];
  args?: RunArgument[];
  dryRun?: DryRun[];
  measurementRetention?: MeasurementRetention[];
  /** Set to stop the run: metrics still open end Successful. */
  terminate?: boolean;
}

export interface Measurement {
  phase: AnalysisPhase;
  /** Why it is Error, Failed or Inconclusive, in words. */
  message?: string;
  startedAt?: string;
  finishedAt?: string;
  /** The provider's result as text (a number, or a list of numbers as JSON). */
  value?: string;
  /** Provider details: the Job's name, the query as sent. */
  metadata?: Record<string, string>;
}

export interface MetricResult {
  name: string;
  phase: AnalysisPhase;
  message?: string;
  /** Measurements taken (errors not counted). */
  count?: number;
  successful?: number;
  failed?: number;
  inconclusive?: number;
  error?: number;
  consecutiveError?: number;
  consecutiveSuccess?: number;
  /** A dry-run metric: its outcome does not count towards the run's. */
  dryRun?: boolean;
  /** The latest measurements, oldest first (at most the retention limit). */
  measurements?: Measurement[];
}

export interface RunSummary {
  count?: number;
  successful?: number;
  failed?: number;
  inconclusive?: number;
  error?: number;
}

export interface AnalysisRunStatus {
  phase?: AnalysisPhase;
  message?: string;
  startedAt?: string;
  metricResults?: MetricResult[];
  runSummary?: RunSummary;
  dryRunSummary?: RunSummary;
}

export interface AnalysisRun {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: AnalysisRunSpec;
  status?: AnalysisRunStatus;
}
