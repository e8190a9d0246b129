// src/api/analysisvalidation.ts: an AnalysisTemplate's, a ClusterAnalysisTemplate's and an
// AnalysisRun's spec, one table per rule. Each row changes one thing in a valid object and lists
// every error it gets, as the admission webhook prints them.

import { expect } from 'chai';
import type { AnalysisRun, AnalysisTemplate, AnalysisTemplateSpec } from '../../../src/api/analysis.ts';
import {
  argReferences,
  validateAnalysisRun,
  validateAnalysisTemplate,
  validateClusterAnalysisTemplate,
} from '../../../src/api/analysisvalidation.ts';
import { formatFieldError } from '../../../src/api/validation.ts';

const ERROR_RATE =
  'sum(rate(http_requests_total{service="{{args.service-name}}",code=~"5.."}[1m])) / sum(rate(http_requests_total{service="{{args.service-name}}"}[1m]))';

/** A template with one metric of each provider, arguments of each kind, a dry run and a retention. */
function template(): AnalysisTemplate {
  return {
    apiVersion: 'pacer.dev/v1alpha1',
    kind: 'AnalysisTemplate',
    metadata: { name: 'success-rate', namespace: 'shop' },
    spec: {
      args: [
        { name: 'service-name' },
        { name: 'prometheus', value: 'http://prometheus.monitoring:9090' },
        { name: 'api-token', valueFrom: { secretKeyRef: { name: 'status-api', key: 'token' } } },
        { name: 'canary-hash', valueFrom: { podTemplateHashValue: 'Latest' } },
      ],
      metrics: [
        {
          name: 'error-rate',
          interval: '30s',
          initialDelay: '1m',
          count: 10,
          failureLimit: 2,
          successCondition: 'result[0] < 0.05',
          failureCondition: 'isNaN(result[0]) || result[0] >= 0.2',
          provider: { prometheus: { address: '{{args.prometheus}}', query: ERROR_RATE } },
        },
        {
          name: 'status',
          interval: '1m',
          successCondition: 'result.ok == true',
          provider: {
            web: {
              url: 'https://status.example.com/api/{{args.service-name}}',
              headers: [
                { key: 'Authorization', valueFrom: { secretKeyRef: { name: 'status-api', key: 'token' } } },
                { key: 'X-Revision', value: '{{args.canary-hash}}' },
              ],
              jsonPath: '{$.data}',
              timeoutSeconds: 5,
            },
          },
        },
        {
          name: 'smoke',
          provider: {
            job: {
              spec: {
                backoffLimit: 0,
                template: {
                  spec: {
                    restartPolicy: 'Never',
                    containers: [{ name: 'smoke', image: 'curlimages/curl', args: ['http://{{args.service-name}}/'] }],
                  },
                },
              },
            },
          },
        },
      ],
      dryRun: [{ metricName: 'status' }],
      measurementRetention: [{ metricName: 'error-rate', limit: 20 }],
    },
  };
}

type Spec = AnalysisTemplateSpec & Record<string, unknown>;
type Row = { name: string; change: (s: Spec) => void; errors: string[] };
/** The metric at `i` as a plain record, for rows that write what the type does not allow. */
const metric = (s: Spec, i: number): any => s.metrics[i];
const prom = (s: Spec): Record<string, unknown> =>
  metric(s, 0).provider.prometheus as unknown as Record<string, unknown>;
const webOf = (s: Spec): Record<string, any> => metric(s, 1).provider.web as unknown as Record<string, any>;

function check(rows: Row[], validate: (t: AnalysisTemplate) => ReturnType<typeof validateAnalysisTemplate>) {
  for (const row of rows) {
    it(row.errors.length ? `${row.name}: ${row.errors[0]}` : `${row.name}: valid`, () => {
      const t = template();
      row.change(t.spec as Spec);
      expect(validate(t).map(formatFieldError)).to.deep.equal(row.errors);
    });
  }
}

