// The simulated API server's TokenReview and SubjectAccessReview: RBAC's rule and subject matching
// over stored Roles, ClusterRoles and bindings, and the two review APIs over HTTP as a client calls them.

import { expect } from 'chai';
import { Store } from '../../../src/sim/store.ts';
import { REF } from '../../../src/sim/resources.ts';
import type { KubeObject } from '../../../src/sim/types.ts';
import { subjectAccessReview, tokenReview } from '../../../src/sim/authz.ts';
import { startSim } from '../../../src/sim/index.ts';
import { KubeClient } from '../../../src/kube/client.ts';
import { loadKubeConfig } from '../../../src/kube/clientnode.ts';
import { authenticate, authorize } from '../../../src/kube/reviews.ts';

const rbac = 'rbac.authorization.k8s.io/v1';

function seeded(): Store {
  const s = new Store();
  for (const ns of ['shop', 'other'])
    s.create(REF.namespaces, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  s.create(REF.roles, 'shop', {
    apiVersion: rbac,
    kind: 'Role',
    metadata: { name: 'operator', namespace: 'shop' },
    rules: [
      { apiGroups: ['pacer.dev'], resources: ['deployments', 'plans'], verbs: ['update'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['delete'], resourceNames: ['web-1'] },
    ],
  } as KubeObject);
  s.create(REF.rolebindings, 'shop', {
    apiVersion: rbac,
    kind: 'RoleBinding',
    metadata: { name: 'ops', namespace: 'shop' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'operator' },
    subjects: [
      { kind: 'User', name: 'alice' },
      { kind: 'ServiceAccount', name: 'ci', namespace: 'shop' },
      { kind: 'Group', name: 'oncall' },
    ],
  } as KubeObject);
  s.create(REF.clusterroles, undefined, {
    apiVersion: rbac,
    kind: 'ClusterRole',
    metadata: { name: 'viewer' },
    rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['get', 'list'] }],
  } as KubeObject);
  s.create(REF.clusterroles, undefined, {
    apiVersion: rbac,
    kind: 'ClusterRole',
    metadata: { name: 'metrics-reader' },
    rules: [{ nonResourceURLs: ['/metrics', '/debug/*'], verbs: ['get'] }],
  } as KubeObject);
  s.create(REF.clusterrolebindings, undefined, {
    apiVersion: rbac,
    kind: 'ClusterRoleBinding',
    metadata: { name: 'prometheus' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'metrics-reader' },
    subjects: [{ kind: 'ServiceAccount', name: 'prometheus', namespace: 'monitoring' }],
  } as KubeObject);
  s.create(REF.rolebindings, 'shop', {
    apiVersion: rbac,
    kind: 'RoleBinding',
    metadata: { name: 'metrics-in-shop', namespace: 'shop' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'metrics-reader' },
    subjects: [{ kind: 'User', name: 'erin' }],
  } as KubeObject);
  s.create(REF.clusterrolebindings, undefined, {
    apiVersion: rbac,
    kind: 'ClusterRoleBinding',
    metadata: { name: 'everyone-views' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'viewer' },
    subjects: [{ kind: 'Group', name: 'system:authenticated' }],
  } as KubeObject);
  return s;
}

function review(
  s: Store,
  user: string,
  groups: string[],
  a: Record<string, string>,
): { allowed: boolean; reason?: string } {
  const attributes = 'path' in a ? { nonResourceAttributes: a } : { resourceAttributes: a };
  return subjectAccessReview(s, {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    metadata: {},
    spec: { user, groups, ...attributes },
  } as KubeObject).status as { allowed: boolean; reason?: string };
}

