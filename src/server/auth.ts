// Who calls Pacer's HTTP endpoints, and may they (docs/security.md): a bearer token authenticated by
// a TokenReview, then a SubjectAccessReview for each thing the request does, against the API
// server: controller-runtime's secure serving (filters.WithAuthenticationAndAuthorization,
// https://pkg.go.dev/sigs.k8s.io/controller-runtime/pkg/metrics/filters) and kube-rbac-proxy do
// the same. No token, or one the API server does not accept: 401 Unauthorized. Refused: 403,
// "Authorization denied for user NAME" for a path (as controller-runtime says it), RBAC's own words
// for a resource. The API server unreachable: 503, nothing served.

import { createHash } from 'node:crypto';
import type http from 'node:http';
import { TtlCache } from './ttlcache.ts';

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

/** How long the reviews' answers are kept: a token's caller (accepted or not), an allow, a deny. */
export interface ReviewTtl {
  tokenMs: number;
  allowMs: number;
  denyMs: number;
}

/**
 * controller-runtime's for its secure metrics endpoint (filters.WithAuthenticationAndAuthorization,
 * https://github.com/kubernetes-sigs/controller-runtime/blob/main/pkg/metrics/filters/filters.go):
 * a TokenReview's answer kept 1 minute, a SubjectAccessReview's allow 5 minutes and its deny
 * 30 seconds. A scraper every 30 s thus costs the API server two reviews every few minutes, not two
 * a scrape; a revoked token or RoleBinding takes effect within that time.
 */
export const METRICS_REVIEW_TTL: ReviewTtl = { tokenMs: 60_000, allowMs: 300_000, denyMs: 30_000 };

/**
 * `reviews` with their answers kept for `ttl`, as the API server's delegating authenticator and
 * authorizer keep theirs (k8s.io/apiserver's token cache and webhook authorizer): keyed by the
 * token's SHA-256 (the token itself is not kept) and by the caller with the access; a review that
 * fails (the API server unreachable) is not kept, so the next request asks again.
 */
export function cachedReviews(reviews: Reviews, ttl: ReviewTtl, now: () => number = Date.now): Reviews {
  const callers = new TtlCache<Caller | null>(ttl.tokenMs, now);
  const answers = new TtlCache<{ allowed: boolean; reason?: string }>(ttl.allowMs, now);
  return {
    authenticate: async (token) => {
      const key = createHash('sha256').update(token).digest('base64url');
      const had = callers.get(key);
      if (had !== undefined) return had ?? undefined;
      const caller = await reviews.authenticate(token);
      callers.set(key, caller ?? null);
      return caller;
    },
    authorize: async (caller, access) => {
      const key = JSON.stringify([caller.username, caller.uid ?? '', caller.groups ?? [], caller.extra ?? {}, access]);
      const had = answers.get(key);
      if (had !== undefined) return had;
      const answer = await reviews.authorize(caller, access);
      answers.set(key, answer, answer.allowed ? ttl.allowMs : ttl.denyMs);
      return answer;
    },
  };
}

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
