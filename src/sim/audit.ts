// The simulated API server's audit log: one entry per request, so that tests can prove what a
// client did (which verbs on which resources, with which outcome), e.g. that Pacer's ClusterRole
// covers every call it makes. Served as JSON on GET /sim/audit.

export type AuditVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export interface AuditEntry {
  /** RFC 3339 with milliseconds. */
  time: string;
  userAgent: string;
  /** The bearer token, when the client sent one (kubectl over http sends none). */
  user?: string;
  verb: AuditVerb | string;
  apiGroup: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  code: number;
  /** The request path and query, for debugging. */
  requestURI: string;
}

export interface AuditFilter {
  verb?: string;
  resource?: string;
  apiGroup?: string;
  userAgent?: string | RegExp;
}

export class AuditLog {
  private readonly log: AuditEntry[] = [];
  private readonly limit: number;

  /** `limit` bounds memory in long runs: the oldest entries go first. */
  constructor(limit = 100_000) {
    this.limit = limit;
  }

  record(e: AuditEntry): void {
    this.log.push(e);
    if (this.log.length > this.limit) this.log.splice(0, this.log.length - this.limit);
  }

  /** Entries in request order, optionally filtered. */
  entries(filter: AuditFilter = {}): AuditEntry[] {
    return this.log
      .filter(
        (e) =>
          (filter.verb === undefined || e.verb === filter.verb) &&
          (filter.resource === undefined || e.resource === filter.resource) &&
          (filter.apiGroup === undefined || e.apiGroup === filter.apiGroup) &&
          (filter.userAgent === undefined ||
            (typeof filter.userAgent === 'string'
              ? e.userAgent.includes(filter.userAgent)
              : filter.userAgent.test(e.userAgent))),
      )
      .map((e) => ({ ...e }));
  }

  clear(): void {
    this.log.length = 0;
  }
}
