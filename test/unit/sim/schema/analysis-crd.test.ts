// crds/analysistemplates.pacer.dev.yaml, clusteranalysistemplates.pacer.dev.yaml and
// analysisruns.pacer.dev.yaml: valid v1 CRDs of the agreed shape, described field by field for
// `kubectl explain`; a good template, cluster template and run pass admission unchanged (nothing
// pruned); every bad one the schema can tell fails naming the field, with the messages the
// simulated API server (and a real one) gives. What the schema cannot say is the webhook's
// (test/unit/api/analysisvalidation.test.ts).

import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { KubeObject } from '../../../../src/sim/types.ts';
import { compileCRD, defaultCRD, validateCRD } from '../../../../src/sim/schema/crd.ts';
import { admitCustomResource } from '../../../../src/sim/schema/admit.ts';
import { causeString } from '../../../../src/sim/schema/fielderrors.ts';

const root = new URL('../../../../', import.meta.url);
const load = (file: string): any => parse(readFileSync(new URL(`crds/${file}`, root), 'utf8'));

const FILES = {
  AnalysisTemplate: 'analysistemplates.pacer.dev.yaml',
  ClusterAnalysisTemplate: 'clusteranalysistemplates.pacer.dev.yaml',
  AnalysisRun: 'analysisruns.pacer.dev.yaml',
} as const;
type Kind = keyof typeof FILES;

const QUERY = 'sum(rate(http_requests_total{service="{{args.service-name}}",code=~"5.."}[1m]))';

