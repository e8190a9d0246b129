// {{args.NAME}} in a metric's provider, row by row: every string of it, at any depth, replaced; spaces
// inside the braces allowed; an argument with no value an error naming it and the field.

import { expect } from 'chai';
import type { Metric, MetricProvider } from '../../../../../src/api/analysis.ts';
import { substituteArgs } from '../../../../../src/controllers/analysis/providers/args.ts';

const ARGS = { app: 'web', ns: 'prod', hash: '5d4f8c', token: 's3cret', empty: '', braces: '{{args.app}}' };

function m(provider: MetricProvider): Metric {
  return { name: 'error-rate', interval: '30s', successCondition: 'result < 0.05', provider };
}

describe('analysis providers: {{args.NAME}} substitution', () => {
  const rows: Array<[string, MetricProvider, MetricProvider]> = [
    [
      'a Prometheus query and address',
      {
        prometheus: {
          address: 'http://prom.{{args.ns}}:9090',
          query: 'sum(x{app="{{args.app}}",h="{{args.hash}}"})',
          timeout: 5,
        },
      },
      { prometheus: { address: 'http://prom.prod:9090', query: 'sum(x{app="web",h="5d4f8c"})', timeout: 5 } },
    ],
    [
      'spaces inside the braces',
      { prometheus: { address: 'http://p', query: '{{ args.app }}/{{args.app }}/{{  args.app}}' } },
      { prometheus: { address: 'http://p', query: 'web/web/web' } },
    ],
    [
      "a web call's URL, header values, body and jsonPath",
      {
        web: {
          url: 'https://status/{{args.ns}}/{{args.app}}',
          method: 'POST',
          headers: [{ key: 'Authorization', value: 'Bearer {{args.token}}' }],
          body: '{"app":"{{args.app}}"}',
          jsonPath: "{.apps['{{args.app}}'].ok}",
        },
      },
      {
        web: {
          url: 'https://status/prod/web',
          method: 'POST',
          headers: [{ key: 'Authorization', value: 'Bearer s3cret' }],
          body: '{"app":"web"}',
          jsonPath: "{.apps['web'].ok}",
        },
      },
    ],
    [
      "a Job's whole spec",
      {
        job: {
          metadata: { labels: { app: '{{args.app}}' } },
          spec: {
            backoffLimit: 1,
            template: {
              spec: {
                containers: [{ name: 'check', image: 'curl', args: ['-f', 'http://{{args.app}}.{{args.ns}}/healthz'] }],
                restartPolicy: 'Never',
              },
            },
          },
        },
      },
      {
        job: {
          metadata: { labels: { app: 'web' } },
          spec: {
            backoffLimit: 1,
            template: {
              spec: {
                containers: [{ name: 'check', image: 'curl', args: ['-f', 'http://web.prod/healthz'] }],
                restartPolicy: 'Never',
              },
            },
          },
        },
      },
    ],
    [
      'an empty value is a value; a value is not substituted again',
      { prometheus: { address: 'http://p', query: 'x{a="{{args.empty}}"} {{args.braces}}' } },
      { prometheus: { address: 'http://p', query: 'x{a=""} {{args.app}}' } },
    ],
    [
      'other {{...}} and text without placeholders are left alone',
      { prometheus: { address: 'http://p', query: '{{workflow.name}} {args.app} {{ arg.app }}' } },
      { prometheus: { address: 'http://p', query: '{{workflow.name}} {args.app} {{ arg.app }}' } },
    ],
  ];
  for (const [what, provider, want] of rows) {
    it(what, () => {
      const metric = m(provider);
      const before = structuredClone(metric);
      const got = substituteArgs(metric, ARGS);
      expect(got).to.deep.equal({ ...before, provider: want });
      expect(metric, 'the metric given is not changed').to.deep.equal(before);
    });
  }

  const errors: Array<[string, MetricProvider, string]> = [
    [
      'in a query',
      { prometheus: { address: 'http://p', query: 'x{app="{{args.service}}"}' } },
      'metric "error-rate": provider.prometheus.query: argument "service" has no value ({{args.service}})',
    ],
    [
      'in a header value',
      {
        web: {
          url: 'http://s',
          headers: [
            { key: 'A', value: 'ok' },
            { key: 'B', value: '{{ args.missing }}' },
          ],
        },
      },
      'metric "error-rate": provider.web.headers[1].value: argument "missing" has no value ({{ args.missing }})',
    ],
    [
      "deep in a Job's spec",
      { job: { spec: { template: { spec: { containers: [{ args: ['{{args.url}}'] }] } } } } },
      'metric "error-rate": provider.job.spec.template.spec.containers[0].args[0]: argument "url" has no value ({{args.url}})',
    ],
  ];
  for (const [what, provider, message] of errors) {
    it(`an argument with no value ${what}: an Error naming it and the field`, () => {
      expect(() => substituteArgs(m(provider), ARGS)).to.throw(Error, message);
    });
  }

  it('an argument inherited from Object.prototype is not a value', () => {
    expect(() =>
      substituteArgs(m({ prometheus: { address: 'http://p', query: '{{args.constructor}}' } }), {}),
    ).to.throw('argument "constructor" has no value');
  });
});
