// Validating admission webhooks in the simulated API server (src/sim/admission.ts): rule matching,
// the AdmissionReview sent, a denial as the Status kubectl prints, failurePolicy and timeoutSeconds.

import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { resourceMatches } from '../../../src/sim/admission.ts';
import { startSim } from '../../../src/sim/index.ts';
import type { SimCluster } from '../../../src/sim/index.ts';
import { REF } from '../../../src/sim/resources.ts';

describe('sim/admission: which resources a rule names', () => {
  const rows: Array<[string[], string, string | undefined, boolean]> = [
    [['deployments'], 'deployments', undefined, true],
    [['deployments'], 'deployments', 'status', false],
    [['*'], 'deployments', undefined, true],
    [['*'], 'deployments', 'status', false],
    [['*/*'], 'deployments', 'status', true],
    [['deployments/*'], 'deployments', 'scale', true],
    [['deployments/status'], 'deployments', 'status', true],
    [['*/status'], 'pods', 'status', true],
    [['pods'], 'deployments', undefined, false],
  ];
  for (const [patterns, resource, sub, want] of rows) {
    it(`${JSON.stringify(patterns)} ${want ? 'matches' : 'does not match'} ${resource}${sub ? `/${sub}` : ''}`, () => {
      expect(resourceMatches(patterns, resource, sub)).to.equal(want);
    });
  }
});

