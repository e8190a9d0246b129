// /metrics served securely (--metrics-secure, the CLI's default), on the simulated cluster, whose API
// server answers TokenReviews and judges SubjectAccessReviews by the RBAC objects it stores: HTTPS
// only; no token or an unknown one 401; a caller RBAC does not let GET /metrics 403, in
// controller-runtime's words; Prometheus' ServiceAccount, bound to the shipped metrics-reader
// ClusterRole, gets the metrics.

import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { request as plainRequest } from 'node:http';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REF } from '../../src/sim/resources.ts';
import type { KubeObject } from '../../src/sim/types.ts';
import { ROOT } from '../e2e/fixtures.ts';
import { startCluster } from './fixtures/cluster.ts';
import type { Cluster } from './fixtures/cluster.ts';

/** GET over HTTPS without verifying the server (its certificate is self-signed, as a scraper with insecureSkipVerify). */
function get(port: number, path: string, token?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        rejectUnauthorized: false,
        headers: token ? { Authorization: `Bearer ${token}` } : {},
      },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => {
          body += c.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('secure metrics: HTTPS, authenticated by TokenReview, authorised by SubjectAccessReview (simulated cluster)', function () {
  this.timeout(60_000);
  let c: Cluster;
  before(async () => {
    c = await startCluster({}, { metricsBindAddress: '127.0.0.1:0', metricsSecure: true });
    // The shipped reader role, bound to Prometheus' ServiceAccount as an installation binds it.
    const role = parse(
      readFileSync(join(ROOT, 'manifests', 'monitoring', 'metrics-reader.yaml'), 'utf8'),
    ) as KubeObject;
    c.sim.store.create(REF.clusterroles, undefined, role);
    c.sim.store.create(REF.clusterrolebindings, undefined, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'prometheus-reads-pacer' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.metadata.name },
      subjects: [{ kind: 'ServiceAccount', name: 'prometheus', namespace: 'monitoring' }],
    } as KubeObject);
  });
  after(() => c?.stop());

  it('serves HTTPS only', async () => {
    expect(c.ctl.metricsSecure).to.equal(true);
    const plain = await new Promise<string>((resolve) => {
      const req = plainRequest({ host: '127.0.0.1', port: c.ctl.metricsPort, path: '/metrics' }, (res) =>
        resolve(`HTTP ${res.statusCode}`),
      );
      req.on('error', (e) => resolve(`error ${(e as NodeJS.ErrnoException).code ?? e.message}`));
      req.end();
    });
    expect(plain, 'a plain HTTP request gets no metrics').to.not.match(/^HTTP 200/);
  });

  it('no token, or one the API server does not accept: 401 Unauthorized', async () => {
    expect(await get(c.ctl.metricsPort!, '/metrics')).to.deep.equal({ status: 401, body: 'Unauthorized\n' });
    expect(await get(c.ctl.metricsPort!, '/metrics', '')).to.deep.equal({ status: 401, body: 'Unauthorized\n' });
  });

  it('a caller RBAC does not let GET /metrics: 403, nothing served', async () => {
    expect(await get(c.ctl.metricsPort!, '/metrics', 'system:serviceaccount:default:nosy')).to.deep.equal({
      status: 403,
      body: 'Authorization denied for user system:serviceaccount:default:nosy\n',
    });
  });

  it("Prometheus' ServiceAccount, bound to the metrics-reader ClusterRole, gets the metrics", async () => {
    const r = await get(c.ctl.metricsPort!, '/metrics', 'system:serviceaccount:monitoring:prometheus');
    expect(r.status).to.equal(200);
    expect(r.body).to.contain('# TYPE controller_runtime_reconcile_total counter');
    // Only the path the role names.
    expect((await get(c.ctl.metricsPort!, '/debug', 'system:serviceaccount:monitoring:prometheus')).status).to.equal(
      403,
    );
  });
});