function metrics(): any[] {
  return [
    {
      name: 'error-rate',
      interval: '30s',
      initialDelay: '1m',
      count: 10,
      failureLimit: 2,
      inconclusiveLimit: '{{args.inconclusive}}',
      consecutiveErrorLimit: 4,
      consecutiveSuccessLimit: 0,
      successCondition: 'result[0] < 0.05',
      failureCondition: 'result[0] >= 0.2',
      provider: { prometheus: { address: 'http://prometheus.monitoring:9090', query: QUERY, timeout: 20 } },
    },
    {
      name: 'status',
      interval: '1m',
      successCondition: 'result.ok == true',
      provider: {
        web: {
          url: 'https://status.example.com/api/{{args.service-name}}',
          method: 'POST',
          body: '{"service": "{{args.service-name}}"}',
          headers: [
            { key: 'Authorization', valueFrom: { secretKeyRef: { name: 'status-api', key: 'token' } } },
            { key: 'Accept', value: 'application/json' },
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
          metadata: { labels: { team: 'web' } },
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
  ];
}

function example(kind: Kind): KubeObject {
  const meta =
    kind === 'ClusterAnalysisTemplate' ? { name: 'success-rate' } : { name: 'success-rate', namespace: 'shop' };
  const shared = {
    metrics: metrics(),
    dryRun: [{ metricName: 'status' }],
    measurementRetention: [{ metricName: 'error-rate', limit: 20 }],
  };
  if (kind === 'AnalysisRun') {
    return {
      apiVersion: 'pacer.dev/v1alpha1',
      kind,
      metadata: { ...meta, name: 'web-6d4f8b9c7-1' },
      spec: {
        ...shared,
        args: [
          { name: 'service-name', value: 'web' },
          { name: 'inconclusive', value: '1' },
          { name: 'api-token', valueFrom: { secretKeyRef: { name: 'status-api', key: 'token' } } },
        ],
        terminate: false,
      },
      status: {
        phase: 'Running',
        message: 'measuring',
        startedAt: '2026-11-26T10:00:00Z',
        metricResults: [
          {
            name: 'error-rate',
            phase: 'Running',
            count: 1,
            successful: 1,
            failed: 0,
            inconclusive: 0,
            error: 0,
            consecutiveError: 0,
            consecutiveSuccess: 1,
            measurements: [
              {
                phase: 'Successful',
                startedAt: '2026-11-26T10:01:00Z',
                finishedAt: '2026-11-26T10:01:01Z',
                value: '[0.01]',
                metadata: { query: 'sum(...)' },
              },
            ],
          },
          { name: 'status', phase: 'Pending', dryRun: true },
        ],
        runSummary: { count: 2, successful: 0, failed: 0, inconclusive: 0, error: 0 },
        dryRunSummary: { count: 1 },
      },
    };
  }
  return {
    apiVersion: 'pacer.dev/v1alpha1',
    kind,
    metadata: meta,
    spec: {
      ...shared,
      args: [
        { name: 'service-name' },
        { name: 'inconclusive', value: '1' },
        { name: 'api-token', valueFrom: { secretKeyRef: { name: 'status-api', key: 'token' } } },
        { name: 'canary-hash', valueFrom: { podTemplateHashValue: 'Latest' } },
        { name: 'team', valueFrom: { fieldRef: { fieldPath: "metadata.labels['team']" } } },
      ],
    },
  };
}

type Schema = {
  description?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  'x-kubernetes-validations'?: Array<{ rule: string; message: string }>;
};

/** Every schema node with its path (properties and list items). */
function* nodes(s: Schema, path: string): Generator<[string, Schema]> {
  yield [path, s];
  for (const [k, child] of Object.entries(s.properties ?? {})) yield* nodes(child, path ? `${path}.${k}` : k);
  if (s.items) yield* nodes(s.items, `${path}[]`);
}

describe('sim/schema: the analysis CRDs', () => {
  for (const [kind, file] of Object.entries(FILES) as Array<[Kind, string]>) {
    describe(`crds/${file}`, () => {
      const crd = load(file);
      const version = crd.spec.versions[0];
      const schema: Schema = version.schema.openAPIV3Schema;

      it('is a valid v1 CRD', () => {
        expect(validateCRD(defaultCRD(crd)).map(causeString)).to.deep.equal([]);
      });

      it(`names ${kind}: ${kind === 'ClusterAnalysisTemplate' ? 'cluster-scoped' : 'namespaced'}, in the pacer category, labelled as Pacer's`, () => {
        const plural = file.replace('.pacer.dev.yaml', '');
        expect(crd.metadata).to.deep.equal({
          name: `${plural}.pacer.dev`,
          labels: { 'app.kubernetes.io/name': 'pacer', 'app.kubernetes.io/part-of': 'pacer' },
        });
        expect(crd.spec.group).to.equal('pacer.dev');
        expect(crd.spec.scope).to.equal(kind === 'ClusterAnalysisTemplate' ? 'Cluster' : 'Namespaced');
        expect(crd.spec.names).to.deep.equal({
          kind,
          listKind: `${kind}List`,
          plural,
          singular: kind.toLowerCase(),
          categories: ['pacer'],
        });
        expect(crd.spec.versions).to.have.length(1);
        expect(version).to.include({ name: 'v1alpha1', served: true, storage: true });
      });

      it(
        kind === 'AnalysisRun'
          ? 'has a status subresource and prints STATUS, MESSAGE (wide) and AGE'
          : 'has no status and prints AGE',
        () => {
          const columns = version.additionalPrinterColumns.map(
            (c: { name: string; type: string; jsonPath: string; priority?: number }) =>
              `${c.name.toUpperCase()} ${c.type} ${c.jsonPath}${c.priority ? ` (priority ${c.priority})` : ''}`,
          );
          if (kind === 'AnalysisRun') {
            expect(version.subresources).to.deep.equal({ status: {} });
            expect(columns).to.deep.equal([
              'STATUS string .status.phase',
              'MESSAGE string .status.message (priority 1)',
              'AGE date .metadata.creationTimestamp',
            ]);
          } else {
            expect(version.subresources).to.equal(undefined);
            expect(columns).to.deep.equal(['AGE date .metadata.creationTimestamp']);
          }
        },
      );

      it('gives every field and list item a description (kubectl explain), the root metadata excepted', () => {
        const missing = [...nodes(schema, '')]
          .filter(([path]) => path !== 'metadata')
          .filter(([, s]) => !(s.description && s.description.trim().length > 10))
          .map(([path]) => path || '(root)');
        expect(missing).to.deep.equal([]);
        // What `kubectl explain <kind>.spec.metrics.provider.prometheus` shows first.
        const prometheus =
          schema.properties!.spec.properties!.metrics.items!.properties!.provider.properties!.prometheus;
        expect(prometheus.description).to.match(/PromQL/);
        expect(Object.keys(prometheus.properties!)).to.deep.equal(['address', 'query', 'timeout']);
      });

      it('uses in its CEL rules only has(), all(), exists(), size(), type() and matches()', () => {
        const allowed = new Set(['has', 'all', 'exists', 'size', 'type', 'matches']);
        const used = new Set<string>();
        for (const [, s] of nodes(schema, '')) {
          for (const r of s['x-kubernetes-validations'] ?? []) {
            for (const m of r.rule.matchAll(/([A-Za-z_][A-Za-z0-9_]*)\s*\(/g)) used.add(m[1]);
            expect(r.message, r.rule).to.be.a('string').and.not.equal('');
          }
        }
        expect([...used].filter((f) => !allowed.has(f))).to.deep.equal([]);
      });

      it("bounds what its CEL rules read, so a real API server's cost estimate stays within budget", () => {
        // A real server refused these CRDs before the int-or-string fields had a maxLength: an
        // unbounded string under matches(), in a list of metrics, exceeds the per-rule budget.
        const unbounded = [...nodes(schema, '')]
          .filter(([, s]) => (s['x-kubernetes-validations'] ?? []).some((r) => r.rule.includes('matches(')))
          .filter(([, s]) => (s as { maxLength?: number }).maxLength === undefined)
          .map(([path]) => path);
        expect(unbounded).to.deep.equal([]);
        const unboundedLists = [...nodes(schema, '')]
          .filter(
            ([, s]) => (s as { type?: string }).type === 'array' && (s as { maxItems?: number }).maxItems === undefined,
          )
          .filter(([path]) => path.startsWith('spec.'))
          .filter(([path]) => !path.startsWith('spec.metrics[].provider.job.'))
          .map(([path]) => path);
        expect(unboundedLists).to.deep.equal([]);
      });

      const compiled = compileCRD(defaultCRD(crd)).versions.find((v) => v.storage)!;
      const admit = (o: KubeObject) => admitCustomResource(compiled, o, undefined, { kind, group: 'pacer.dev' });

      it(`accepts the example ${kind} without pruning anything`, () => {
        const r = admit(example(kind));
        expect(r.causes.map(causeString)).to.deep.equal([]);
        expect(r.unknownFields).to.deep.equal([]);
        expect(r.object).to.deep.equal(example(kind));
      });

      it('prunes a provider it does not know (the webhook then finds none)', () => {
        const o = example(kind) as any;
        o.spec.metrics[2].provider = { datadog: { query: 'avg:errors' } };
        const r = admit(o);
        expect(r.unknownFields).to.deep.equal(['spec.metrics[2].provider.datadog']);
        expect(r.causes.map(causeString)).to.deep.equal([
          'spec.metrics[2].provider: Required value: one of prometheus, web and job',
        ]);
      });

      const withSpec = (f: (spec: any) => void): KubeObject => {
        const o = example(kind) as any;
        f(o.spec);
        return o;
      };
      const rows: Array<[string, KubeObject, string]> = [
        [
          'no metrics',
          withSpec((s) => {
            s.metrics = [];
            s.dryRun = [];
            s.measurementRetention = [];
          }),
          'spec.metrics: Invalid value: 0: spec.metrics in body should have at least 1 items',
        ],
        [
          'two metrics of one name',
          withSpec((s) => {
            s.metrics[2].name = 'status';
          }),
          'spec.metrics[2]: Duplicate value: map[string]interface {}{"name":"status"}',
        ],
        [
          'a metric name with capitals',
          withSpec((s) => {
            s.metrics[2].name = 'Smoke';
          }),
          'spec.metrics[2].name: Invalid value: "Smoke": spec.metrics[2].name in body should match \'^[a-z0-9]([-a-z0-9]*[a-z0-9])?$\'',
        ],
        [
          'a metric without a provider',
          withSpec((s) => {
            delete s.metrics[2].provider;
          }),
          'spec.metrics[2].provider: Required value',
        ],
        [
          'two providers',
          withSpec((s) => {
            s.metrics[0].provider.web = { url: 'http://status' };
          }),
          'spec.metrics[0].provider: Forbidden: a metric has exactly one provider; set only one of prometheus, web and job',
        ],
        [
          'an interval without a unit',
          withSpec((s) => {
            s.metrics[0].interval = '30';
          }),
          'spec.metrics[0].interval: Invalid value: "30": spec.metrics[0].interval in body should match \'^((([0-9]+(\\.[0-9]*)?|\\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+|\\{\\{args\\.[^{}]+\\}\\})$\'',
        ],
        [
          'count 0',
          withSpec((s) => {
            s.metrics[0].count = 0;
          }),
          'spec.metrics[0].count: Invalid value: 0: must be greater than or equal to 1',
        ],
        [
          'a negative failureLimit',
          withSpec((s) => {
            s.metrics[0].failureLimit = -1;
          }),
          'spec.metrics[0].failureLimit: Invalid value: -1: must be greater than or equal to 0',
        ],
        [
          'a consecutiveErrorLimit "4" (a number in a string)',
          withSpec((s) => {
            s.metrics[0].consecutiveErrorLimit = '4';
          }),
          'spec.metrics[0].consecutiveErrorLimit: Invalid value: "4": must be an integer, or one {{args.NAME}} reference and nothing else',
        ],
        [
          'a Prometheus address without a scheme',
          withSpec((s) => {
            s.metrics[0].provider.prometheus.address = 'prometheus:9090';
          }),
          'spec.metrics[0].provider.prometheus.address: Invalid value: "prometheus:9090": spec.metrics[0].provider.prometheus.address in body should match \'^(https?://.+|\\{\\{args\\..*)$\'',
        ],
        [
          'a Prometheus provider without a query',
          withSpec((s) => {
            delete s.metrics[0].provider.prometheus.query;
          }),
          'spec.metrics[0].provider.prometheus.query: Required value',
        ],
        [
          'web method DELETE',
          withSpec((s) => {
            s.metrics[1].provider.web.method = 'DELETE';
          }),
          'spec.metrics[1].provider.web.method: Unsupported value: "DELETE": supported values: "GET", "POST", "PUT"',
        ],
        [
          'a header with a value and a Secret',
          withSpec((s) => {
            s.metrics[1].provider.web.headers[0].value = 'Bearer x';
          }),
          'spec.metrics[1].provider.web.headers[0]: Invalid value: exactly one of value and valueFrom.secretKeyRef',
        ],
        [
          'timeoutSeconds 0',
          withSpec((s) => {
            s.metrics[1].provider.web.timeoutSeconds = 0;
          }),
          'spec.metrics[1].provider.web.timeoutSeconds: Invalid value: 0: spec.metrics[1].provider.web.timeoutSeconds in body should be greater than or equal to 1',
        ],
        [
          'a JSONPath without { or $',
          withSpec((s) => {
            s.metrics[1].provider.web.jsonPath = 'data.ok';
          }),
          'spec.metrics[1].provider.web.jsonPath: Invalid value: "data.ok": spec.metrics[1].provider.web.jsonPath in body should match \'^[{$]\'',
        ],
        [
          'a job without a spec',
          withSpec((s) => {
            s.metrics[2].provider.job = {};
          }),
          'spec.metrics[2].provider.job.spec: Required value',
        ],
        [
          'a dry run of a metric not there',
          withSpec((s) => {
            s.dryRun = [{ metricName: 'latency' }];
          }),
          'spec.dryRun: Invalid value: every dryRun entry must name one of the metrics',
        ],
        [
          'a retention of 0 measurements',
          withSpec((s) => {
            s.measurementRetention[0].limit = 0;
          }),
          'spec.measurementRetention[0].limit: Invalid value: 0: spec.measurementRetention[0].limit in body should be greater than or equal to 1',
        ],
        [
          'two arguments of one name',
          withSpec((s) => {
            s.args.push({ name: 'service-name', value: 'api' });
          }),
          'spec.args[3]: Duplicate value: map[string]interface {}{"name":"service-name"}'.replace(
            '[3]',
            kind === 'AnalysisRun' ? '[3]' : '[5]',
          ),
        ],
      ];
      if (kind === 'AnalysisRun') {
        rows.push(
          [
            'an argument with no value',
            withSpec((s) => {
              delete s.args[0].value;
            }),
            'spec.args[0]: Invalid value: exactly one of value and valueFrom.secretKeyRef',
          ],
          [
            'an argument from the Deployment (resolved when the run is made)',
            withSpec((s) => {
              s.args[0] = { name: 'service-name', valueFrom: { podTemplateHashValue: 'Latest' } };
            }),
            'spec.args[0].valueFrom.secretKeyRef: Required value',
          ],
        );
      } else {
        rows.push(
          [
            'an argument with a value and a valueFrom',
            withSpec((s) => {
              s.args[3].value = 'abc';
            }),
            'spec.args[3].valueFrom: Forbidden: may not be set with value',
          ],
          [
            'an argument from both a Secret and a field',
            withSpec((s) => {
              s.args[2].valueFrom.fieldRef = { fieldPath: 'metadata.name' };
            }),
            'spec.args[2].valueFrom: Invalid value: exactly one of secretKeyRef, podTemplateHashValue and fieldRef',
          ],
          [
            'podTemplateHashValue Canary',
            withSpec((s) => {
              s.args[3].valueFrom.podTemplateHashValue = 'Canary';
            }),
            'spec.args[3].valueFrom.podTemplateHashValue: Unsupported value: "Canary": supported values: "Latest", "Stable"',
          ],
          [
            'a field path into the spec',
            withSpec((s) => {
              s.args[4].valueFrom.fieldRef.fieldPath = 'spec.replicas';
            }),
            "spec.args[4].valueFrom.fieldRef.fieldPath: Invalid value: \"spec.replicas\": spec.args[4].valueFrom.fieldRef.fieldPath in body should match '^metadata\\.(name|namespace|(labels|annotations)\\['[^']+'\\])$'",
          ],
        );
      }
      for (const [what, o, message] of rows) {
        it(`refuses ${what}: ${message}`, () => {
          expect(admit(o).causes.map(causeString)).to.include(message);
        });
      }
    });
  }

  it("a ClusterAnalysisTemplate's spec is field for field an AnalysisTemplate's", () => {
    const spec = (f: string) => load(f).spec.versions[0].schema.openAPIV3Schema.properties.spec;
    expect(spec(FILES.ClusterAnalysisTemplate)).to.deep.equal(spec(FILES.AnalysisTemplate));
  });

  it("an AnalysisRun's metrics, dryRun and measurementRetention are the templates'", () => {
    const props = (f: string) => load(f).spec.versions[0].schema.openAPIV3Schema.properties.spec.properties;
    const run = props(FILES.AnalysisRun);
    const template = props(FILES.AnalysisTemplate);
    for (const k of ['metrics', 'dryRun', 'measurementRetention']) expect(run[k], k).to.deep.equal(template[k]);
    expect(Object.keys(run).sort()).to.deep.equal(['args', 'dryRun', 'measurementRetention', 'metrics', 'terminate']);
  });
});
