import { expect } from 'chai';
import { KubeError, fromResponse, toKubeError } from '../../../src/kube/errors.ts';
import { describeError, PluginError } from '../../../src/plugin/errors.ts';

const status = (code: number, reason: string, message: string, details?: object) =>
  JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code,
    reason,
    message,
    ...(details ? { details } : {}),
  });

describe('plugin/errors: kubectl-like one-liners', () => {
  const refused = Object.assign(new TypeError('fetch failed'), {
    cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' }),
  });
  const rows: Array<[string, unknown, Parameters<typeof describeError>[1], string]> = [
    [
      'not found (server Status)',
      fromResponse(
        404,
        status(404, 'NotFound', 'deployments.pacer.dev "web" not found', {
          name: 'web',
          group: 'pacer.dev',
          kind: 'deployments',
        }),
        'get Deployment default/web',
      ),
      {},
      'Error from server (NotFound): deployments.pacer.dev "web" not found',
    ],
    [
      'not found without details: named from the command',
      fromResponse(404, '404 page not found', 'get'),
      { name: 'web' },
      'Error from server (NotFound): deployments.pacer.dev "web" not found',
    ],
    [
      'CRD not installed',
      fromResponse(404, '404 page not found', 'get'),
      { name: 'web', crdMissing: true },
      'error: the server doesn\'t have a resource type "deployments" in group "pacer.dev": Pacer\'s CRD is not installed (from a Pacer clone: kubectl apply -f crds/)',
    ],
    [
      'connection refused',
      toKubeError(refused, 'GET http://127.0.0.1:6443/apis'),
      { server: 'http://127.0.0.1:6443' },
      'The connection to the server 127.0.0.1:6443 was refused - did you specify the right host or port?',
    ],
    [
      'connection refused, https without a port',
      toKubeError(refused, 'get'),
      { server: 'https://k8s.example.com' },
      'The connection to the server k8s.example.com:443 was refused - did you specify the right host or port?',
    ],
    [
      'connection refused on a simulated cluster: the hint that it is likely gone',
      toKubeError(refused, 'get'),
      { server: 'http://127.0.0.1:45459', simulated: true },
      'The connection to the server 127.0.0.1:45459 was refused - did you specify the right host or port?\n' +
        'hint: this kubeconfig\'s cluster "pacer-sim" is a simulated cluster that `make run` or `pacer sim` wrote and that is no longer running; start a new one (`unset KUBECONFIG; make run` in the Pacer clone) and use the kubeconfig it writes',
    ],
    [
      'no such host: the address and the reason, as kubectl',
      toKubeError(
        new TypeError('fetch failed', {
          cause: Object.assign(new Error('getaddrinfo ENOTFOUND k8s.example.invalid'), {
            code: 'ENOTFOUND',
            syscall: 'getaddrinfo',
            hostname: 'k8s.example.invalid',
          }),
        }),
        'list deployments in default',
      ),
      { server: 'https://k8s.example.invalid:6443' },
      'Unable to connect to the server: dial tcp: lookup k8s.example.invalid: no such host',
    ],
    [
      'forbidden',
      fromResponse(
        403,
        status(
          403,
          'Forbidden',
          'deployments.pacer.dev "web" is forbidden: User "bob" cannot get resource "deployments" in API group "pacer.dev" in the namespace "default"',
        ),
        'get',
      ),
      {},
      'Error from server (Forbidden): deployments.pacer.dev "web" is forbidden: User "bob" cannot get resource "deployments" in API group "pacer.dev" in the namespace "default"',
    ],
    [
      'unauthorized',
      fromResponse(401, status(401, 'Unauthorized', 'Unauthorized'), 'get'),
      {},
      'error: You must be logged in to the server (Unauthorized)',
    ],
    [
      'conflict',
      fromResponse(
        409,
        status(
          409,
          'Conflict',
          'Operation cannot be fulfilled on deployments.pacer.dev "web": the object has been modified; please apply your changes to the latest version and try again',
        ),
        'patch',
      ),
      {},
      'Error from server (Conflict): Operation cannot be fulfilled on deployments.pacer.dev "web": the object has been modified; please apply your changes to the latest version and try again',
    ],
    [
      'invalid: the message alone',
      fromResponse(
        422,
        status(422, 'Invalid', 'Deployment.pacer.dev "web" is invalid: spec.replicas: Invalid value: -1'),
        'patch',
      ),
      {},
      'Deployment.pacer.dev "web" is invalid: spec.replicas: Invalid value: -1',
    ],
    [
      'a plugin error',
      new PluginError('deployments.pacer.dev "web" is already paused'),
      {},
      'error: deployments.pacer.dev "web" is already paused',
    ],
    ['anything else', new Error('boom'), {}, 'error: boom'],
  ];
  for (const [name, err, ctx, want] of rows) it(name, () => expect(describeError(err, ctx)).to.equal(want));

  it('a refused connection is classified Unreachable by kube/errors (the input of the mapping)', () => {
    expect(toKubeError(refused))
      .to.be.instanceOf(KubeError)
      .and.to.include({ kind: 'Unreachable', reason: 'ECONNREFUSED' });
  });
});