describe('api/analysisvalidation: an AnalysisTemplate', () => {
  it('the example template is valid, as a ClusterAnalysisTemplate too', () => {
    expect(validateAnalysisTemplate(template())).to.deep.equal([]);
    expect(validateClusterAnalysisTemplate({ ...template(), kind: 'ClusterAnalysisTemplate' })).to.deep.equal([]);
  });

  it('a ClusterAnalysisTemplate is held to the same rules', () => {
    const t = template();
    t.spec.metrics = [];
    expect(validateClusterAnalysisTemplate(t).map(formatFieldError)).to.deep.equal([
      'spec.metrics: Required value: at least one metric',
    ]);
  });

  it('no spec at all', () => {
    expect(
      validateAnalysisTemplate({ metadata: { name: 'x' } } as AnalysisTemplate).map(formatFieldError),
    ).to.deep.equal(['spec: Required value']);
  });

  describe('metrics: at least one, each named once with a DNS label', () => {
    check(
      [
        {
          name: 'no metrics',
          change: (s) => {
            s.metrics = [];
          },
          errors: ['spec.metrics: Required value: at least one metric'],
        },
        {
          name: 'metrics left out',
          change: (s) => {
            delete (s as Record<string, unknown>).metrics;
          },
          errors: ['spec.metrics: Required value: at least one metric'],
        },
        {
          name: 'a metric without a name',
          change: (s) => {
            metric(s, 2).name = '';
          },
          errors: ['spec.metrics[2].name: Required value'],
        },
        {
          name: 'two metrics named error-rate',
          change: (s) => {
            metric(s, 2).name = 'error-rate';
          },
          errors: ['spec.metrics[2].name: Duplicate value: "error-rate"'],
        },
        {
          name: 'a name with capitals and an underscore',
          change: (s) => {
            metric(s, 2).name = 'Smoke_Test';
            s.dryRun = [];
          },
          errors: [
            "spec.metrics[2].name: Invalid value: \"Smoke_Test\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
          ],
        },
        {
          name: 'metrics not a list',
          change: (s) => {
            (s as Record<string, unknown>).metrics = { name: 'x' };
          },
          errors: ['spec.metrics: Invalid value: "object": spec.metrics in body must be of type array: "object"'],
        },
      ],
      validateAnalysisTemplate,
    );
  });

  describe('provider: exactly one of prometheus, web and job', () => {
    check(
      [
        {
          name: 'no provider',
          change: (s) => {
            delete metric(s, 2).provider;
          },
          errors: ['spec.metrics[2].provider: Required value: one of prometheus, web, job'],
        },
        {
          name: 'an empty provider',
          change: (s) => {
            metric(s, 2).provider = {};
          },
          errors: ['spec.metrics[2].provider: Required value: one of prometheus, web, job'],
        },
        {
          name: 'prometheus and web in one metric',
          change: (s) => {
            metric(s, 0).provider.web = { url: 'http://status' };
          },
          errors: [
            'spec.metrics[0].provider.web: Forbidden: may not be set with prometheus: a metric has exactly one provider',
          ],
        },
        {
          name: 'all three',
          change: (s) => {
            metric(s, 2).provider.prometheus = { address: 'http://p:9090', query: 'up' };
            metric(s, 2).provider.web = { url: 'http://status' };
          },
          errors: [
            'spec.metrics[2].provider.web: Forbidden: may not be set with prometheus: a metric has exactly one provider',
            'spec.metrics[2].provider.job: Forbidden: may not be set with prometheus: a metric has exactly one provider',
          ],
        },
        {
          name: 'a provider Pacer does not have (datadog)',
          change: (s) => {
            metric(s, 2).provider = { datadog: { query: 'avg:errors' } } as never;
          },
          errors: [
            'spec.metrics[2].provider: Unsupported value: "datadog": supported values: "prometheus", "web", "job"',
          ],
        },
      ],
      validateAnalysisTemplate,
    );
  });

  describe('interval and initialDelay: Go durations', () => {
    check(
      [
        {
          name: 'interval 1m30s and initialDelay 0',
          change: (s) => {
            metric(s, 0).interval = '1m30s';
            metric(s, 0).initialDelay = '0';
          },
          errors: [],
        },
        {
          name: 'interval from an argument',
          change: (s) => {
            s.args!.push({ name: 'every', value: '10s' });
            metric(s, 0).interval = '{{args.every}}';
          },
          errors: [],
        },
        {
          name: 'interval without a unit',
          change: (s) => {
            metric(s, 0).interval = '30';
          },
          errors: ['spec.metrics[0].interval: Invalid value: "30": time: missing unit in duration "30"'],
        },
        {
          name: 'interval in days',
          change: (s) => {
            metric(s, 0).interval = '1d';
          },
          errors: ['spec.metrics[0].interval: Invalid value: "1d": time: unknown unit "d" in duration "1d"'],
        },
        {
          name: 'interval 0s',
          change: (s) => {
            metric(s, 0).interval = '0s';
          },
          errors: ['spec.metrics[0].interval: Invalid value: "0s": must be greater than 0'],
        },
        {
          name: 'a negative initialDelay',
          change: (s) => {
            metric(s, 0).initialDelay = '-1m';
          },
          errors: ['spec.metrics[0].initialDelay: Invalid value: "-1m": must not be negative'],
        },
        {
          name: 'interval as a number',
          change: (s) => {
            metric(s, 0).interval = 30;
          },
          errors: [
            'spec.metrics[0].interval: Invalid value: "number": spec.metrics[0].interval in body must be of type string: "number"',
          ],
        },
      ],
      validateAnalysisTemplate,
    );
  });

  describe('count: at least 1; more than one needs an interval', () => {
    check(
      [
        {
          name: 'count 1 without an interval',
          change: (s) => {
            metric(s, 2).count = 1;
          },
          errors: [],
        },
        {
          name: 'count 0',
          change: (s) => {
            metric(s, 0).count = 0;
          },
          errors: ['spec.metrics[0].count: Invalid value: 0: must be greater than or equal to 1'],
        },
        {
          name: 'count 3 measured back to back',
          change: (s) => {
            metric(s, 2).count = 3;
          },
          errors: ['spec.metrics[2].interval: Required value: count is 3: the time between measurements is needed'],
        },
        {
          name: 'failureLimit 3 and inconclusiveLimit 4 with count 2: never reached',
          change: (s) => {
            Object.assign(metric(s, 0), { count: 2, failureLimit: 3, inconclusiveLimit: 4 });
          },
          errors: [
            'spec.metrics[0].failureLimit: Invalid value: 3: must be no more than count (2): the metric ends before it could reach it',
            'spec.metrics[0].inconclusiveLimit: Invalid value: 4: must be no more than count (2): the metric ends before it could reach it',
          ],
        },
        {
          name: 'failureLimit equal to count, and any limit without a count',
          change: (s) => {
            Object.assign(metric(s, 0), { count: 2, failureLimit: 2 });
            Object.assign(metric(s, 1), { failureLimit: 9 });
          },
          errors: [],
        },
        {
          name: 'count 2.5',
          change: (s) => {
            metric(s, 0).count = 2.5;
          },
          errors: [
            'spec.metrics[0].count: Invalid value: "number": must be an integer, or one {{args.NAME}} reference and nothing else',
          ],
        },
        {
          name: 'count from an argument',
          change: (s) => {
            s.args!.push({ name: 'samples', value: '5' });
            metric(s, 0).count = '{{args.samples}}';
          },
          errors: [],
        },
        {
          name: 'count "5" (a number in a string)',
          change: (s) => {
            metric(s, 0).count = '5';
          },
          errors: [
            'spec.metrics[0].count: Invalid value: "5": must be an integer, or one {{args.NAME}} reference and nothing else',
          ],
        },
      ],
      validateAnalysisTemplate,
    );
  });

  describe('failureLimit, inconclusiveLimit, consecutiveErrorLimit, consecutiveSuccessLimit: integers ≥ 0 or one argument', () => {
    const rows: Row[] = [];
    for (const limit of ['failureLimit', 'inconclusiveLimit', 'consecutiveErrorLimit', 'consecutiveSuccessLimit']) {
      rows.push(
        {
          name: `${limit} 0`,
          change: (s) => {
            metric(s, 0)[limit] = 0;
          },
          errors: [],
        },
        {
          name: `${limit} -1`,
          change: (s) => {
            metric(s, 0)[limit] = -1;
          },
          errors: [`spec.metrics[0].${limit}: Invalid value: -1: must be greater than or equal to 0`],
        },
        {
          name: `${limit} from an argument`,
          change: (s) => {
            s.args!.push({ name: 'limit', value: '3' });
            metric(s, 0)[limit] = '{{args.limit}}';
          },
          errors: [],
        },
        {
          name: `${limit} "3"`,
          change: (s) => {
            metric(s, 0)[limit] = '3';
          },
          errors: [
            `spec.metrics[0].${limit}: Invalid value: "3": must be an integer, or one {{args.NAME}} reference and nothing else`,
          ],
        },
      );
    }
    rows.push(
      {
        name: 'a limit of an argument and more text',
        change: (s) => {
          s.args!.push({ name: 'limit', value: '3' });
          metric(s, 0).failureLimit = '{{args.limit}}0';
        },
        errors: [
          'spec.metrics[0].failureLimit: Invalid value: "{{args.limit}}0": must be an integer, or one {{args.NAME}} reference and nothing else',
        ],
      },
      {
        name: 'a limit that is true',
        change: (s) => {
          metric(s, 0).failureLimit = true;
        },
        errors: [
          'spec.metrics[0].failureLimit: Invalid value: "boolean": must be an integer, or one {{args.NAME}} reference and nothing else',
        ],
      },
    );
    check(rows, validateAnalysisTemplate);
  });

  describe('successCondition and failureCondition: CEL over result', () => {
    check(
      [
        {
          name: 'a condition comparing with an argument',
          change: (s) => {
            s.args!.push({ name: 'max-error-rate', value: '0.05' });
            metric(s, 0).successCondition = 'result[0] < {{args.max-error-rate}}';
          },
          errors: [],
        },
        {
          name: 'an unfinished expression',
          change: (s) => {
            metric(s, 0).successCondition = 'result >';
          },
          errors: ['spec.metrics[0].successCondition: Invalid value: "result >": Unexpected token: EOF'],
        },
        {
          name: 'a name other than result',
          change: (s) => {
            metric(s, 0).failureCondition = 'value > 0.2';
          },
          errors: ['spec.metrics[0].failureCondition: Invalid value: "value > 0.2": Unknown variable: value'],
        },
        {
          name: 'a number, not a bool',
          change: (s) => {
            metric(s, 0).successCondition = 'result[0] * 100';
          },
          errors: ['spec.metrics[0].successCondition: Invalid value: "result[0] * 100": must be a bool, not int'],
        },
        {
          name: 'an empty condition',
          change: (s) => {
            metric(s, 0).failureCondition = ' ';
          },
          errors: ['spec.metrics[0].failureCondition: Invalid value: " ": must not be empty'],
        },
      ],
      validateAnalysisTemplate,
    );
  });

  describe('prometheus: an http(s) address and a query', () => {
    check(
      [
        {
          name: 'a literal https address',
          change: (s) => {
            prom(s).address = 'https://prometheus.example.com';
          },
          errors: [],
        },
        {
          name: 'an address without a scheme',
          change: (s) => {
            prom(s).address = 'prometheus:9090';
          },
          errors: [
            'spec.metrics[0].provider.prometheus.address: Invalid value: "prometheus:9090": must be an http or https URL, such as http://prometheus.monitoring:9090',
          ],
        },
        {
          name: 'no address',
          change: (s) => {
            delete prom(s).address;
          },
          errors: ['spec.metrics[0].provider.prometheus.address: Required value'],
        },
        {
          name: 'a blank query',
          change: (s) => {
            prom(s).query = '  ';
          },
          errors: ['spec.metrics[0].provider.prometheus.query: Required value: a PromQL query'],
        },
        {
          name: 'a timeout of 0 seconds',
          change: (s) => {
            prom(s).timeout = 0;
          },
          errors: ['spec.metrics[0].provider.prometheus.timeout: Invalid value: 0: must be greater than or equal to 1'],
        },
      ],
      validateAnalysisTemplate,
    );
  });

  describe('web: an http(s) URL, a method, headers from a value or a Secret, a JSONPath, a timeout', () => {
    check(
      [
        {
          name: 'a URL from an argument',
          change: (s) => {
            s.args!.push({ name: 'status-url', value: 'http://status' });
            webOf(s).url = '{{args.status-url}}/api';
          },
          errors: [],
        },
        {
          name: 'an ftp URL',
          change: (s) => {
            webOf(s).url = 'ftp://status.example.com/x';
          },
          errors: [
            'spec.metrics[1].provider.web.url: Invalid value: "ftp://status.example.com/x": must be an http or https URL, such as https://status.example.com/api/health',
          ],
        },
        {
          name: 'method POST with a body',
          change: (s) => {
            webOf(s).method = 'POST';
            webOf(s).body = '{"service": "{{args.service-name}}"}';
          },
          errors: [],
        },
        {
          name: 'method DELETE',
          change: (s) => {
            webOf(s).method = 'DELETE';
          },
          errors: [
            'spec.metrics[1].provider.web.method: Unsupported value: "DELETE": supported values: "GET", "POST", "PUT"',
          ],
        },
        {
          name: 'a header without a key',
          change: (s) => {
            webOf(s).headers[1].key = '';
          },
          errors: ["spec.metrics[1].provider.web.headers[1].key: Required value: the header's name"],
        },
        {
          name: 'a header with neither value nor valueFrom',
          change: (s) => {
            delete webOf(s).headers[1].value;
          },
          errors: ['spec.metrics[1].provider.web.headers[1].value: Required value: a value or valueFrom.secretKeyRef'],
        },
        {
          name: 'a header with both',
          change: (s) => {
            webOf(s).headers[0].value = 'Bearer x';
          },
          errors: ['spec.metrics[1].provider.web.headers[0].valueFrom: Forbidden: may not be set with value: give one'],
        },
        {
          name: 'a header from a Secret without its key',
          change: (s) => {
            delete webOf(s).headers[0].valueFrom.secretKeyRef.key;
          },
          errors: ['spec.metrics[1].provider.web.headers[0].valueFrom.secretKeyRef.key: Required value'],
        },
        {
          name: 'a header whose valueFrom names no Secret',
          change: (s) => {
            webOf(s).headers[0].valueFrom = {};
          },
          errors: [
            "spec.metrics[1].provider.web.headers[0].valueFrom.secretKeyRef: Required value: the Secret's name and key",
          ],
        },
        {
          name: 'a JSONPath starting with $',
          change: (s) => {
            webOf(s).jsonPath = '$.data.ok';
          },
          errors: [],
        },
        {
          name: 'a JSONPath without { or $',
          change: (s) => {
            webOf(s).jsonPath = 'data.ok';
          },
          errors: [
            'spec.metrics[1].provider.web.jsonPath: Invalid value: "data.ok": must be a JSONPath starting with { or $, such as {$.data.ok}',
          ],
        },
        {
          name: 'timeoutSeconds 0',
          change: (s) => {
            webOf(s).timeoutSeconds = 0;
          },
          errors: ['spec.metrics[1].provider.web.timeoutSeconds: Invalid value: 0: must be greater than or equal to 1'],
        },
        {
          name: 'no URL',
          change: (s) => {
            delete webOf(s).url;
          },
          errors: ['spec.metrics[1].provider.web.url: Required value'],
        },
      ],
      validateAnalysisTemplate,
    );
  });

  describe('job: a JobSpec', () => {
    check(
      [
        {
          name: 'a job without a spec',
          change: (s) => {
            metric(s, 2).provider.job = {} as never;
          },
          errors: ['spec.metrics[2].provider.job.spec: Required value: a batch/v1 JobSpec'],
        },
        {
          name: 'a job whose spec is a string',
          change: (s) => {
            metric(s, 2).provider.job = { spec: 'backoffLimit: 0' } as never;
          },
          errors: [
            'spec.metrics[2].provider.job.spec: Invalid value: "string": spec.metrics[2].provider.job.spec in body must be of type object: "string"',
          ],
        },
      ],
      validateAnalysisTemplate,
    );
  });

  describe('args: names given once; every {{args.NAME}} names one', () => {
    check(
      [
        {
          name: 'two arguments named service-name',
          change: (s) => {
            s.args!.push({ name: 'service-name', value: 'web' });
          },
          errors: ['spec.args[4].name: Duplicate value: "service-name"'],
        },
        {
          name: 'an argument without a name',
          change: (s) => {
            s.args!.push({ name: '' });
          },
          errors: ['spec.args[4].name: Required value'],
        },
        {
          name: 'an argument name with a brace',
          change: (s) => {
            s.args!.push({ name: 'a}b' });
          },
          errors: [
            "spec.args[4].name: Invalid value: \"a}b\": must consist of letters, digits, '-', '_' or '.', and start and end with a letter, a digit or '_' (regex used for validation is '[A-Za-z0-9_]([-A-Za-z0-9_.]*[A-Za-z0-9_])?')",
          ],
        },
        {
          name: 'a value and a valueFrom',
          change: (s) => {
            s.args![3].value = 'abc';
          },
          errors: ['spec.args[3].valueFrom: Forbidden: may not be set with value: give one'],
        },
        {
          name: 'an empty valueFrom',
          change: (s) => {
            s.args![3].valueFrom = {};
          },
          errors: ['spec.args[3].valueFrom: Required value: one of secretKeyRef, podTemplateHashValue, fieldRef'],
        },
        {
          name: 'a Secret and a field at once',
          change: (s) => {
            s.args![2].valueFrom!.fieldRef = { fieldPath: 'metadata.name' };
          },
          errors: ['spec.args[2].valueFrom.fieldRef: Forbidden: may not be set with secretKeyRef: give one'],
        },
        {
          name: 'podTemplateHashValue Canary',
          change: (s) => {
            s.args![3].valueFrom = { podTemplateHashValue: 'Canary' as never };
          },
          errors: [
            'spec.args[3].valueFrom.podTemplateHashValue: Unsupported value: "Canary": supported values: "Latest", "Stable"',
          ],
        },
        {
          name: 'a reference to an argument not declared, in the query',
          change: (s) => {
            prom(s).query = 'up{service="{{args.service}}"}';
          },
          errors: [
            'spec.metrics[0].provider.prometheus.query: Invalid value: "up{service=\\"{{args.service}}\\"}": {{args.service}} names no argument (arguments declared: service-name, prometheus, api-token, canary-hash)',
          ],
        },
        {
          name: "a reference in the Job's container args",
          change: (s) => {
            const job = metric(s, 2).provider.job!.spec as any;
            job.template.spec.containers[0].args = ['{{args.url}}'];
          },
          errors: [
            'spec.metrics[2].provider.job.spec.template.spec.containers[0].args[0]: Invalid value: "{{args.url}}": {{args.url}} names no argument (arguments declared: service-name, prometheus, api-token, canary-hash)',
          ],
        },
        {
          name: 'a reference with spaces',
          change: (s) => {
            webOf(s).url = 'https://status.example.com/api/{{ args.service-name }}';
          },
          errors: [
            'spec.metrics[1].provider.web.url: Invalid value: "https://status.example.com/api/{{ args.service-name }}": write {{ args.service-name }} as {{args.service-name}}, without spaces',
          ],
        },
        {
          name: 'references with no arguments declared (each reported once per field)',
          change: (s) => {
            delete s.args;
            s.metrics = [s.metrics[0]];
            s.dryRun = [];
          },
          errors: [
            'spec.metrics[0].provider.prometheus.address: Invalid value: "{{args.prometheus}}": {{args.prometheus}} names no argument (arguments declared: none)',
            `spec.metrics[0].provider.prometheus.query: Invalid value: ${JSON.stringify(ERROR_RATE)}: {{args.service-name}} names no argument (arguments declared: none)`,
          ],
        },
      ],
      validateAnalysisTemplate,
    );
  });

  describe('dryRun and measurementRetention: each names a metric', () => {
    check(
      [
        {
          name: 'a dry run of a metric not there',
          change: (s) => {
            s.dryRun = [{ metricName: 'latency' }];
          },
          errors: [
            'spec.dryRun[0].metricName: Unsupported value: "latency": supported values: "error-rate", "status", "smoke"',
          ],
        },
        {
          name: 'a dry run without a metric name',
          change: (s) => {
            s.dryRun = [{} as never];
          },
          errors: ['spec.dryRun[0].metricName: Required value'],
        },
        {
          name: 'a retention of a metric not there',
          change: (s) => {
            s.measurementRetention = [{ metricName: 'errors', limit: 5 }];
          },
          errors: [
            'spec.measurementRetention[0].metricName: Unsupported value: "errors": supported values: "error-rate", "status", "smoke"',
          ],
        },
        {
          name: 'a retention of 0 measurements',
          change: (s) => {
            s.measurementRetention![0].limit = 0;
          },
          errors: ['spec.measurementRetention[0].limit: Invalid value: 0: must be greater than or equal to 1'],
        },
        {
          name: 'a retention without a limit',
          change: (s) => {
            delete (s.measurementRetention![0] as Partial<{ limit: number }>).limit;
          },
          errors: ['spec.measurementRetention[0].limit: Required value: measurements to keep'],
        },
      ],
      validateAnalysisTemplate,
    );
  });
});

