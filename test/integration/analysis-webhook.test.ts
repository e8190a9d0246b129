// The analysis resources refused at apply time, through the simulated API server, the controller's
// webhook and its configuration as `pacer up` registers it (docs/semantics/analysis.md#the-resources):
// an invalid AnalysisTemplate, ClusterAnalysisTemplate or AnalysisRun is refused with 422 and every
// field error, named by the webhook as kubectl shows it; nothing is stored; a valid one is stored.

import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { AnalysisRun, AnalysisTemplate } from '../../src/api/analysis.ts';
import { ANALYSIS_RUNS, ANALYSIS_TEMPLATES, CLUSTER_ANALYSIS_TEMPLATES } from '../../src/kube/client.ts';
import { toKubeError } from '../../src/kube/errors.ts';
import { REF } from '../../src/sim/resources.ts';
import { webhookConfiguration } from '../../src/server/webhook.ts';
import { createNamespace, startCluster } from './fixtures/cluster.ts';
import type { Cluster } from './fixtures/cluster.ts';
import { KUBECTL_HOW, requireTool } from '../fixtures/tools.ts';

const ns = 'shop';

function template(successCondition: string, name = 'success-rate'): AnalysisTemplate {
  return {
    apiVersion: 'pacer.dev/v1alpha1',
    kind: 'AnalysisTemplate',
    metadata: { name, namespace: ns },
    spec: {
      args: [{ name: 'service-name' }],
      metrics: [
        {
          name: 'error-rate',
          interval: '30s',
          failureLimit: 2,
          successCondition,
          provider: {
            prometheus: {
              address: 'http://prometheus.monitoring:9090',
              query: 'sum(rate(http_requests_total{service="{{args.service-name}}",code=~"5.."}[1m]))',
            },
          },
        },
      ],
    },
  };
}

