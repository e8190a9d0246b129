// The in-cluster dashboard's rules, pure: what each view and each action is as RBAC names it (a
// SubjectAccessReview's resourceAttributes), which changes of the stream a user may receive, how
// long a review's answer is kept, and the sign-in cookie. The reviews themselves are incluster.ts's.
//
// A user sees an object only when RBAC lets them list its kind in its namespace (a pod when they
// may list pods there, a NodeRoll when they may list noderolls at the cluster scope, the freeze
// switch when they may get the ConfigMap pacer-freeze), and may act only when RBAC lets them do what
// the action writes: `kubectl pacer rollout undo` patches the Deployment, so the dashboard asks
// whether the user may patch it. Kubernetes' words for both are RBAC's: `deployments.pacer.dev "web"
// is forbidden: User "alice" cannot patch resource "deployments" in API group "pacer.dev" in the
// namespace "a"`.

import { FREEZE_CONFIGMAP } from '../engine/index.ts';
import type { Access } from '../server/auth.ts';
import type { Action, Change, Kind, Operation } from './api.ts';

export const GROUP = 'pacer.dev';

/** The resource each kind of view is made from; undefined for the server's own (`source`: its lists' state). */
export const RESOURCES: Record<Kind, { group: string; resource: string; namespaced: boolean } | undefined> = {
  deployment: { group: GROUP, resource: 'deployments', namespaced: true },
  replicaSet: { group: 'apps', resource: 'replicasets', namespaced: true },
  pod: { group: '', resource: 'pods', namespaced: true },
  planResource: { group: GROUP, resource: 'plans', namespaced: true },
  nodeRoll: { group: GROUP, resource: 'noderolls', namespaced: false },
  freeze: { group: '', resource: 'configmaps', namespaced: true },
  analysisRun: { group: GROUP, resource: 'analysisruns', namespaced: true },
  event: { group: '', resource: 'events', namespaced: true },
  source: undefined,
};

/**
 * What a user must be allowed to receive a view of `kind` in `namespace` ('' for the cluster's):
 * list that resource there (the freeze switch: get the ConfigMap pacer-freeze); undefined when
 * anyone signed in may (the server's own `source` views).
 */
export function viewAccess(kind: Kind, namespace: string): Access | undefined {
  const r = RESOURCES[kind];
  if (!r) return undefined;
  if (kind === 'freeze')
    return { namespace, verb: 'get', group: r.group, resource: r.resource, name: FREEZE_CONFIGMAP };
  return { ...(r.namespaced ? { namespace } : {}), verb: 'list', group: r.group, resource: r.resource };
}

/** The key of a view access in a user's cache of answers. */
export function accessKey(a: Access): string {
  return [a.verb, a.group, a.resource, a.subresource ?? '', a.namespace ?? '', a.name ?? ''].join('|');
}

/** A change's kind and namespace: what decides who may receive it. */
export function changeScope(c: Change): { kind: Kind; namespace: string } {
  return { kind: c.kind, namespace: c.op === 'put' ? c.obj.namespace : c.namespace };
}

/**
 * What `kubectl pacer rollout pause|resume|restart|undo` and `set image` on Deployment
 * `namespace`/`name` write: a patch of it.
 */
export function deploymentActionAccess(namespace: string, name: string, _action: Action): Access[] {
  return [{ namespace, verb: 'patch', group: GROUP, resource: 'deployments', name }];
}

/**
 * What an operation writes, as RBAC names it: a node roll's pause, resume and skip patch the NodeRoll
 * (cluster-scoped); freeze on creates (or, with a new reason, patches) the ConfigMap pacer-freeze in
 * `pacerNamespace`, off deletes it; a plan's operation updates each Deployment it changes (`targets`,
 * as the controller's plan API counts them: the service's, or a custom Plan's and the Plan itself;
 * without them, the service's own Deployment), and a step's restart deletes its pod; the cancel of
 * one of Marathon's deployments patches each of its apps' Deployments (`targets.apps`).
 */
