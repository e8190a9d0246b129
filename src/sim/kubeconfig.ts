// The kubeconfig of docs/simulated-api-server.md#kubeconfig-and-authentication: plain http on 127.0.0.1, `insecure-skip-tls-verify`
// (client-node refuses http:// without it; kubectl does not mind), a token (client-node sends it;
// kubectl never sends credentials over http), and a context whose namespace is `default`.

export const SIM_TOKEN = 'sim-token';

export function kubeconfigYaml(url: string, token = SIM_TOKEN): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: pacer-sim',
    '  cluster:',
    `    server: ${url}`,
    '    insecure-skip-tls-verify: true',
    'users:',
    '- name: pacer-sim',
    '  user:',
    `    token: ${token}`,
    'contexts:',
    '- name: pacer-sim',
    '  context:',
    '    cluster: pacer-sim',
    '    user: pacer-sim',
    '    namespace: default',
    'current-context: pacer-sim',
    'preferences: {}',
    '',
  ].join('\n');
}