describe('integration: analysis resources refused at apply time by the webhook', function () {
  this.timeout(60_000);
  let c: Cluster;

  before(async () => {
    c = await startCluster({ podStartMs: 30, podReadyMs: 30 }, { webhookBindAddress: '127.0.0.1:0' });
    c.sim.store.create(
      REF.validatingwebhookconfigurations,
      undefined,
      webhookConfiguration(`http://127.0.0.1:${c.ctl.webhookPort}`),
    );
    createNamespace(c.sim, ns);
  });
  after(async () => {
    await c?.stop();
  });

  const refusal = async (write: Promise<unknown>) => {
    try {
      await write;
    } catch (err) {
      return toKubeError(err);
    }
    throw new Error('the write was accepted');
  };

  it('an AnalysisTemplate with an invalid condition: 422 with the field path and the value, nothing stored', async () => {
    const e = await refusal(c.client.create(ANALYSIS_TEMPLATES, ns, template('result[0] <')));
    expect(e.status?.code).to.equal(422);
    expect(e.status?.message).to.equal(
      'admission webhook "analysis.pacer.dev" denied the request: AnalysisTemplate.pacer.dev "success-rate" is invalid: spec.metrics[0].successCondition: Invalid value: "result[0] <": Unexpected token: EOF',
    );
    const stored = await c.client.list<AnalysisTemplate>(ANALYSIS_TEMPLATES, ns);
    expect(stored.items, 'nothing stored').to.deep.equal([]);
  });

  it('a valid one is stored; an update that breaks it is refused and the stored one kept', async () => {
    await c.client.create(ANALYSIS_TEMPLATES, ns, template('result[0] < 0.05'));
    const e = await refusal(
      c.client.patch(
        ANALYSIS_TEMPLATES,
        ns,
        'success-rate',
        { spec: { metrics: [{ ...template('').spec.metrics[0], successCondition: 'errors < 1' }] } },
        'merge',
      ),
    );
    expect(e.status?.message).to.equal(
      'admission webhook "analysis.pacer.dev" denied the request: AnalysisTemplate.pacer.dev "success-rate" is invalid: spec.metrics[0].successCondition: Invalid value: "errors < 1": Unknown variable: errors',
    );
    const stored = await c.client.get<AnalysisTemplate>(ANALYSIS_TEMPLATES, ns, 'success-rate');
    expect(stored.spec.metrics[0].successCondition).to.equal('result[0] < 0.05');
  });

  it('a ClusterAnalysisTemplate referring to an argument it does not declare', async () => {
    const t = { ...template('result[0] < 0.05', 'slo'), kind: 'ClusterAnalysisTemplate', metadata: { name: 'slo' } };
    delete t.spec.args;
    const e = await refusal(c.client.create(CLUSTER_ANALYSIS_TEMPLATES, undefined, t));
    expect(e.status?.message).to.equal(
      'admission webhook "analysis.pacer.dev" denied the request: ClusterAnalysisTemplate.pacer.dev "slo" is invalid: spec.metrics[0].provider.prometheus.query: Invalid value: "sum(rate(http_requests_total{service=\\"{{args.service-name}}\\",code=~\\"5..\\"}[1m]))": {{args.service-name}} names no argument (arguments declared: none)',
    );
  });

  it('an AnalysisRun with a bad failure condition and an argument misnamed: both errors in one message', async () => {
    const run: AnalysisRun = {
      apiVersion: 'pacer.dev/v1alpha1',
      kind: 'AnalysisRun',
      metadata: { name: 'web-1', namespace: ns },
      spec: { args: [{ name: 'service', value: 'web' }], metrics: template('result[0] < 0.05').spec.metrics },
    };
    run.spec.metrics[0].failureCondition = 'result[0] >';
    const e = await refusal(c.client.create(ANALYSIS_RUNS, ns, run));
    expect(e.status?.code).to.equal(422);
    expect(e.status?.message).to.equal(
      'admission webhook "analysis.pacer.dev" denied the request: AnalysisRun.pacer.dev "web-1" is invalid: [spec.metrics[0].failureCondition: Invalid value: "result[0] >": Unexpected token: EOF, spec.metrics[0].provider.prometheus.query: Invalid value: "sum(rate(http_requests_total{service=\\"{{args.service-name}}\\",code=~\\"5..\\"}[1m]))": {{args.service-name}} names no argument (arguments declared: service)]',
    );
  });

  it('what the schema can tell is refused by the API server first (an argument with no value)', async () => {
    const run: AnalysisRun = {
      apiVersion: 'pacer.dev/v1alpha1',
      kind: 'AnalysisRun',
      metadata: { name: 'web-2', namespace: ns },
      spec: { args: [{ name: 'service-name' }], metrics: template('result[0] < 0.05').spec.metrics },
    };
    const e = await refusal(c.client.create(ANALYSIS_RUNS, ns, run));
    expect(e.status?.message).to.equal(
      'AnalysisRun.pacer.dev "web-2" is invalid: spec.args[0]: Invalid value: exactly one of value and valueFrom.secretKeyRef',
    );
  });

  it('kubectl apply prints the refusal and exits 1', async function () {
    const kubectl = requireTool(this, 'kubectl', KUBECTL_HOW);
    const dir = await mkdtemp(join(tmpdir(), 'pacer-analysis-'));
    await writeFile(join(dir, 'kubeconfig'), c.sim.kubeconfig);
    await writeFile(join(dir, 'bad.json'), JSON.stringify(template('result >', 'bad')));
    const run = promisify(execFile);
    const r = await run(kubectl, ['--kubeconfig', join(dir, 'kubeconfig'), 'apply', '-f', join(dir, 'bad.json')]).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
    );
    expect(r.code).to.equal(1);
    // The denial's Invalid status carries its causes, which the API server keeps: kubectl prints it
    // as it prints the server's own validation errors (the webhook's name is in the message only).
    expect(r.stderr).to.include(
      'The AnalysisTemplate "bad" is invalid: spec.metrics[0].successCondition: Invalid value: "result >": Unexpected token: EOF',
    );
  });
});