export function operationAccess(
  op: Operation,
  pacerNamespace: string,
  targets?: { deployments: string[]; custom: boolean } | { apps: Array<{ namespace: string; name: string }> },
): Access[] {
  if (op.kind === 'marathon')
    return (targets && 'apps' in targets ? targets.apps : []).map(({ namespace, name }) => ({
      namespace,
      verb: 'patch',
      group: GROUP,
      resource: 'deployments',
      name,
    }));
  if (op.kind === 'nodeRoll') return [{ verb: 'patch', group: GROUP, resource: 'noderolls', name: op.name }];
  if (op.kind === 'freeze') {
    const cm = { namespace: pacerNamespace, group: '', resource: 'configmaps' };
    return op.action === 'on'
      ? [
          { ...cm, verb: 'create' },
          { ...cm, verb: 'patch', name: FREEZE_CONFIGMAP },
        ]
      : [{ ...cm, verb: 'delete', name: FREEZE_CONFIGMAP }];
  }
  const t =
    targets && 'deployments' in targets
      ? targets
      : { deployments: [op.service], custom: op.plan !== 'deploy' && op.plan !== 'recovery' };
  const out: Access[] = [
    ...(t.custom ? [{ namespace: op.namespace, verb: 'update', group: GROUP, resource: 'plans', name: op.plan }] : []),
    ...t.deployments.map((name) => ({
      namespace: op.namespace,
      verb: 'update',
      group: GROUP,
      resource: 'deployments',
      name,
    })),
  ];
  if (op.action === 'restart' && op.step !== undefined)
    out.push({ namespace: op.namespace, verb: 'delete', group: '', resource: 'pods' });
  return out;
}

/** What reading pod `namespace`/`name`'s log is, as RBAC names it: get of its `log` subresource. */
export function podLogAccess(namespace: string, name: string): Access {
  return { namespace, verb: 'get', group: '', resource: 'pods', subresource: 'log', name };
}

/** The sign-in cookie's name. */
export const SESSION_COOKIE = 'pacer-dashboard-session';

/** The session id a request's Cookie header carries, if any. */
export function sessionOf(cookieHeader: string | undefined): string | undefined {
  for (const part of (cookieHeader ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === SESSION_COOKIE) {
      const v = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{20,200}$/.test(v) ? v : undefined;
    }
  }
  return undefined;
}

/**
 * The Set-Cookie of a session: HttpOnly (no script reads it), SameSite=Strict (no other site's page
 * sends it), Path=/, Max-Age in seconds (0 clears it), Secure when the page is served over HTTPS.
 */
export function sessionCookie(id: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${id}; Path=/; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/** The bearer token of an Authorization header, if it carries one. */
export function bearerOf(authorization: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
}

/**
 * Whether a POST comes from a page of the same origin, behind any Host (a Service, an Ingress, a
 * port-forward): Sec-Fetch-Site says same-origin, or, from a client that does not send it, Origin is
 * http:// or https:// and the Host the request names.
 */
export function sameOriginBehindAnyHost(headers: {
  host?: string | undefined;
  origin?: string | undefined;
  'sec-fetch-site'?: string | string[] | undefined;
}): boolean {
  const site = headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin';
  if (headers.origin === undefined || headers.host === undefined) return false;
  return headers.origin === `http://${headers.host}` || headers.origin === `https://${headers.host}`;
}

/** An operation in the audit line's words: `node-roll skip roll-1 n2`, `freeze on "incident 42"`, `plan continue default/web deploy web`. */
export function operationWords(op: Operation): string {
  if (op.kind === 'nodeRoll')
    return `node-roll ${op.action} ${op.name}${op.node !== undefined ? ` ${op.node}` : ''}${op.skipAnalysis ? ' --skip-analysis' : ''}`;
  if (op.kind === 'marathon') return `deployment cancel ${op.id}${op.force ? ' --force' : ''}`;
  if (op.kind === 'freeze')
    return `freeze ${op.action}${op.reason !== undefined ? ` ${JSON.stringify(op.reason)}` : ''}`;
  const params = Object.entries(op.parameters ?? {}).map(([k, v]) => ` -p ${JSON.stringify(`${k}=${v}`)}`);
  return `plan ${op.action} ${op.namespace}/${op.service} ${[op.plan, op.phase, op.step].filter((x) => x !== undefined).join(' ')}${params.join('')}`;
}

/** A Deployment's action in the audit line's words: `pause a/web`, `undo --to-revision=1 a/web`. */
export function actionWords(namespace: string, name: string, action: Action, toRevision?: number): string {
  return `${toRevision !== undefined ? `${action} --to-revision=${toRevision}` : action} ${namespace}/${name}`;
}
