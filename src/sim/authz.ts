// The simulated API server's TokenReview and SubjectAccessReview (docs/simulated-api-server.md#reviews),
// for components that authenticate and authorise their own callers against the API server, as
// controller-runtime's secure serving does.
//
//  * TokenReview: the simulated cluster takes a bearer token as the user's name (its audit log does
//    too), so any non-empty token authenticates, as that user, in system:authenticated; a
//    ServiceAccount's name (system:serviceaccount:NS:NAME) also brings system:serviceaccounts and
//    system:serviceaccounts:NS, and kubernetes-admin is in system:masters, as on a kubeadm cluster.
//    An empty token does not authenticate.
//  * SubjectAccessReview: RBAC as the API server evaluates it, over the stored Roles, ClusterRoles
//    and their bindings: system:masters may do anything; otherwise a rule of a role bound to the
//    user (a User subject), one of its groups (Group) or its ServiceAccount must match the group,
//    resource (with its subresource), verb and, when the rule lists resourceNames, the name; a
//    RoleBinding grants only in its namespace. The reason names the binding, as RBAC's does.

import type { KubeObject, StoreApi } from './types.ts';
import { REF } from './resources.ts';

interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
}

/** The answer to a TokenReview's spec.token. */
export function tokenReview(body: KubeObject): KubeObject {
  const token = String((body.spec as { token?: unknown } | undefined)?.token ?? '');
  const status =
    token === '' ? { authenticated: false, error: 'token is empty' } : { authenticated: true, user: userOf(token) };
  return {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenReview',
    metadata: {},
    spec: body.spec,
    status,
  } as KubeObject;
}

function userOf(name: string): UserInfo {
  const groups = ['system:authenticated'];
  const sa = /^system:serviceaccount:([^:]+):[^:]+$/.exec(name);
  if (sa) groups.unshift('system:serviceaccounts', `system:serviceaccounts:${sa[1]}`);
  if (name === 'kubernetes-admin') groups.unshift('system:masters');
  return { username: name, uid: name, groups };
}

interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  resource?: string;
  subresource?: string;
  name?: string;
}

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  verbs?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** A request to a path that is no resource (/metrics, /healthz), as RBAC names it. */
interface NonResourceAttributes {
  path?: string;
  verb?: string;
}

/** RBAC's non-resource rule: the verb listed (or *), the path listed exactly, or under a listed prefix ending in *. */
function nonResourceRuleMatches(r: Rule, a: NonResourceAttributes): boolean {
  const verbs = r.verbs ?? [];
  if (!verbs.includes('*') && !verbs.includes(a.verb ?? '')) return false;
  const path = a.path ?? '';
  return (r.nonResourceURLs ?? []).some(
    (u) => u === '*' || u === path || (u.endsWith('*') && path.startsWith(u.slice(0, -1))),
  );
}

interface Subject {
  kind?: string;
  name?: string;
  namespace?: string;
}
interface Binding extends KubeObject {
  subjects?: Subject[];
  roleRef?: { kind?: string; name?: string };
}

function ruleMatches(r: Rule, a: ResourceAttributes): boolean {
  const has = (list: string[] | undefined, v: string) => (list ?? []).includes('*') || (list ?? []).includes(v);
  const resource = a.subresource ? `${a.resource ?? ''}/${a.subresource}` : (a.resource ?? '');
  if (!has(r.apiGroups, a.group ?? '') || !has(r.resources, resource) || !has(r.verbs, a.verb ?? '')) return false;
  return !r.resourceNames || r.resourceNames.length === 0 || r.resourceNames.includes(a.name ?? '');
}

function subjectMatches(s: Subject, user: UserInfo, bindingNamespace: string | undefined): boolean {
  if (s.kind === 'User') return s.name === user.username;
  if (s.kind === 'Group') return user.groups.includes(s.name ?? '');
  if (s.kind === 'ServiceAccount')
    return user.username === `system:serviceaccount:${s.namespace ?? bindingNamespace}:${s.name}`;
  return false;
}

/**
 * The answer to a SubjectAccessReview: resourceAttributes by the rules of Roles and ClusterRoles
 * bound to the user, nonResourceAttributes by the nonResourceURLs rules of ClusterRoles bound
 * through ClusterRoleBindings (a Role cannot grant a path).
 */
export function subjectAccessReview(store: StoreApi, body: KubeObject): KubeObject {
  const spec = (body.spec ?? {}) as {
    user?: string;
    groups?: string[];
    uid?: string;
    resourceAttributes?: ResourceAttributes;
    nonResourceAttributes?: NonResourceAttributes;
  };
  const user: UserInfo = { username: spec.user ?? '', groups: spec.groups ?? [] };
  const a = spec.resourceAttributes;
  const path = spec.nonResourceAttributes;
  const answer = (status: Record<string, unknown>): KubeObject =>
    ({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      metadata: {},
      spec: body.spec,
      status,
    }) as KubeObject;
  if (user.groups.includes('system:masters')) return answer({ allowed: true });
  if (!a && !path) return answer({ allowed: false, reason: 'neither resourceAttributes nor nonResourceAttributes' });
  const bindings: Array<{ b: Binding; kind: string }> = [
    ...store
      .list(REF.clusterrolebindings, undefined)
      .items.map((b) => ({ b: b as Binding, kind: 'ClusterRoleBinding' })),
    ...(a?.namespace
      ? store.list(REF.rolebindings, a.namespace).items.map((b) => ({ b: b as Binding, kind: 'RoleBinding' }))
      : []),
  ];
  const matches = (r: Rule) => (a ? ruleMatches(r, a) : nonResourceRuleMatches(r, path!));
  for (const { b, kind } of bindings) {
    const ns = b.metadata.namespace;
    const subject = (b.subjects ?? []).find((s) => subjectMatches(s, user, ns));
    if (!subject) continue;
    const ref = b.roleRef ?? {};
    const role =
      ref.kind === 'ClusterRole'
        ? store.get(REF.clusterroles, undefined, ref.name ?? '')
        : store.get(REF.roles, ns, ref.name ?? '');
    const rules = (role as { rules?: Rule[] } | undefined)?.rules ?? [];
    if (rules.some(matches)) {
      const where =
        kind === 'RoleBinding' ? `RoleBinding "${b.metadata.name}/${ns}"` : `ClusterRoleBinding "${b.metadata.name}"`;
      return answer({
        allowed: true,
        reason: `RBAC: allowed by ${where} of ${ref.kind} "${ref.name}" to ${subject.kind} "${subject.name}"`,
      });
    }
  }
  return answer({ allowed: false });
}
