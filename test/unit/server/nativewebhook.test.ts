// The native admission webhook (src/server/webhook.ts, reviewNative): apps/v1 Deployments' pacer.dev
// annotations checked at apply time, with the errors their InvalidSpec condition would carry, and
// nothing else of them; the configuration that sends only annotated Deployments, here and in
// manifests/native/webhook/.

import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse as parseYaml } from 'yaml';
import type { Deployment } from '../../../src/api/types.ts';
import { decide } from '../../../src/engine/decide.ts';
import {
  NATIVE_MATCH_CONDITION,
  NATIVE_WEBHOOK_NAME,
  NATIVE_WEBHOOK_PATH,
  nativeWebhookConfiguration,
  reviewNative,
  webhookHandler,
} from '../../../src/server/webhook.ts';
import type { AdmissionReview } from '../../../src/server/webhook.ts';
import { NOW, deployment } from '../engine/fixtures.ts';

/** web as the API server sends it: apps/v1, defaulted, with `annotations`. */
function web(annotations?: Record<string, string>): Deployment {
  return { ...deployment({ replicas: 4, ...(annotations ? { annotations } : {}) }), apiVersion: 'apps/v1' };
}

function reviewOf(
  operation: 'CREATE' | 'UPDATE' | 'DELETE',
  object: Deployment | null,
  oldObject: Deployment | null = null,
  o: { group?: string; version?: string; subResource?: string } = {},
): AdmissionReview {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'u-3',
      kind: { group: o.group ?? 'apps', version: o.version ?? 'v1', kind: 'Deployment' },
      resource: { group: o.group ?? 'apps', version: o.version ?? 'v1', resource: 'deployments' },
      ...(o.subResource ? { subResource: o.subResource } : {}),
      name: 'web',
      namespace: 'default',
      operation,
      object,
      oldObject,
    },
  };
}

/** The InvalidSpec condition's message the controller would write for `d`. */
const condition = (d: Deployment) =>
  decide({ deployment: d, replicaSets: [], pods: [], now: NOW }).status.conditions?.find(
    (c) => c.type === 'InvalidSpec' && c.status === 'True',
  )?.message;