describe('sim: SubjectAccessReview (RBAC over the stored roles and bindings)', () => {
  const s = seeded();
  const update = (ns: string, resource = 'deployments') => ({
    namespace: ns,
    verb: 'update',
    group: 'pacer.dev',
    resource,
    name: 'web',
  });
  const rows: Array<[string, string, string[], Record<string, string>, boolean, string?]> = [
    [
      "a User subject, a Role's rule, in its namespace",
      'alice',
      ['system:authenticated'],
      update('shop'),
      true,
      'RBAC: allowed by RoleBinding "ops/shop" of Role "operator" to User "alice"',
    ],
    ['a RoleBinding grants nothing in another namespace', 'alice', ['system:authenticated'], update('other'), false],
    ['a verb the rule does not list', 'alice', ['system:authenticated'], { ...update('shop'), verb: 'delete' }, false],
    [
      'a ServiceAccount subject by its user name',
      'system:serviceaccount:shop:ci',
      ['system:serviceaccounts'],
      update('shop', 'plans'),
      true,
      'RBAC: allowed by RoleBinding "ops/shop" of Role "operator" to ServiceAccount "ci"',
    ],
    ['a Group subject', 'carol', ['oncall'], update('shop'), true],
    [
      'resourceNames: the named pod only',
      'alice',
      [],
      { namespace: 'shop', verb: 'delete', group: '', resource: 'pods', name: 'web-1' },
      true,
    ],
    [
      'resourceNames: another pod',
      'alice',
      [],
      { namespace: 'shop', verb: 'delete', group: '', resource: 'pods', name: 'web-2' },
      false,
    ],
    [
      'a ClusterRoleBinding to a group, everywhere',
      'dave',
      ['system:authenticated'],
      { namespace: 'other', verb: 'list', group: 'apps', resource: 'replicasets' },
      true,
      'RBAC: allowed by ClusterRoleBinding "everyone-views" of ClusterRole "viewer" to Group "system:authenticated"',
    ],
    ['nobody bound', 'dave', ['system:authenticated'], update('shop'), false],
    ['system:masters may do anything', 'root', ['system:masters'], update('other'), true],
    [
      "a path: GET /metrics by a ClusterRole's nonResourceURLs",
      'system:serviceaccount:monitoring:prometheus',
      [],
      { path: '/metrics', verb: 'get' },
      true,
      'RBAC: allowed by ClusterRoleBinding "prometheus" of ClusterRole "metrics-reader" to ServiceAccount "prometheus"',
    ],
    [
      'a path under a listed prefix ending in *',
      'system:serviceaccount:monitoring:prometheus',
      [],
      { path: '/debug/pprof', verb: 'get' },
      true,
    ],
    ['a path not listed', 'system:serviceaccount:monitoring:prometheus', [], { path: '/metricsx', verb: 'get' }, false],
    [
      'a verb the path rule does not list',
      'system:serviceaccount:monitoring:prometheus',
      [],
      { path: '/metrics', verb: 'post' },
      false,
    ],
    [
      'a path granted through a RoleBinding: nothing (paths are cluster-wide)',
      'erin',
      [],
      { path: '/metrics', verb: 'get' },
      false,
    ],
    [
      'a path: resource rules do not grant it',
      'dave',
      ['system:authenticated'],
      { path: '/metrics', verb: 'get' },
      false,
    ],
  ];
  for (const [what, user, groups, a, allowed, reason] of rows) {
    it(`${what}: ${allowed ? 'allowed' : 'denied'}`, () => {
      const r = review(s, user, groups, a);
      expect(r.allowed).to.equal(allowed);
      if (reason) expect(r.reason).to.equal(reason);
    });
  }

  it("TokenReview: a token is its user (a ServiceAccount's groups, kubernetes-admin in system:masters); an empty one does not authenticate", () => {
    const status = (token: string) =>
      tokenReview({
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenReview',
        metadata: {},
        spec: { token },
      } as KubeObject).status as Record<string, unknown>;
    expect(status('system:serviceaccount:shop:ci')).to.deep.equal({
      authenticated: true,
      user: {
        username: 'system:serviceaccount:shop:ci',
        uid: 'system:serviceaccount:shop:ci',
        groups: ['system:serviceaccounts', 'system:serviceaccounts:shop', 'system:authenticated'],
      },
    });
    expect((status('kubernetes-admin').user as { groups: string[] }).groups).to.include('system:masters');
    expect(status('')).to.deep.equal({ authenticated: false, error: 'token is empty' });
  });

  it('over HTTP, as the controller asks: POST tokenreviews and subjectaccessreviews answer (201) and store nothing', async () => {
    const sim = await startSim({ port: 0 });
    try {
      const client = new KubeClient(loadKubeConfig({ kubeconfigText: sim.kubeconfig }), { userAgent: 'authz-test' });
      const alice = await authenticate(client, 'alice');
      expect(alice).to.deep.include({ username: 'alice' });
      expect(
        await authorize(client, alice!, {
          namespace: 'default',
          verb: 'update',
          group: 'pacer.dev',
          resource: 'deployments',
          name: 'web',
        }),
      ).to.deep.equal({ allowed: false });
      sim.store.create(REF.clusterroles, undefined, {
        apiVersion: rbac,
        kind: 'ClusterRole',
        metadata: { name: 'editor' },
        rules: [{ apiGroups: ['pacer.dev'], resources: ['deployments'], verbs: ['update'] }],
      } as KubeObject);
      sim.store.create(REF.clusterrolebindings, undefined, {
        apiVersion: rbac,
        kind: 'ClusterRoleBinding',
        metadata: { name: 'alice-edits' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'editor' },
        subjects: [{ kind: 'User', name: 'alice' }],
      } as KubeObject);
      expect(
        (
          await authorize(client, alice!, {
            namespace: 'default',
            verb: 'update',
            group: 'pacer.dev',
            resource: 'deployments',
            name: 'web',
          })
        ).allowed,
      ).to.equal(true);
      expect(await authenticate(client, '')).to.equal(undefined);
    } finally {
      await sim.stop();
    }
  });
});
