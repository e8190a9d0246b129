// measure() chooses the metric's provider: exactly one must be set; the job provider is not there yet.
// (Each provider's own answers: prometheus.test.ts, web.test.ts.)

import { expect } from 'chai';
import type { Metric } from '../../../../../src/api/analysis.ts';
import { measure, ProviderError, providerName } from '../../../../../src/controllers/analysis/providers/index.ts';

const signal = new AbortController().signal;

async function providerError(metric: Metric): Promise<ProviderError> {
  let got: unknown;
  try {
    got = await measure({ metric, namespace: 'default', signal });
  } catch (err) {
    expect(err, String(err)).to.be.instanceOf(ProviderError);
    return err as ProviderError;
  }
  expect.fail(`expected a ProviderError, got a result: ${JSON.stringify(got)}`);
}

describe('analysis providers: measure() and providerName()', () => {
  it('providerName names the one provider set, or none', () => {
    expect(providerName({ name: 'a', provider: { prometheus: { address: 'http://p', query: 'up' } } })).to.equal(
      'prometheus',
    );
    expect(providerName({ name: 'a', provider: { web: { url: 'http://w' } } })).to.equal('web');
    expect(providerName({ name: 'a', provider: { job: { spec: {} } } })).to.equal('job');
    expect(providerName({ name: 'a', provider: {} })).to.equal(undefined);
  });

  it("a job metric: a ProviderError, its measurement being the run controller's across passes", async () => {
    expect((await providerError({ name: 'j', provider: { job: { spec: {} } } })).message).to.equal(
      'metric "j": a job metric is measured across passes by the run controller (providers/job.ts), not in one call',
    );
  });

  it('no provider, an unknown one, two at once: ProviderErrors naming the metric', async () => {
    expect((await providerError({ name: 'a', provider: {} })).message).to.equal('metric "a" names no provider');
    const unknown = { name: 'a', provider: { datadog: { query: 'x' } } } as unknown as Metric;
    expect((await providerError(unknown)).message).to.equal(
      'metric "a": unknown provider "datadog" (known: prometheus, web, job)',
    );
    expect(
      (
        await providerError({
          name: 'a',
          provider: { prometheus: { address: 'http://p', query: 'up' }, web: { url: 'http://w' } },
        })
      ).message,
    ).to.equal('metric "a" names more than one provider: prometheus, web');
  });
});
