// The kubeconfig of docs/simulated-api-server.md#kubeconfig-and-authentication: plain http on 127.0.0.1, `insecure-skip-tls-verify`
// (client-node refuses http:// without it; kubectl does not mind), a token (client-node sends it;
// kubectl never sends credentials over http), and a context whose namespace is `default`.

import { SIM_CLUSTER_NAME } from '../kube/simulated.ts';

/**
 * The kubeconfig's bearer token. The simulator's TokenReview takes a token for the user of that
 * name (authz.ts), so this one is `kubernetes-admin`, in `system:masters` as on a kubeadm cluster:
 * the same user the simulator assumes for kubectl's requests, which carry no token over plain HTTP.
 * That is what lets a `make run` user read the controller's views (GET /v2/deployments, behind a
 * TokenReview and a SubjectAccessReview) with the kubeconfig's own token.
 */
export const SIM_TOKEN = 'kubernetes-admin';

export function kubeconfigYaml(url: string, token = SIM_TOKEN): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${SIM_CLUSTER_NAME}`,
    '  cluster:',
    `    server: ${url}`,
    '    insecure-skip-tls-verify: true',
    'users:',
    `- name: ${SIM_CLUSTER_NAME}`,
    '  user:',
    `    token: ${token}`,
    'contexts:',
    `- name: ${SIM_CLUSTER_NAME}`,
    '  context:',
    `    cluster: ${SIM_CLUSTER_NAME}`,
    `    user: ${SIM_CLUSTER_NAME}`,
    '    namespace: default',
    `current-context: ${SIM_CLUSTER_NAME}`,
    'preferences: {}',
    '',
  ].join('\n');
}
