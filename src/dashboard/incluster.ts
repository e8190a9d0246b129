// The in-cluster dashboard's gate (`pacer dashboard`, docs/dashboard.md#in-the-cluster): who is
// asking, by a bearer token the API server's TokenReview accepts (sent as a header, or signed in
// once through the page's form, which leaves an HttpOnly SameSite=Strict session cookie here), and
// may they, by a SubjectAccessReview for that user (name, uid, groups, extra) on the object and verb
// of each view and action. Answers are kept briefly (20 s by default): a page's stream costs a review
// per namespace and kind it shows, not one per change, and a token revoked or a RoleBinding removed
// takes effect within that time. The server then acts with its own ServiceAccount.

import { createHash, randomBytes } from 'node:crypto';
import type { Access, Caller, Reviews } from '../server/auth.ts';
import { forbiddenMessage } from '../server/auth.ts';
import type { Kind } from './api.ts';
import { accessKey, viewAccess } from './access.ts';
import { TtlCache } from '../server/ttlcache.ts';

export const DEFAULT_REVIEW_TTL_MS = 20_000;
export const DEFAULT_SESSION_TTL_MS = 8 * 60 * 60 * 1000;

/** A refusal: its HTTP status and Kubernetes' words. */
export interface Refusal {
  code: number;
  message: string;
}

export interface GateOptions {
  reviews: Reviews;
  /** How long a review's answer is kept (default 20 s). */
  reviewTtlMs?: number;
  /** How long a sign-in lasts (default 8 h); the token is reviewed again every reviewTtlMs meanwhile. */
  sessionTtlMs?: number;
  now?: () => number;
  /** How many sessions are kept at most (the oldest go first; default 10,000). */
  maxSessions?: number;
}

const tokenKey = (token: string) => createHash('sha256').update(token).digest('base64url');
const callerKey = (c: Caller) => JSON.stringify([c.username, c.uid ?? '', c.groups ?? [], c.extra ?? {}]);

export class Gate {
  readonly reviewTtlMs: number;
  readonly sessionTtlMs: number;
  private readonly now: () => number;
  private readonly callers: TtlCache<Caller | null>;
  private readonly answers: TtlCache<{ allowed: boolean; reason?: string }>;
  /** Reviews under way, shared by the requests that ask the same at once. */
  private readonly pending = new Map<string, Promise<unknown>>();
  private readonly sessions = new Map<string, { token: string; expires: number }>();
  private readonly maxSessions: number;
  private readonly o: GateOptions;

  constructor(o: GateOptions) {
    this.o = o;
    this.now = o.now ?? Date.now;
    this.reviewTtlMs = o.reviewTtlMs ?? DEFAULT_REVIEW_TTL_MS;
    this.sessionTtlMs = o.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS;
    this.maxSessions = o.maxSessions ?? 10_000;
    this.callers = new TtlCache(this.reviewTtlMs, this.now);
    this.answers = new TtlCache(this.reviewTtlMs, this.now);
  }

  private once<T>(key: string, ask: () => Promise<T>): Promise<T> {
    const had = this.pending.get(key) as Promise<T> | undefined;
    if (had) return had;
    const p = ask().finally(() => this.pending.delete(key));
    this.pending.set(key, p);
    return p;
  }

  /** The user of `token` (TokenReview, kept reviewTtlMs); undefined when the API server does not accept it. */
  async authenticate(token: string): Promise<Caller | undefined> {
    const key = tokenKey(token);
    const had = this.callers.get(key);
    if (had !== undefined) return had ?? undefined;
    return this.once(`t:${key}`, async () => {
      const caller = await this.o.reviews.authenticate(token);
      this.callers.set(key, caller ?? null);
      return caller;
    });
  }

  /** Whether `caller` may do `a` (SubjectAccessReview, kept reviewTtlMs). */
  async allowed(caller: Caller, a: Access): Promise<{ allowed: boolean; reason?: string }> {
    const key = `${callerKey(caller)}#${accessKey(a)}`;
    const had = this.answers.get(key);
    if (had) return had;
    return this.once(`a:${key}`, async () => {
      const answer = await this.o.reviews.authorize(caller, a);
      this.answers.set(key, answer);
      return answer;
    });
  }

