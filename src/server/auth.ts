// Who calls Pacer's HTTP endpoints, and may they (docs/security.md): a bearer token authenticated by
// a TokenReview, then a SubjectAccessReview for each thing the request does, against the API
// server: controller-runtime's secure serving (filters.WithAuthenticationAndAuthorization,
// https://pkg.go.dev/sigs.k8s.io/controller-runtime/pkg/metrics/filters) and kube-rbac-proxy do
// the same. No token, or one the API server does not accept: 401 Unauthorized. Refused: 403,
// "Authorization denied for user NAME" for a path (as controller-runtime says it), RBAC's own words
// for a resource. The API server unreachable: 503, nothing served.

import type http from 'node:http';

/** A caller as the API server's TokenReview knows it. */
export interface Caller {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** Something a request does to a resource, as RBAC names it (a SubjectAccessReview's resourceAttributes). */
export interface Access {
  namespace?: string;
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  name?: string;
}

/** A request to a path that is no resource (/metrics), as RBAC names it (nonResourceAttributes). */
export interface PathAccess {
  path: string;
  /** The HTTP method in lower case, as the API server's authorizer takes it. */
  verb: string;
}

/** The two reviews, against the API server. */
export interface Reviews {
  /** TokenReview: the caller a bearer token belongs to, undefined when it is not accepted. */
  authenticate: (token: string) => Promise<Caller | undefined>;
  /** SubjectAccessReview: may `caller` do `access`. */
  authorize: (caller: Caller, access: Access | PathAccess) => Promise<{ allowed: boolean; reason?: string }>;
}

const isPath = (a: Access | PathAccess): a is PathAccess => 'path' in a;

/** RBAC's words for a refusal: `deployments.pacer.dev "web" is forbidden: User "alice" cannot update resource ...`. */
export function forbiddenMessage(caller: Caller, a: Access, reason?: string): string {
  const qualified = a.group === '' ? a.resource : `${a.resource}.${a.group}`;
  const scope = a.namespace ? ` in the namespace "${a.namespace}"` : ' at the cluster scope';
  const what = a.name ? `${qualified} "${a.name}" is forbidden` : `${qualified} is forbidden`;
  return `${what}: User "${caller.username}" cannot ${a.verb} resource "${a.resource}${a.subresource ? `/${a.subresource}` : ''}" in API group "${a.group}"${scope}${reason ? `: ${reason}` : ''}`;
}

/** The outcome of the reviews: the caller (when the token named one) and the refusal, if any. */
export interface Verdict {
  caller?: Caller;
  /** 401 without a bearer token the API server accepts, 403 unless every access is allowed, 503 when a review fails. */
  refused?: { code: number; message: string };
}

/** Authenticates the request's bearer token and authorises the caller for every access, in order. */
export async function review(
  reviews: Reviews,
  req: http.IncomingMessage,
  access: ReadonlyArray<Access | PathAccess>,
): Promise<Verdict> {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
  if (!token) return { refused: { code: 401, message: 'Unauthorized' } };
  let caller: Caller | undefined;
  try {
    caller = await reviews.authenticate(token);
  } catch (e) {
    return { refused: { code: 503, message: `cannot authenticate the caller: ${(e as Error).message}` } };
  }
  if (!caller) return { refused: { code: 401, message: 'Unauthorized' } };
  for (const a of access) {
    let verdict: { allowed: boolean; reason?: string };
    try {
      verdict = await reviews.authorize(caller, a);
    } catch (e) {
      return { caller, refused: { code: 503, message: `cannot authorise the caller: ${(e as Error).message}` } };
    }
    if (!verdict.allowed)
      return {
        caller,
        refused: {
          code: 403,
          message: isPath(a)
            ? `Authorization denied for user ${caller.username}`
            : forbiddenMessage(caller, a, verdict.reason),
        },
      };
  }
  return { caller };
}

/** `handler` behind the reviews: each request authenticated, and authorised for its path and method. */
export function guarded(reviews: Reviews, handler: http.RequestListener): http.RequestListener {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    review(reviews, req, [{ path, verb: (req.method ?? 'GET').toLowerCase() }]).then(
      ({ refused }) => {
        if (refused)
          res.writeHead(refused.code, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`${refused.message}\n`);
        else handler(req, res);
      },
      (e: unknown) => res.writeHead(500, { 'Content-Type': 'text/plain' }).end(`${(e as Error).message}\n`),
    );
  };
}
