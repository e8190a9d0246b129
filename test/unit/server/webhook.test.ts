// The controller's validating webhook (src/server/webhook.ts): AdmissionReview v1 in, response out,
// over HTTP as the API server posts it: the deployment lock, and the analysis resources' validation;
// the configuration that registers both, here and in manifests/webhook/.

import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Deployment } from '../../../src/api/types.ts';
import { activePlans } from '../../../src/engine/marathon/deploymentplans.ts';
import {
  ANALYSIS_WEBHOOK_NAME,
  ANALYSIS_WEBHOOK_PATH,
  WEBHOOK_NAME,
  WEBHOOK_PATH,
  review,
  reviewAnalysis,
  webhookConfiguration,
  webhookHandler,
} from '../../../src/server/webhook.ts';
import type { AdmissionReview } from '../../../src/server/webhook.ts';
import type { AnalysisTemplate } from '../../../src/api/analysis.ts';
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

function app(name: string, moving: boolean, deps?: string[]): Deployment {
  return {
    apiVersion: 'pacer.dev/v1alpha1',
    kind: 'Deployment',
    metadata: {
      name,
      namespace: 'default',
      uid: `uid-${name}`,
      generation: 2,
      annotations: { 'pacer.dev/revision': '2' },
    },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'v2' }] } },
      ...(deps ? { dependencies: deps } : {}),
    },
    status: {
      observedGeneration: 2,
      replicas: moving ? 3 : 2,
      updatedReplicas: moving ? 1 : 2,
      availableReplicas: 2,
      conditions: [
        { type: 'Progressing', status: 'True', reason: moving ? 'ReplicaSetUpdated' : 'NewReplicaSetAvailable' },
      ],
    },
  };
}
const changed = (d: Deployment): Deployment => ({ ...d, spec: { ...d.spec, replicas: 5 } });
const reviewOf = (
  operation: string,
  object: unknown,
  oldObject: unknown,
  kind = { group: 'pacer.dev', version: 'v1alpha1', kind: 'Deployment' },
) => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview' as const,
  request: { uid: 'u-1', kind, name: 'app', namespace: 'default', operation: operation as 'UPDATE', object, oldObject },
});

