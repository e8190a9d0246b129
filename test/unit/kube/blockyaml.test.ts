// blockYaml reads the plain block YAML of kubeconfigs exactly as the `yaml` package does, and
// declines (undefined: the caller then uses `yaml`) whatever it does not read.

import { expect } from 'chai';
import { parse } from 'yaml';
import { blockYaml } from '../../../src/kube/blockyaml.ts';

// What kubectl writes (`kubectl config view --raw` after `kubectl config set-*`).
const KUBECTL = `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==
    server: https://127.0.0.1:6443
  name: kind-kind
contexts:
- context:
    cluster: kind-kind
    namespace: prod
    user: kind-kind
  name: kind-kind
current-context: kind-kind
kind: Config
preferences: {}
users:
- name: kind-kind
  user:
    client-certificate-data: Y2VydA==
    client-key-data: a2V5
`;

// What Pacer's simulated cluster writes (src/sim/kubeconfig.ts): lists indented under their key.
const SIM = `apiVersion: v1
kind: Config
clusters:
  - name: pacer-sim
    cluster:
      server: http://127.0.0.1:45317
      insecure-skip-tls-verify: true
users:
  - name: pacer-sim
    user:
      token: kubernetes-admin
contexts:
  - name: pacer-sim
    context:
      cluster: pacer-sim
      user: pacer-sim
      namespace: default
current-context: pacer-sim
preferences: {}
`;

describe('kube/blockyaml: the block YAML of kubeconfigs, read as yaml reads it', () => {
  const same: Array<[string, string]> = [
    ["kubectl's own kubeconfig", KUBECTL],
    ["the simulated cluster's", SIM],
    ['Windows line ends', KUBECTL.replaceAll('\n', '\r\n')],
    [
      'whole-line comments and blank lines',
      `# written by hand\napiVersion: v1\n\n  # indented comment\nkind: Config\n`,
    ],
    ['quoted scalars', `a: "x: y # z"\nb: 'it''s'\nc: "\\u00e9t\\u00e9"\nd: ''\n`],
    ['null, true and false; a key without a value', `a: null\nb: true\nc: false\nd:\ne: x\n`],
    ['a list of scalars and a list of lists', `a:\n- x\n- y\nb:\n  -\n    - z\n`],
    [
      'plain scalars with colons and hashes inside',
      `server: https://h:6443/k8s/clusters/c-1\ntoken: abc#def\nx: a:b\n`,
    ],
  ];
  for (const [name, text] of same) {
    it(`reads ${name} as yaml does`, () => {
      const got = blockYaml(text);
      expect(got, 'declined').to.not.equal(undefined);
      expect(got).to.deep.equal(parse(text));
    });
  }

  const declined: Array<[string, string]> = [
    ['a number (left to the core schema)', 'a: 1\n'],
    ['a token that starts with a digit', 'token: 0x1f\n'],
    ['a trailing comment', 'a: b # c\n'],
    ['an anchor and an alias', 'a: &x b\nc: *x\n'],
    ['a block scalar', 'a: |\n  b\n'],
    ['a flow map with content', 'a: {b: c}\n'],
    ['a flow list with content', 'a: [b]\n'],
    ['a continued plain scalar', 'a: b\n  c\n'],
    ['a tag', 'a: !!str b\n'],
    ['several documents', '---\na: b\n---\nc: d\n'],
    ['a duplicate key', 'a: b\na: c\n'],
    ['a quoted key', '"a": b\n'],
    ['a tab in the indentation', 'a:\n\tb: c\n'],
    ['a key deeper than its siblings', 'a: b\n  c: d\n'],
    ['True in capitals (a boolean of the core schema)', 'a: True\n'],
    ['the key __proto__', '__proto__: x\n'],
    ['an empty text', ''],
    ['a document that is a scalar', 'just text\n'],
  ];
  for (const [name, text] of declined) {
    it(`declines ${name}`, () => {
      expect(blockYaml(text)).to.equal(undefined);
    });
  }
});