  /** The first of `accesses` RBAC refuses `caller`, as a 403 in RBAC's words; 503 when a review fails. */
  async check(caller: Caller, accesses: readonly Access[]): Promise<Refusal | undefined> {
    for (const a of accesses) {
      let answer: { allowed: boolean; reason?: string };
      try {
        answer = await this.allowed(caller, a);
      } catch (err) {
        return { code: 503, message: `cannot authorise the caller: ${(err as Error).message}` };
      }
      if (!answer.allowed) return { code: 403, message: forbiddenMessage(caller, a, answer.reason) };
    }
    return undefined;
  }

  /**
   * Which of `scopes` (a kind of view in a namespace) `caller` may receive: a namespaced kind when
   * they may list it at the cluster scope (one review for all namespaces), else namespace by
   * namespace. A failed review counts as no: nothing is sent that was not allowed.
   */
  async visible(
    caller: Caller,
    scopes: Iterable<{ kind: Kind; namespace: string }>,
  ): Promise<(kind: Kind, namespace: string) => boolean> {
    const verdict = new Map<string, boolean>();
    const ask = async (a: Access): Promise<boolean> => {
      try {
        return (await this.allowed(caller, a)).allowed;
      } catch {
        return false;
      }
    };
    const jobs: Promise<void>[] = [];
    for (const { kind, namespace } of scopes) {
      const k = `${kind}|${namespace}`;
      if (verdict.has(k)) continue;
      verdict.set(k, false);
      const a = viewAccess(kind, namespace);
      if (!a) {
        verdict.set(k, true);
        continue;
      }
      jobs.push(
        (async () => {
          const everywhere =
            a.namespace !== undefined && a.name === undefined ? await ask({ ...a, namespace: undefined }) : false;
          verdict.set(k, everywhere || (await ask(a)));
        })(),
      );
    }
    await Promise.all(jobs);
    return (kind, namespace) => verdict.get(`${kind}|${namespace}`) === true;
  }

  /** Signs in with `token`: a new session for its user, or undefined when the API server does not accept it. */
  async signIn(token: string): Promise<{ caller: Caller; session: string; maxAgeSeconds: number } | undefined> {
    const caller = await this.authenticate(token);
    if (!caller) return undefined;
    this.expire();
    while (this.sessions.size >= this.maxSessions) this.sessions.delete(this.sessions.keys().next().value as string);
    const session = randomBytes(32).toString('base64url');
    this.sessions.set(session, { token, expires: this.now() + this.sessionTtlMs });
    return { caller, session, maxAgeSeconds: this.sessionTtlMs / 1000 };
  }

  signOut(session: string): void {
    this.sessions.delete(session);
  }

  private expire(): void {
    const now = this.now();
    for (const [id, s] of this.sessions) if (s.expires <= now) this.sessions.delete(id);
  }

  /**
   * Who makes a request: its bearer token, else its session's; 401 without either, with a token the
   * API server does not (or no longer) accept, or a session that ended; 503 when the review fails.
   */
  async identify(bearer: string | undefined, session: string | undefined): Promise<Caller | Refusal> {
    let token = bearer;
    if (token === undefined && session !== undefined) {
      const s = this.sessions.get(session);
      if (s && s.expires > this.now()) token = s.token;
      else if (s) this.sessions.delete(session);
    }
    if (token === undefined)
      return {
        code: 401,
        message:
          'Unauthorized: sign in with a token the API server accepts (Authorization: Bearer TOKEN, or the sign-in form)',
      };
    let caller: Caller | undefined;
    try {
      caller = await this.authenticate(token);
    } catch (err) {
      return { code: 503, message: `cannot authenticate the caller: ${(err as Error).message}` };
    }
    if (!caller) {
      if (session !== undefined && bearer === undefined) this.sessions.delete(session);
      return { code: 401, message: 'Unauthorized: the API server does not accept this token (TokenReview)' };
    }
    return caller;
  }
}
