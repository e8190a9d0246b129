// The analysis providers, as the run controller calls them (docs/semantics/analysis.md#providers):
// `measure` takes one measurement of a metric with its provider (prometheus, web; a job metric's
// measurement spans passes and is the run controller's, with job.ts) and
// answers what its conditions see as `result`, or throws a ProviderError naming the address and the
// reason, which makes the measurement an Error.

import { type Metric, PROVIDER_NAMES, type ProviderName } from '../../../api/analysis.ts';
import { measurePrometheus } from './prometheus.ts';
import { type MeasureInput, ProviderError, type ProviderResult } from './types.ts';
import { measureWeb } from './web.ts';

export { substituteArgs } from './args.ts';
export { type MeasureInput, type Provider, ProviderError, type ProviderResult } from './types.ts';

/** The providers a metric sets, in PROVIDER_NAMES' order (exactly one, for a valid metric). */
function providersOf(metric: Metric): ProviderName[] {
  const p = (metric.provider ?? {}) as Record<string, unknown>;
  return PROVIDER_NAMES.filter((n) => p[n] !== undefined && p[n] !== null);
}

/** The name of the metric's provider, or undefined when it sets none. */
export function providerName(metric: Metric): ProviderName | undefined {
  return providersOf(metric)[0];
}

/** Takes one measurement of `input.metric` (its arguments already substituted: substituteArgs). */
export async function measure(input: MeasureInput): Promise<ProviderResult> {
  const { metric } = input;
  const names = providersOf(metric);
  if (names.length === 0) {
    const unknown = Object.keys(metric.provider ?? {});
    throw new ProviderError(
      unknown.length > 0
        ? `metric ${JSON.stringify(metric.name)}: unknown provider ${unknown.map((n) => JSON.stringify(n)).join(', ')} (known: ${PROVIDER_NAMES.join(', ')})`
        : `metric ${JSON.stringify(metric.name)} names no provider`,
    );
  }
  if (names.length > 1)
    throw new ProviderError(`metric ${JSON.stringify(metric.name)} names more than one provider: ${names.join(', ')}`);
  switch (names[0]) {
    case 'prometheus':
      return measurePrometheus(metric.provider.prometheus!, input);
    case 'web':
      return measureWeb(metric.provider.web!, input);
    case 'job':
      // A Job lasts across passes: the run controller starts, reads and ends it (job.ts).
      throw new ProviderError(
        `metric ${JSON.stringify(metric.name)}: a job metric is measured across passes by the run controller (providers/job.ts), not in one call`,
      );
  }
}
