// KubeClient keeps its connections: against an HTTPS API server with a CA of its own (as every real
// cluster has), many requests share their TLS connections instead of a handshake each.

import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient } from '../../../src/kube/client.ts';
import { loadKubeConfig } from '../../../src/kube/clientnode.ts';
import { opensslSelfSigned } from '../../fixtures/openssl.ts';
import { requireTool } from '../../fixtures/tools.ts';

describe('kube/client: connections are kept', () => {
  it('ten requests to an HTTPS server with a private CA do not open ten TLS connections', async function () {
    requireTool(this, 'openssl', "Debian's openssl; make test installs it when run as root");
    const dir = mkdtempSync(join(tmpdir(), 'pacer-tls-'));
    try {
      opensslSelfSigned(dir, 'tls', '127.0.0.1', { ip: '127.0.0.1' });
      let handshakes = 0;
      const server = createServer(
        { key: readFileSync(join(dir, 'tls.key')), cert: readFileSync(join(dir, 'tls.crt')) },
        (_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"gitVersion":"v1.36.4"}'),
      );
      server.on('secureConnection', () => handshakes++);
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      try {
        const ca = readFileSync(join(dir, 'tls.crt')).toString('base64');
        const kubeconfig = `apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters: [{name: s, cluster: {server: "https://127.0.0.1:${(server.address() as AddressInfo).port}", certificate-authority-data: ${ca}}}]\ncontexts: [{name: c, context: {cluster: s, user: u}}]\nusers: [{name: u, user: {token: t}}]\n`;
        const client = new KubeClient(loadKubeConfig({ kubeconfigText: kubeconfig }));
        for (let i = 0; i < 10; i++) expect((await client.version()).gitVersion).to.equal('v1.36.4');
        // undici itself opens a second connection once, on the second request; from then on it reuses them.
        expect(handshakes).to.be.at.most(2);
      } finally {
        server.closeAllConnections();
        server.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
