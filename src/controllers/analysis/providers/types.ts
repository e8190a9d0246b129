// What an analysis provider is to the run controller: given a metric (its `{{args.NAME}}` already
// replaced) it takes one measurement and answers the value its conditions see as `result`, or throws
// a ProviderError that names the address and the reason (the measurement is then an Error).

import type { Metric } from '../../../api/analysis.ts';

export interface MeasureInput {
  /** The metric with every `{{args.NAME}}` replaced (args.ts). */
  metric: Metric;
  /** The run's namespace (a job provider's Job goes there). */
  namespace: string;
  /** Aborted when the run stops or the controller shuts down. */
  signal: AbortSignal;
}

export interface ProviderResult {
  /** What successCondition and failureCondition see as `result`: a number, a list of numbers, JSON. */
  result: unknown;
  /** The result as the measurement's `value` in the run's status (a number as text, a list as JSON). */
  value: string;
  /** Details kept with the measurement (the query as sent, a Job's name). */
  metadata?: Record<string, string>;
}

/** A provider that could not measure: unreachable, an error status, an answer it cannot read. */
export class ProviderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderError';
  }
}

export interface Provider {
  measure(input: MeasureInput): Promise<ProviderResult>;
}