describe('sim/admission: the server calls validating webhooks', function () {
  this.timeout(20_000);
  let sim: SimCluster;
  let hook: http.Server;
  let hookUrl = '';
  const reviews: Array<Record<string, any>> = [];
  /** What the webhook answers for the next requests. */
  let answer: (req: Record<string, any>) => Record<string, unknown> = (r) => ({ uid: r.uid, allowed: true });
  let stall = false;

  const lease = (name: string, holder: string) => ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name, namespace: 'default' },
    spec: { holderIdentity: holder },
  });
  const leaseUrl = (name = '') =>
    `${sim.url}/apis/coordination.k8s.io/v1/namespaces/default/leases${name ? `/${name}` : ''}`;
  const send = async (method: string, url: string, body?: unknown, contentType = 'application/json') => {
    const r = await fetch(url, {
      method,
      headers: { 'content-type': contentType },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: r.status, body: (await r.json()) as Record<string, any> };
  };
  const configure = (webhooks: object[]) => {
    const name = 'test-hooks';
    if (sim.store.get(REF.validatingwebhookconfigurations, undefined, name))
      sim.store.delete(REF.validatingwebhookconfigurations, undefined, name);
    sim.store.create(REF.validatingwebhookconfigurations, undefined, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name },
      webhooks,
    });
  };
  const rule = {
    operations: ['UPDATE', 'DELETE'],
    apiGroups: ['coordination.k8s.io'],
    apiVersions: ['v1'],
    resources: ['leases'],
  };

  before(async () => {
    sim = await startSim({ port: 0, controlPlane: false });
    hook = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        reviews.push(review);
        if (stall) return; // never answers: the caller's timeout decides
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(
          JSON.stringify({
            apiVersion: 'admission.k8s.io/v1',
            kind: 'AdmissionReview',
            response: answer(review.request),
          }),
        );
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/validate`;
  });
  after(async () => {
    hook?.closeAllConnections();
    await new Promise<void>((r) => (hook ? hook.close(() => r()) : r()));
    await sim?.stop();
  });
  beforeEach(() => {
    reviews.length = 0;
    stall = false;
    answer = (r) => ({ uid: r.uid, allowed: true });
  });

  it('serves validatingwebhookconfigurations in discovery', async () => {
    const r = await send('GET', `${sim.url}/apis/admissionregistration.k8s.io/v1`);
    expect(r.body.resources.map((x: { name: string }) => x.name)).to.include('validatingwebhookconfigurations');
  });

  it("a denied update is refused with the webhook's code and kubectl's message, and nothing is stored", async () => {
    configure([
      {
        name: 'locks.pacer.dev',
        clientConfig: { url: hookUrl },
        rules: [rule],
        failurePolicy: 'Fail',
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
      },
    ]);
    expect((await send('POST', leaseUrl(), lease('a', 'one'))).status).to.equal(201);
    expect(reviews).to.have.length(0); // CREATE is not in the rule
    answer = (r) => ({
      uid: r.uid,
      allowed: false,
      status: { code: 409, reason: 'Conflict', message: 'App is locked' },
    });
    const r = await send('PATCH', leaseUrl('a'), { spec: { holderIdentity: 'two' } }, 'application/merge-patch+json');
    expect(r.status).to.equal(409);
    expect(r.body).to.deep.include({
      kind: 'Status',
      status: 'Failure',
      reason: 'Conflict',
      code: 409,
      message: 'admission webhook "locks.pacer.dev" denied the request: App is locked',
    });
    expect((sim.store.get(REF.leases, 'default', 'a')!.spec as { holderIdentity: string }).holderIdentity).to.equal(
      'one',
    );
    const req = reviews[0];
    expect([reviews[0].apiVersion, reviews[0].kind]).to.deep.equal(['admission.k8s.io/v1', 'AdmissionReview']);
    expect(req.request).to.deep.include({ name: 'a', namespace: 'default', operation: 'UPDATE', dryRun: false });
    expect(req.request.kind).to.deep.equal({ group: 'coordination.k8s.io', version: 'v1', kind: 'Lease' });
    expect(req.request.resource).to.deep.equal({ group: 'coordination.k8s.io', version: 'v1', resource: 'leases' });
    expect(req.request.object.spec.holderIdentity).to.equal('two');
    expect(req.request.oldObject.spec.holderIdentity).to.equal('one');
    expect(req.request.uid).to.match(/^[0-9a-f-]{36}$/);
  });

  it('an allowed update is stored; dryRun is passed and stores nothing', async () => {
    configure([{ name: 'locks.pacer.dev', clientConfig: { url: hookUrl }, rules: [rule] }]);
    await send('POST', leaseUrl(), lease('b', 'one'));
    const dry = await send(
      'PATCH',
      `${leaseUrl('b')}?dryRun=All`,
      { spec: { holderIdentity: 'dry' } },
      'application/merge-patch+json',
    );
    expect(dry.status).to.equal(200);
    expect(reviews[0].request.dryRun).to.equal(true);
    expect((sim.store.get(REF.leases, 'default', 'b')!.spec as { holderIdentity: string }).holderIdentity).to.equal(
      'one',
    );
    const r = await send('PATCH', leaseUrl('b'), { spec: { holderIdentity: 'two' } }, 'application/merge-patch+json');
    expect(r.status).to.equal(200);
    expect((sim.store.get(REF.leases, 'default', 'b')!.spec as { holderIdentity: string }).holderIdentity).to.equal(
      'two',
    );
  });

  it("a denial's details go along, as kube-apiserver keeps them (kubectl prints an Invalid one from its causes)", async () => {
    configure([{ name: 'native.pacer.dev', clientConfig: { url: hookUrl }, rules: [rule] }]);
    await send('POST', leaseUrl(), lease('e', 'one'));
    const details = {
      name: 'e',
      group: 'coordination.k8s.io',
      kind: 'Lease',
      causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "x": no', field: 'spec.holderIdentity' }],
    };
    answer = (r) => ({
      uid: r.uid,
      allowed: false,
      status: { code: 422, reason: 'Invalid', message: 'Lease.coordination.k8s.io "e" is invalid: ...', details },
    });
    const r = await send('PATCH', leaseUrl('e'), { spec: { holderIdentity: 'x' } }, 'application/merge-patch+json');
    expect([r.status, r.body.reason, r.body.details]).to.deep.equal([422, 'Invalid', details]);
  });

  it('a denial without a code is 403; a delete is reviewed with oldObject only', async () => {
    configure([{ name: 'no.example.com', clientConfig: { url: hookUrl }, rules: [rule] }]);
    await send('POST', leaseUrl(), lease('c', 'one'));
    answer = (r) => ({ uid: r.uid, allowed: false });
    const r = await send('DELETE', leaseUrl('c'));
    expect([r.status, r.body.message]).to.deep.equal([
      403,
      'admission webhook "no.example.com" denied the request without explanation',
    ]);
    expect(reviews[0].request.operation).to.equal('DELETE');
    expect(reviews[0].request.object).to.equal(null);
    expect(reviews[0].request.oldObject.metadata.name).to.equal('c');
    expect(sim.store.get(REF.leases, 'default', 'c')).to.not.equal(undefined);
  });

  it('an unreachable webhook refuses the write under Fail (500) and is skipped under Ignore', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const dead = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/validate`;
    await new Promise<void>((r) => closed.close(() => r()));
    await send('POST', leaseUrl(), lease('d', 'one'));
    configure([{ name: 'down.example.com', clientConfig: { url: dead }, rules: [rule], failurePolicy: 'Fail' }]);
    const fail = await send(
      'PATCH',
      leaseUrl('d'),
      { spec: { holderIdentity: 'two' } },
      'application/merge-patch+json',
    );
    expect(fail.status).to.equal(500);
    expect(fail.body.message).to.match(/^Internal error occurred: failed calling webhook "down.example.com": /);
    configure([{ name: 'down.example.com', clientConfig: { url: dead }, rules: [rule], failurePolicy: 'Ignore' }]);
    const ignore = await send(
      'PATCH',
      leaseUrl('d'),
      { spec: { holderIdentity: 'two' } },
      'application/merge-patch+json',
    );
    expect(ignore.status).to.equal(200);
  });

  it('timeoutSeconds bounds the call; a service reference is a failed call', async () => {
    await send('POST', leaseUrl(), lease('e', 'one'));
    stall = true;
    configure([
      {
        name: 'slow.example.com',
        clientConfig: { url: hookUrl },
        rules: [rule],
        failurePolicy: 'Fail',
        timeoutSeconds: 1,
      },
    ]);
    const slow = await send(
      'PATCH',
      leaseUrl('e'),
      { spec: { holderIdentity: 'two' } },
      'application/merge-patch+json',
    );
    expect(slow.status).to.equal(500);
    expect(slow.body.message).to.contain('failed calling webhook "slow.example.com"');
    configure([
      {
        name: 'svc.example.com',
        clientConfig: { service: { namespace: 'x', name: 'y' } },
        rules: [rule],
        failurePolicy: 'Fail',
      },
    ]);
    const svc = await send('PATCH', leaseUrl('e'), { spec: { holderIdentity: 'two' } }, 'application/merge-patch+json');
    expect([svc.status, svc.body.message]).to.deep.equal([
      500,
      'Internal error occurred: failed calling webhook "svc.example.com": failed to call webhook: clientConfig.service is not resolved by the simulated cluster (use clientConfig.url)',
    ]);
    sim.store.delete(REF.validatingwebhookconfigurations, undefined, 'test-hooks');
    const none = await send(
      'PATCH',
      leaseUrl('e'),
      { spec: { holderIdentity: 'three' } },
      'application/merge-patch+json',
    );
    expect(none.status).to.equal(200);
  });
});