describe('server/webhook: AdmissionReview in, response out', () => {
  const db = app('db', true);
  const appMoving = app('app', true, ['db']);
  const cache = { deployments: () => [db, appMoving], now: () => 0 };

  it('a change to a locked app: allowed=false, status 409 Conflict with the message, same uid', () => {
    const id = activePlans([db, appMoving], 0)[0].id;
    expect(review(reviewOf('UPDATE', changed(appMoving), appMoving), cache)).to.deep.equal({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: {
        uid: 'u-1',
        allowed: false,
        status: {
          code: 409,
          reason: 'Conflict',
          message: `App is locked by one or more deployments. Override with the annotation pacer.dev/force: "true". View details at '/v2/deployments/${id}'.`,
        },
      },
    });
  });
  const allowed: Array<[string, ReturnType<typeof reviewOf>]> = [
    ['a create', reviewOf('CREATE', changed(appMoving), null)],
    ['a delete', reviewOf('DELETE', null, appMoving)],
    [
      'another kind',
      reviewOf('UPDATE', changed(appMoving), appMoving, { group: 'apps', version: 'v1', kind: 'Deployment' }),
    ],
    ['an app without relations', reviewOf('UPDATE', changed(app('web', true)), app('web', true))],
  ];
  for (const [row, body] of allowed) {
    it(`${row}: allowed`, () => expect(review(body, cache).response).to.deep.equal({ uid: 'u-1', allowed: true }));
  }

  describe('a cancel request or stamp newly written must read "<mode>:<id>"', () => {
    const annotated = (d: Deployment, key: string, v: string): Deployment => ({
      ...d,
      metadata: { ...d.metadata, annotations: { ...d.metadata.annotations, [key]: v } },
    });
    const web = app('web', false);
    it('an invalid request: 422 Invalid with the field path and the shape wanted', () => {
      expect(
        review(reviewOf('UPDATE', annotated(web, 'pacer.dev/cancel-request', 'undo please'), web), cache).response,
      ).to.deep.equal({
        uid: 'u-1',
        allowed: false,
        status: {
          code: 422,
          reason: 'Invalid',
          message:
            'metadata.annotations[pacer.dev/cancel-request]: Invalid value: "undo please": must be "rollback:<id>" or "stop:<id>", with the ID from kubectl pacer deployments',
        },
      });
    });
    it('an invalid stamp: refused the same way', () => {
      expect(
        review(reviewOf('UPDATE', annotated(web, 'pacer.dev/cancel', 'pause:abc'), web), cache).response?.status
          ?.message,
      ).to.match(/^metadata\.annotations\[pacer\.dev\/cancel\]: Invalid value: "pause:abc"/);
    });
    it('a valid request passes; an invalid value already stored does not block another change', () => {
      expect(
        review(reviewOf('UPDATE', annotated(web, 'pacer.dev/cancel-request', 'stop:0b6a2a4c'), web), cache).response
          ?.allowed,
      ).to.equal(true);
      const stored = annotated(web, 'pacer.dev/cancel-request', 'undo please');
      expect(review(reviewOf('UPDATE', changed(stored), stored), cache).response?.allowed).to.equal(true);
    });
  });

  describe('a plan-state newly written must be readable (kubectl pacer plan commands write it)', () => {
    const web = app('web', false);
    const withState = (v: string): Deployment => ({
      ...web,
      metadata: { ...web.metadata, annotations: { ...web.metadata.annotations, 'pacer.dev/plan-state': v } },
    });
    const rows: Array<[string, string, string | undefined]> = [
      [
        'not JSON',
        '{revision: 2',
        'metadata.annotations[pacer.dev/plan-state]: Invalid value: "{revision: 2": not JSON; written by kubectl pacer plan commands',
      ],
      [
        'JSON of the wrong shape',
        '{"revision": 2, "proceeds": -1}',
        'metadata.annotations[pacer.dev/plan-state]: Invalid value: "{\\"revision\\": 2, \\"proceeds\\": -1}": expected {"revision": N, "proceeds": N, "interrupted": bool, "forced": [N, ...]}; written by kubectl pacer plan commands',
      ],
      ['a readable one', '{"revision": 2, "proceeds": 1, "interrupted": false, "forced": []}', undefined],
    ];
    for (const [row, value, message] of rows) {
      it(`${row}: ${message ? '422 Invalid with the field path' : 'allowed'}`, () => {
        const response = review(reviewOf('UPDATE', withState(value), web), cache).response;
        if (message)
          expect(response).to.deep.equal({
            uid: 'u-1',
            allowed: false,
            status: { code: 422, reason: 'Invalid', message },
          });
        else expect(response).to.deep.equal({ uid: 'u-1', allowed: true });
      });
    }
    it('one already stored does not block another change', () => {
      const stored = withState('{');
      expect(review(reviewOf('UPDATE', changed(stored), stored), cache).response?.allowed).to.equal(true);
    });
  });

  it('over HTTP: 200 with the review at the path, 404 elsewhere, 400 for a bad body', async () => {
    const server = http.createServer(webhookHandler(cache));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const ok = await fetch(`${base}${WEBHOOK_PATH}`, {
        method: 'POST',
        body: JSON.stringify(reviewOf('UPDATE', changed(appMoving), appMoving)),
      });
      expect(ok.status).to.equal(200);
      expect(((await ok.json()) as { response: { allowed: boolean } }).response.allowed).to.equal(false);
      expect((await fetch(`${base}/other`, { method: 'POST', body: '{}' })).status).to.equal(404);
      expect((await fetch(`${base}${WEBHOOK_PATH}`, { method: 'POST', body: 'nope' })).status).to.equal(400);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe('server/webhook: the analysis resources, validated on create and update', () => {
  const template = (metrics: unknown[], name = 'success-rate'): AnalysisTemplate =>
    ({
      apiVersion: 'pacer.dev/v1alpha1',
      kind: 'AnalysisTemplate',
      metadata: { name, namespace: 'shop' },
      spec: { metrics },
    }) as AnalysisTemplate;
  const errorRate = (successCondition: string, failureLimit: unknown = 2) => ({
    name: 'error-rate',
    interval: '30s',
    failureLimit,
    successCondition,
    provider: { prometheus: { address: 'http://prometheus.monitoring:9090', query: 'sum(rate(errors[1m]))' } },
  });
  const good = template([errorRate('result < 0.05')]);
  const bad = template([errorRate('result >')]);
  const kindOf = (kind: string) => ({ group: 'pacer.dev', version: 'v1alpha1', kind });
  const analysisReview = (
    operation: string,
    object: unknown,
    oldObject: unknown,
    kind = 'AnalysisTemplate',
    subResource?: string,
  ) => ({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview' as const,
    request: {
      uid: 'u-2',
      ...(subResource ? { subResource } : {}),
      kind: kindOf(kind),
      name: 'success-rate',
      namespace: 'shop',
      operation: operation as 'CREATE',
      object,
      oldObject,
    },
  });

  it("an invalid condition: 422 Invalid in the API server's words, with the field path and the value given", () => {
    expect(reviewAnalysis(analysisReview('CREATE', bad, null)).response).to.deep.equal({
      uid: 'u-2',
      allowed: false,
      status: {
        code: 422,
        reason: 'Invalid',
        message:
          'AnalysisTemplate.pacer.dev "success-rate" is invalid: spec.metrics[0].successCondition: Invalid value: "result >": Unexpected token: EOF',
        details: {
          name: 'success-rate',
          group: 'pacer.dev',
          kind: 'AnalysisTemplate',
          causes: [
            {
              reason: 'FieldValueInvalid',
              message: 'Invalid value: "result >": Unexpected token: EOF',
              field: 'spec.metrics[0].successCondition',
            },
          ],
        },
      },
    });
  });

  it('several errors: every one, in one message, as a list', () => {
    const t = template([errorRate('result >', -1), { name: 'latency' }]);
    expect(reviewAnalysis(analysisReview('CREATE', t, null)).response?.status?.message).to.equal(
      'AnalysisTemplate.pacer.dev "success-rate" is invalid: [' +
        'spec.metrics[0].failureLimit: Invalid value: -1: must be greater than or equal to 0, ' +
        'spec.metrics[0].successCondition: Invalid value: "result >": Unexpected token: EOF, ' +
        'spec.metrics[1].provider: Required value: one of prometheus, web, job]',
    );
  });

  const kinds: Array<[string, unknown]> = [
    ['ClusterAnalysisTemplate', { ...bad, kind: 'ClusterAnalysisTemplate', metadata: { name: 'success-rate' } }],
    [
      'AnalysisRun',
      {
        apiVersion: 'pacer.dev/v1alpha1',
        kind: 'AnalysisRun',
        metadata: { name: 'web-1', namespace: 'shop' },
        spec: { metrics: bad.spec.metrics, args: [{ name: 'service-name' }] },
      },
    ],
  ];
  for (const [kind, object] of kinds) {
    it(`${kind}: held to its own rules too`, () => {
      const message = reviewAnalysis(analysisReview('CREATE', object, null, kind)).response?.status?.message ?? '';
      expect(message).to.match(new RegExp(`^${kind}\\.pacer\\.dev "success-rate" is invalid: `));
      expect(message).to.include('spec.metrics[0].successCondition: Invalid value: "result >": Unexpected token: EOF');
      if (kind === 'AnalysisRun')
        expect(message).to.include('spec.args[0].value: Required value: a run needs a value or valueFrom.secretKeyRef');
    });
  }

  it('an update that breaks a valid template is refused', () => {
    expect(reviewAnalysis(analysisReview('UPDATE', bad, good)).response?.allowed).to.equal(false);
  });

  it('an update of an object stored invalid (before the webhook) passes unless it adds an error', () => {
    const labelled = { ...bad, metadata: { ...bad.metadata, labels: { team: 'web' } } };
    expect(reviewAnalysis(analysisReview('UPDATE', labelled, bad)).response).to.deep.equal({
      uid: 'u-2',
      allowed: true,
    });
    const worse = template([errorRate('result >', -1)]);
    expect(reviewAnalysis(analysisReview('UPDATE', worse, bad)).response?.status?.message).to.equal(
      'AnalysisTemplate.pacer.dev "success-rate" is invalid: spec.metrics[0].failureLimit: Invalid value: -1: must be greater than or equal to 0',
    );
  });

  const allowed: Array<[string, ReturnType<typeof analysisReview>]> = [
    ['a valid template', analysisReview('CREATE', good, null)],
    ['a delete', analysisReview('DELETE', null, bad)],
    ['a status update', analysisReview('UPDATE', bad, bad, 'AnalysisRun', 'status')],
    ['another kind', analysisReview('CREATE', bad, null, 'Plan')],
  ];
  for (const [row, body] of allowed) {
    it(`${row}: allowed`, () => expect(reviewAnalysis(body).response).to.deep.equal({ uid: 'u-2', allowed: true }));
  }

  it('the lock path lets analysis resources pass; the analysis path answers over HTTP', async () => {
    expect(review(analysisReview('CREATE', bad, null), { deployments: () => [] }).response?.allowed).to.equal(true);
    const server = http.createServer(webhookHandler({ deployments: () => [] }));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const r = await fetch(`${base}${ANALYSIS_WEBHOOK_PATH}`, {
        method: 'POST',
        body: JSON.stringify(analysisReview('CREATE', bad, null)),
      });
      expect(r.status).to.equal(200);
      const answer = (await r.json()) as AdmissionReview;
      expect([answer.response?.uid, answer.response?.allowed, answer.response?.status?.code]).to.deep.equal([
        'u-2',
        false,
        422,
      ]);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe('server/webhook: the webhook configuration', () => {
  type Hook = {
    name: string;
    clientConfig: { url?: string; service?: { path: string } };
    rules: unknown[];
    failurePolicy: string;
    sideEffects: string;
    admissionReviewVersions: string[];
    timeoutSeconds: number;
  };
  const ours = webhookConfiguration('http://127.0.0.1:9443');
  const hooks = ours.webhooks as Hook[];

  it('sends Deployment updates to the lock and analysis creates and updates to their validation', () => {
    expect(hooks.map((h) => [h.name, h.clientConfig.url])).to.deep.equal([
      [WEBHOOK_NAME, `http://127.0.0.1:9443${WEBHOOK_PATH}`],
      [ANALYSIS_WEBHOOK_NAME, `http://127.0.0.1:9443${ANALYSIS_WEBHOOK_PATH}`],
    ]);
    expect(hooks[1].rules).to.deep.equal([
      {
        operations: ['CREATE', 'UPDATE'],
        apiGroups: ['pacer.dev'],
        apiVersions: ['v1alpha1'],
        resources: ['analysistemplates', 'clusteranalysistemplates', 'analysisruns'],
        scope: '*',
      },
    ]);
  });

  it('manifests/webhook/ registers the same webhooks with the same rules, through the Service', () => {
    const manifest = parseYaml(
      readFileSync(new URL('../../../manifests/webhook/validatingwebhookconfiguration.yaml', import.meta.url), 'utf8'),
    ) as { metadata: { name: string }; webhooks: Hook[] };
    expect(manifest.metadata.name).to.equal(ours.metadata.name);
    const shape = (h: Hook, path: string | undefined) => ({ ...h, clientConfig: { path } });
    expect(manifest.webhooks.map((h) => shape(h, h.clientConfig.service?.path))).to.deep.equal(
      hooks.map((h) => shape(h, new URL(h.clientConfig.url!).pathname)),
    );
  });
});
