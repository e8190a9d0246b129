// The plugin's kubeconfig reader: kubectl's files and merge, the context's cluster and user, and
// which credentials send the plugin through client-node.

import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  inClusterKubeconfig,
  mergeKubeconfigs,
  needsClientNode,
  parseKubeconfig,
  readKubeconfig,
  selectContext,
} from '../../../src/kube/kubeconfig.ts';
import type { Kubeconfig } from '../../../src/kube/kubeconfig.ts';

function config(current: string | undefined, cluster: string, server: string): Kubeconfig {
  return {
    clusters: [{ name: cluster, server, skipTLSVerify: false }],
    users: [{ name: 'u', token: server }],
    contexts: [{ name: cluster, cluster, user: 'u' }],
    currentContext: current,
  };
}

describe('kube/kubeconfig: read as kubectl reads it', () => {
  it('reads every field the plugin uses, relative files against the kubeconfig folder', () => {
    const kc = parseKubeconfig(
      `apiVersion: v1
clusters:
- name: c
  cluster:
    server: https://h:6443/
    certificate-authority: ca.crt
    insecure-skip-tls-verify: true
    tls-server-name: api.internal
users:
- name: u
  user:
    tokenFile: token
    client-certificate: /abs/tls.crt
    client-key-data: a2V5
    username: bob
    password: secret
    as: alice
contexts:
- name: x
  context: {cluster: c, user: u, namespace: prod}
current-context: x
`,
      '/home/me/.kube/config',
      '/home/me/.kube',
    );
    expect(kc.currentContext).to.equal('x');
    expect(kc.clusters).to.deep.equal([
      {
        name: 'c',
        server: 'https://h:6443',
        caFile: '/home/me/.kube/ca.crt',
        caData: undefined,
        skipTLSVerify: true,
        tlsServerName: 'api.internal',
        proxyUrl: undefined,
      },
    ]);
    expect(kc.users[0]).to.include({
      tokenFile: '/home/me/.kube/token',
      certFile: '/abs/tls.crt',
      keyData: 'a2V5',
      username: 'bob',
      password: 'secret',
      impersonateUser: 'alice',
    });
    expect(kc.contexts).to.deep.equal([{ name: 'x', cluster: 'c', user: 'u', namespace: 'prod' }]);
  });

  const bad: Array<[string, string, string]> = [
    [
      'a cluster without a server',
      'clusters: [{name: c, cluster: {}}]',
      'f: clusters[0].cluster.server is missing (cluster "c")',
    ],
    [
      'an entry without a name',
      'users: [{user: {token: t}}]',
      'f: users[0].name is missing (entry {"user":{"token":"t"}})',
    ],
    [
      'a context without a cluster',
      'contexts: [{name: x, context: {user: u}}]',
      'f: contexts[0].context.cluster is missing (context "x")',
    ],
    ['clusters that are no list', 'clusters: nope', 'f: clusters: not a list: "nope"'],
    ['a list for a document', '- a\n', 'f: not a kubeconfig: a map was expected, not ["a"]'],
    ['no YAML at all', 'a: [b\n', 'f: not a kubeconfig: '],
  ];
  for (const [name, text, message] of bad) {
    it(`names what is wrong: ${name}`, () => {
      expect(() => parseKubeconfig(text, 'f')).to.throw(message);
    });
  }

  it("merges KUBECONFIG's files as kubectl: the first name and the first current-context win", () => {
    const merged = mergeKubeconfigs([
      config(undefined, 'a', 'https://a'),
      config('b', 'b', 'https://b'),
      config('c', 'a', 'https://a-again'),
    ]);
    expect(merged.currentContext).to.equal('b');
    expect(merged.clusters.map((c) => [c.name, c.server])).to.deep.equal([
      ['a', 'https://a'],
      ['b', 'https://b'],
    ]);
    expect(merged.users.map((u) => u.token)).to.deep.equal(['https://a']);
  });

  it('selects a context with its cluster and user; an unknown one selects nothing', () => {
    const kc = config('a', 'a', 'https://a');
    expect(selectContext(kc).cluster?.server).to.equal('https://a');
    expect(selectContext(kc).user?.name).to.equal('u');
    expect(selectContext(kc, 'nope')).to.deep.equal({});
    expect(selectContext({ ...kc, currentContext: undefined })).to.deep.equal({});
  });

  const through: Array<[string, Partial<Kubeconfig['users'][0]>, string | undefined, string | undefined]> = [
    ['a token', { token: 't' }, undefined, undefined],
    ['a client certificate', { certData: 'Yw==', keyData: 'aw==' }, undefined, undefined],
    ['basic auth and impersonation', { username: 'u', password: 'p', impersonateUser: 'i' }, undefined, undefined],
    ['an exec plugin', { exec: { command: 'aws' } }, undefined, 'an exec credential plugin'],
    ['an auth provider', { authProvider: { name: 'oidc' } }, undefined, 'an auth provider'],
    ['a proxy', { token: 't' }, 'http://proxy:3128', 'a proxy-url'],
  ];
  for (const [name, user, proxyUrl, why] of through) {
    it(`${name}: ${why ?? "Node's http/https"}`, () => {
      const s = {
        cluster: { name: 'c', server: 'https://h', skipTLSVerify: false, proxyUrl },
        user: { name: 'u', ...user },
      };
      expect(needsClientNode(s)).to.equal(why);
    });
  }

  it("in a pod: the service account's token file, CA and namespace", () => {
    const dir = mkdtempSync(join(tmpdir(), 'pacer-sa-'));
    try {
      writeFileSync(join(dir, 'namespace'), 'team-a\n');
      const kc = inClusterKubeconfig({ KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' }, dir);
      const s = selectContext(kc);
      expect(s.cluster).to.include({ server: 'https://[fd00::1]:443', caFile: join(dir, 'ca.crt') });
      expect(s.user?.tokenFile).to.equal(join(dir, 'token'));
      expect(s.context?.namespace).to.equal('team-a');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads --kubeconfig alone, else every file of KUBECONFIG; a missing file is named', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pacer-kc-'));
    try {
      const a = join(dir, 'a');
      const b = join(dir, 'b');
      writeFileSync(a, 'clusters: [{name: a, cluster: {server: "https://a"}}]\n');
      writeFileSync(b, 'current-context: b\ncontexts: [{name: b, context: {cluster: a}}]\n');
      const env = { KUBECONFIG: `${a}:${b}` };
      expect(selectContext(readKubeconfig({}, env)).cluster?.server).to.equal('https://a');
      expect(readKubeconfig({ kubeconfig: a }, env).contexts).to.deep.equal([]);
      expect(() => readKubeconfig({}, { KUBECONFIG: `${a}:${join(dir, 'nope')}` })).to.throw(
        `KUBECONFIG ${join(dir, 'nope')}: no such file`,
      );
      expect(() => readKubeconfig({ kubeconfig: join(dir, 'nope') }, env)).to.throw(
        `--kubeconfig ${join(dir, 'nope')}: no such file`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