describe('server/webhook: apps/v1 Deployments, their pacer.dev annotations at apply time', () => {
  const refused: Array<[Record<string, string>, string]> = [
    [
      { 'pacer.dev/minimum-health-capacity': 'half' },
      'metadata.annotations[pacer.dev/minimum-health-capacity]: Invalid value: "half": must be a number between 0.0 and 1.0',
    ],
    [
      { 'pacer.dev/minimum-health-capacity': '1.5' },
      'metadata.annotations[pacer.dev/minimum-health-capacity]: Invalid value: 1.5: got 1.5, expected between 0.0 and 1.0',
    ],
    [
      { 'pacer.dev/maximum-over-capacity': '-0.1' },
      'metadata.annotations[pacer.dev/maximum-over-capacity]: Invalid value: "-0.1": must be a number between 0.0 and 1.0',
    ],
    [
      { 'pacer.dev/plan-strategy': 'zigzag' },
      'metadata.annotations[pacer.dev/plan-strategy]: Unsupported value: "zigzag": supported values: "serial", "parallel", "serial-canary", "parallel-canary"',
    ],
    [
      { 'pacer.dev/plan-strategy': 'serial-canary', 'pacer.dev/plan-required-proceeds': 'two' },
      'metadata.annotations[pacer.dev/plan-required-proceeds]: Invalid value: "two": must be a whole number of at least 1',
    ],
    [
      { 'pacer.dev/dependencies': 'db, Not_A_Name' },
      'metadata.annotations[pacer.dev/dependencies]: Invalid value: "Not_A_Name"',
    ],
    [
      { 'pacer.dev/analysis': 'templates: [{templateName: a}]\nonFailure: Retry' },
      'metadata.annotations[pacer.dev/analysis].onFailure: Unsupported value: "Retry"',
    ],
    [
      { 'pacer.dev/analysis': '- templateName: a' },
      'metadata.annotations[pacer.dev/analysis]: Invalid value: "- templateName: a": must be a mapping of',
    ],
    [
      { 'pacer.dev/windows': '[{start: "25:00", duration: 1h}]' },
      'metadata.annotations[pacer.dev/windows][0].start: Invalid value: "25:00"',
    ],
  ];
  for (const [annotations, error] of refused)
    it(`${JSON.stringify(annotations)}: 422 Invalid on the annotation, the value given, as the InvalidSpec condition says`, () => {
      const d = web(annotations);
      const response = reviewNative(reviewOf('CREATE', d)).response;
      expect([response?.uid, response?.allowed, response?.status?.code, response?.status?.reason]).to.deep.equal([
        'u-3',
        false,
        422,
        'Invalid',
      ]);
      const message = response?.status?.message ?? '';
      expect(message.startsWith(`Deployment.apps "web" is invalid: ${error}`), message).to.equal(true);
      // The same words the controller would report afterwards without the webhook.
      const said = message.slice('Deployment.apps "web" is invalid: '.length);
      expect(condition(d)).to.include(said);
      expect(response?.status?.details?.causes?.[0]?.field).to.match(/^metadata\.annotations\[pacer\.dev\//);
    });

  it('two bad annotations: both, in brackets', () => {
    const message = reviewNative(
      reviewOf('CREATE', web({ 'pacer.dev/minimum-health-capacity': 'half', 'pacer.dev/plan-required-proceeds': '0' })),
    ).response?.status?.message;
    expect(message).to.match(
      /^Deployment\.apps "web" is invalid: \[metadata\.annotations\[pacer\.dev\/minimum-health-capacity\]: Invalid value: "half": .*, metadata\.annotations\[pacer\.dev\/plan-required-proceeds\]: Invalid value: 0/,
    );
  });

  const stored = web({ 'pacer.dev/minimum-health-capacity': 'half' });
  const allowed: Array<[string, AdmissionReview]> = [
    ['a plain Deployment', reviewOf('CREATE', web())],
    ['other annotations only (pacer.dev/ or not)', reviewOf('CREATE', web({ 'pacer.dev/other': 'x', team: 'y' }))],
    [
      'valid annotations',
      reviewOf(
        'CREATE',
        web({
          'pacer.dev/minimum-health-capacity': '0.5',
          'pacer.dev/maximum-over-capacity': '0.25',
          'pacer.dev/dependencies': 'db, other/cache',
          'pacer.dev/plan-strategy': 'serial-canary',
          'pacer.dev/plan-required-proceeds': '2',
        }),
      ),
    ],
    // apps/v1's own rules are the API server's: a bad replica count is not this webhook's.
    [
      'a bad apps/v1 field beside a valid annotation',
      reviewOf('CREATE', { ...web({ 'pacer.dev/plan-strategy': 'serial' }), spec: { ...web().spec, replicas: -1 } }),
    ],
    ['a delete', reviewOf('DELETE', null, stored)],
    ['the status subresource', reviewOf('UPDATE', stored, stored, { subResource: 'status' })],
    ["Pacer's own kind", reviewOf('CREATE', stored, null, { group: 'pacer.dev', version: 'v1alpha1' })],
    [
      'an update of one stored with the bad value (before the webhook): the same error is not new',
      reviewOf('UPDATE', { ...stored, spec: { ...stored.spec, replicas: 5 } }, stored),
    ],
    ['an update that removes the bad value', reviewOf('UPDATE', web(), stored)],
  ];
  for (const [row, body] of allowed)
    it(`${row}: allowed`, () => expect(reviewNative(body).response).to.deep.equal({ uid: 'u-3', allowed: true }));

  it('an update that makes a valid value bad is refused', () => {
    const good = web({ 'pacer.dev/minimum-health-capacity': '0.5' });
    expect(reviewNative(reviewOf('UPDATE', stored, good)).response?.status?.message).to.equal(
      'Deployment.apps "web" is invalid: metadata.annotations[pacer.dev/minimum-health-capacity]: Invalid value: "half": must be a number between 0.0 and 1.0',
    );
  });

  it('over HTTP at its path; the lock path lets apps/v1 Deployments pass', async () => {
    const server = http.createServer(webhookHandler({ deployments: () => [] }));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const post = async (path: string) =>
        (await (
          await fetch(`${base}${path}`, { method: 'POST', body: JSON.stringify(reviewOf('CREATE', stored)) })
        ).json()) as AdmissionReview;
      expect((await post(NATIVE_WEBHOOK_PATH)).response?.allowed).to.equal(false);
      expect((await post('/validate-pacer-dev-v1alpha1-deployment')).response?.allowed).to.equal(true);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe('server/webhook: the native webhook configuration', () => {
  type Hook = {
    name: string;
    clientConfig: { url?: string; service?: { path: string } };
    rules: unknown[];
    matchConditions: Array<{ name: string; expression: string }>;
    failurePolicy: string;
  };
  const ours = nativeWebhookConfiguration('http://127.0.0.1:9443');
  const hooks = ours.webhooks as Hook[];

  it('creates and updates of apps/v1 Deployments with one of the five annotations, failurePolicy Ignore', () => {
    expect(hooks.map((h) => [h.name, h.clientConfig.url, h.failurePolicy])).to.deep.equal([
      [NATIVE_WEBHOOK_NAME, `http://127.0.0.1:9443${NATIVE_WEBHOOK_PATH}`, 'Ignore'],
    ]);
    expect(hooks[0].rules).to.deep.equal([
      {
        operations: ['CREATE', 'UPDATE'],
        apiGroups: ['apps'],
        apiVersions: ['v1'],
        resources: ['deployments'],
        scope: 'Namespaced',
      },
    ]);
    expect(NATIVE_MATCH_CONDITION.expression).to.equal(
      "has(object.metadata.annotations) && ['pacer.dev/minimum-health-capacity', 'pacer.dev/maximum-over-capacity', 'pacer.dev/dependencies', 'pacer.dev/plan-strategy', 'pacer.dev/plan-required-proceeds', 'pacer.dev/analysis', 'pacer.dev/windows', 'pacer.dev/blackouts'].exists(k, k in object.metadata.annotations)",
    );
  });

  it('manifests/native/webhook/ registers the same webhook with the same rules and condition, through the Service', () => {
    const manifest = parseYaml(
      readFileSync(
        new URL('../../../manifests/native/webhook/validatingwebhookconfiguration.yaml', import.meta.url),
        'utf8',
      ),
    ) as { metadata: { name: string }; webhooks: Hook[] };
    expect(manifest.metadata.name).to.equal(ours.metadata.name);
    // The manifest folds the expression over lines: the same CEL up to whitespace.
    const shape = (h: Hook, path: string | undefined) => ({
      ...h,
      clientConfig: { path },
      matchConditions: h.matchConditions.map((c) => ({ ...c, expression: c.expression.replace(/\s+/g, ' ') })),
    });
    expect(manifest.webhooks.map((h) => shape(h, h.clientConfig.service?.path))).to.deep.equal(
      hooks.map((h) => shape(h, new URL(h.clientConfig.url!).pathname)),
    );
  });
});
