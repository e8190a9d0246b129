// The controller's connection (kube/connect.ts): the kubeconfig found in client-node's order and
// carried over Node's http/https, or through client-node where it must be; and in a pod, client-go's
// in-cluster configuration: KUBERNETES_SERVICE_HOST/PORT, the service account's CA and its token
// file, read again once a minute, since the kubelet rotates it.

import { expect } from 'chai';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient } from '../../../src/kube/client.ts';
import { connector, resolveKubeconfig } from '../../../src/kube/connect.ts';
import { KubeError } from '../../../src/kube/errors.ts';
import { HttpConnection, TOKEN_FILE_TTL_MS } from '../../../src/kube/httpconnection.ts';
import { opensslSelfSigned } from '../../fixtures/openssl.ts';
import { requireTool } from '../../fixtures/tools.ts';

const kubeconfigText = (server: string, user: string) =>
  [
    'apiVersion: v1',
    'kind: Config',
    `clusters: [{name: c, cluster: {server: "${server}"}}]`,
    `users: [{name: u, user: ${user}}]`,
    'contexts: [{name: x, context: {cluster: c, user: u}}]',
    'current-context: x',
  ].join('\n');

describe('kube/connect: the controller connection', () => {
  it('resolves in the order client-node did: the text, --kubeconfig, KUBECONFIG, in a pod', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pacer-connect-'));
    try {
      const file = join(dir, 'config');
      writeFileSync(file, kubeconfigText('https://from-file:6443', '{token: t}'));
      const inPod = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' };
      const server = (r: ReturnType<typeof resolveKubeconfig>) => r.selected.cluster.server;
      const rows: Array<[string, Parameters<typeof resolveKubeconfig>[0], NodeJS.ProcessEnv, string]> = [
        ['the text first', { kubeconfigText: kubeconfigText('http://t', '{}'), kubeconfig: file }, inPod, 'http://t'],
        ['--kubeconfig before a pod', { kubeconfig: file }, inPod, 'https://from-file:6443'],
        ['KUBECONFIG before a pod', {}, { ...inPod, KUBECONFIG: file }, 'https://from-file:6443'],
        ['in a pod', {}, inPod, 'https://10.96.0.1:443'],
        [
          'in a pod, IPv6',
          {},
          { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '6443' },
          'https://[fd00::1]:6443',
        ],
      ];
      for (const [name, src, env, want] of rows) {
        expect(server(resolveKubeconfig(src, { env, serviceAccountDir: dir })), name).to.equal(want);
      }
      // The messages client-node's loadKubeConfig gave.
      expect(() => resolveKubeconfig({ kubeconfig: join(dir, 'nope') }, { env: {} })).to.throw(
        `--kubeconfig ${join(dir, 'nope')}: no such file`,
      );
      expect(() => resolveKubeconfig({}, { env: { KUBECONFIG: join(dir, 'nope') } })).to.throw(
        `KUBECONFIG ${join(dir, 'nope')}: no such file`,
      );
      expect(() => resolveKubeconfig({ kubeconfigText: 'clusters: []' })).to.throw(
        'the kubeconfig has no current cluster',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('over Node http/https unless the kubeconfig needs client-node: an exec plugin, an auth provider, a proxy-url', async () => {
    const rows: Array<[string, string, string, string | undefined]> = [
      ['a token', 'https://h', '{token: t}', undefined],
      ['a client certificate', 'https://h', '{client-certificate-data: Y2VydA==, client-key-data: a2V5}', undefined],
      [
        'an exec plugin',
        'https://h',
        '{exec: {apiVersion: client.authentication.k8s.io/v1, command: x}}',
        'an exec credential plugin',
      ],
      ['an auth provider', 'https://h', '{auth-provider: {name: oidc}}', 'an auth provider'],
    ];
    for (const [name, server, user, why] of rows) {
      const r = resolveKubeconfig({ kubeconfigText: kubeconfigText(server, user) });
      expect(r.clientNode, name).to.equal(why);
      // (That the others do go through client-node, a process of its own shows: controller-cli.test.ts.)
      if (why === undefined) expect((await connector(r))(), name).to.be.instanceOf(HttpConnection);
    }
    const proxied = resolveKubeconfig({
      kubeconfigText: kubeconfigText('https://h', '{token: t}').replace(
        'server: "https://h"',
        'server: "https://h", proxy-url: "http://proxy:3128"',
      ),
    });
    expect(proxied.clientNode).to.equal('a proxy-url');
  });

  it("in a pod: the service account's token and CA reach the server, and a rotated token is read again", async function () {
    requireTool(this, 'openssl', "Debian's openssl; make test installs it when run as root");
    const dir = mkdtempSync(join(tmpdir(), 'pacer-incluster-'));
    const seen: Array<string | undefined> = [];
    opensslSelfSigned(dir, 'server', '127.0.0.1', { ip: '127.0.0.1' });
    opensslSelfSigned(dir, 'other', '127.0.0.1', { ip: '127.0.0.1' });
    const server = createServer(
      { key: readFileSync(join(dir, 'server.key')), cert: readFileSync(join(dir, 'server.crt')) },
      (req, res) => {
        seen.push(req.headers.authorization);
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"gitVersion":"v1.36.4"}');
      },
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const sa = join(dir, 'serviceaccount');
      mkdirSync(sa);
      copyFileSync(join(dir, 'server.crt'), join(sa, 'ca.crt'));
      writeFileSync(join(sa, 'token'), 'first-token\n');
      let now = 1_000_000;
      const internals = {
        env: {
          KUBERNETES_SERVICE_HOST: '127.0.0.1',
          KUBERNETES_SERVICE_PORT: String((server.address() as AddressInfo).port),
        },
        serviceAccountDir: sa,
        connection: { now: () => now },
      };
      const r = resolveKubeconfig({}, internals);
      expect(r.clientNode).to.equal(undefined);
      const client = new KubeClient((await connector(r, internals))());
      expect((await client.version()).gitVersion).to.equal('v1.36.4');
      // The kubelet writes a new token; it is used once the minute is up, not before.
      writeFileSync(join(sa, 'token'), 'second-token\n');
      now += TOKEN_FILE_TTL_MS - 1;
      await client.version();
      now += 2;
      await client.version();
      expect(seen).to.deep.equal(['Bearer first-token', 'Bearer first-token', 'Bearer second-token']);
      // Another CA than the server's: refused, so the CA is what checked the server.
      copyFileSync(join(dir, 'other.crt'), join(sa, 'ca.crt'));
      const wrongCa = new KubeClient((await connector(resolveKubeconfig({}, internals), internals))());
      const err = await wrongCa.version().catch((e: unknown) => e);
      expect(err).to.be.instanceOf(KubeError).and.to.include({ kind: 'Unreachable' });
      expect(seen).to.have.length(3);
    } finally {
      server.closeAllConnections();
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