describe('api/analysisvalidation: an AnalysisRun', () => {
  /** A run made from the template: its arguments resolved, or a Secret's key. */
  function run(): AnalysisRun {
    const t = template();
    return {
      apiVersion: 'pacer.dev/v1alpha1',
      kind: 'AnalysisRun',
      metadata: { name: 'web-6d4f8b9c7-1', namespace: 'shop' },
      spec: {
        metrics: t.spec.metrics,
        args: [
          { name: 'service-name', value: 'web' },
          { name: 'prometheus', value: 'http://prometheus.monitoring:9090' },
          { name: 'api-token', valueFrom: { secretKeyRef: { name: 'status-api', key: 'token' } } },
          { name: 'canary-hash', value: '6d4f8b9c7' },
        ],
        dryRun: t.spec.dryRun,
        measurementRetention: t.spec.measurementRetention,
      },
    };
  }
  const rows: Array<{ name: string; change: (r: AnalysisRun) => void; errors: string[] }> = [
    { name: 'the run of the example template', change: () => {}, errors: [] },
    {
      name: 'terminated',
      change: (r) => {
        r.spec.terminate = true;
      },
      errors: [],
    },
    {
      name: 'an argument with no value',
      change: (r) => {
        delete r.spec.args![0].value;
      },
      errors: ['spec.args[0].value: Required value: a run needs a value or valueFrom.secretKeyRef'],
    },
    {
      name: 'an argument still to be taken from the Deployment',
      change: (r) => {
        r.spec.args![3] = { name: 'canary-hash', valueFrom: { podTemplateHashValue: 'Latest' } as never };
      },
      errors: [
        "spec.args[3].valueFrom.podTemplateHashValue: Forbidden: a run's argument is resolved when the run is made: value or valueFrom.secretKeyRef",
      ],
    },
    {
      name: 'a Secret without a name',
      change: (r) => {
        r.spec.args![2].valueFrom = { secretKeyRef: { key: 'token' } as never };
      },
      errors: ['spec.args[2].valueFrom.secretKeyRef.name: Required value'],
    },
    {
      name: 'an argument given twice',
      change: (r) => {
        r.spec.args!.push({ name: 'service-name', value: 'api' });
      },
      errors: ['spec.args[4].name: Duplicate value: "service-name"'],
    },
    {
      name: 'a metric that refers to an argument the run lacks',
      change: (r) => {
        r.spec.args = r.spec.args!.filter((a) => a.name !== 'canary-hash');
      },
      errors: [
        'spec.metrics[1].provider.web.headers[1].value: Invalid value: "{{args.canary-hash}}": {{args.canary-hash}} names no argument (arguments declared: service-name, prometheus, api-token)',
      ],
    },
    {
      name: 'a bad condition in a run',
      change: (r) => {
        r.spec.metrics[1].successCondition = 'result.ok ==';
      },
      errors: ['spec.metrics[1].successCondition: Invalid value: "result.ok ==": Unexpected token: EOF'],
    },
    {
      name: 'terminate "yes"',
      change: (r) => {
        (r.spec as unknown as Record<string, unknown>).terminate = 'yes';
      },
      errors: ['spec.terminate: Invalid value: "string": spec.terminate in body must be of type boolean: "string"'],
    },
  ];
  for (const row of rows) {
    it(row.errors.length ? `${row.name}: ${row.errors[0]}` : `${row.name}: valid`, () => {
      const r = run();
      row.change(r);
      expect(validateAnalysisRun(r).map(formatFieldError)).to.deep.equal(row.errors);
    });
  }
});

describe('api/analysisvalidation: argReferences', () => {
  const rows: Array<[string, string[]]> = [
    ['up{service="{{args.service-name}}"}', ['service-name']],
    ['{{args.a}}/{{args.b}}/{{args.a}}', ['a', 'b', 'a']],
    ['{{ args.spaced }} is not a reference', []],
    ['no references', []],
  ];
  for (const [text, names] of rows)
    it(`${text} → ${names.join(', ') || 'none'}`, () => expect(argReferences(text)).to.deep.equal(names));
});
