// Every failure of a call to the API server is mapped here, once, to a small set of kinds. Code
// above kube/ switches on `kind` and never looks at HTTP codes or socket error names.

export type KubeErrorKind =
  | 'NotFound'
  | 'Conflict'
  | 'AlreadyExists'
  | 'Invalid'
  | 'Gone'
  | 'Forbidden'
  | 'Unreachable'
  | 'Transient'
  /** Refused locally: this replica does not hold the leader election lease (KubeClient's writeGate). */
  | 'NotLeader'
  | 'Other';

/** The Kubernetes Status object an API server answers a failure with (the fields Pacer reads). */
export interface Status {
  kind?: string;
  apiVersion?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    uid?: string;
    causes?: Array<{ reason?: string; message?: string; field?: string }>;
    retryAfterSeconds?: number;
  };
}

export class KubeError extends Error {
  readonly kind: KubeErrorKind;
  /** HTTP status code, when the server answered. */
  readonly code?: number;
  /** The Status reason (`AlreadyExists`, `Expired`, ...), or the socket error code (`ECONNREFUSED`). */
  readonly reason?: string;
  readonly status?: Status;
  constructor(
    kind: KubeErrorKind,
    message: string,
    opts: { code?: number; reason?: string; status?: Status; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'KubeError';
    this.kind = kind;
    this.code = opts.code;
    this.reason = opts.reason;
    this.status = opts.status;
  }
}

/** The kind for an HTTP failure, from its code and the Status reason (the reason wins where it is more precise). */
export function kindOf(code: number, reason?: string): KubeErrorKind {
  if (reason === 'Expired' || reason === 'Gone' || code === 410) return 'Gone';
  if (code === 409) return reason === 'AlreadyExists' ? 'AlreadyExists' : 'Conflict';
  if (code === 404) return 'NotFound';
  if (code === 422) return 'Invalid';
  if (code === 401 || code === 403) return 'Forbidden';
  if (code === 429 || (code >= 500 && code <= 599)) return 'Transient';
  return 'Other';
}

/** The reason of a connection that fetch refused to open (a port the Fetch standard blocks). */
export const BAD_PORT = 'BAD_PORT';

// Socket and DNS failures that mean "no API server answered". Resets mid-request are Transient:
// a server was there and may answer the retry.
const UNREACHABLE_CODES = new Set([
  BAD_PORT,
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'UND_ERR_CONNECT_TIMEOUT',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'SELF_SIGNED_CERT_IN_CHAIN',
]);
const TRANSIENT_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
  'UND_ERR_ABORTED',
  'ERR_STREAM_PREMATURE_CLOSE',
]);

/** A KubeError from an HTTP answer: `body` is the response text (a Status, usually). */
export function fromResponse(code: number, body: unknown, what?: string): KubeError {
  let status: Status | undefined;
  if (typeof body === 'string') {
    try {
      const parsed = JSON.parse(body) as unknown;
      if (parsed && typeof parsed === 'object') status = parsed as Status;
    } catch {
      // not JSON: keep the text as the message
    }
  } else if (body && typeof body === 'object') {
    status = body as Status;
  }
  const reason = status?.reason;
  const text = status?.message ?? (typeof body === 'string' && body.trim() !== '' ? body.trim() : `HTTP ${code}`);
  const message = what ? `${what}: ${text}` : text;
  return new KubeError(kindOf(code, reason), message, { code, reason, status });
}

/** The socket error code of a network failure (undici wraps it in `cause`, sometimes in an AggregateError). */
function networkCode(err: unknown, depth = 0): string | undefined {
  if (!err || typeof err !== 'object' || depth > 4) return undefined;
  const e = err as { code?: unknown; cause?: unknown; errors?: unknown[]; name?: unknown };
  if (typeof e.code === 'string' && (UNREACHABLE_CODES.has(e.code) || TRANSIENT_CODES.has(e.code))) return e.code;
  if (e.name === 'TimeoutError' || e.name === 'ConnectTimeoutError') return 'ETIMEDOUT';
  const fromCause = networkCode(e.cause, depth + 1);
  if (fromCause) return fromCause;
  if (Array.isArray(e.errors)) {
    for (const inner of e.errors) {
      const c = networkCode(inner, depth + 1);
      if (c) return c;
    }
  }
  return typeof e.code === 'string' ? e.code : undefined;
}

/** The innermost error that carries a socket error code (undici's own errors included), or the bad-port refusal. */
function socketError(err: unknown, depth = 0): SocketError | undefined {
  if (!err || typeof err !== 'object' || depth > 4) return undefined;
  const e = err as SocketError & { cause?: unknown; errors?: unknown[] };
  const inner =
    socketError(e.cause, depth + 1) ?? (Array.isArray(e.errors) ? socketError(e.errors[0], depth + 1) : undefined);
  if (inner) return inner;
  if (typeof e.code === 'string' || e.message === 'bad port') return e;
  return undefined;
}

interface SocketError {
  code?: string;
  message?: string;
  syscall?: string;
  address?: string;
  port?: number;
  hostname?: string;
}

/** host:port of a URL (the scheme's port when none is written), IPv6 in brackets. */
function urlAddress(server: string | undefined): string | undefined {
  if (!server) return undefined;
  try {
    const u = new URL(server);
    return `${u.hostname}:${u.port || (u.protocol === 'https:' ? '443' : '80')}`;
  } catch {
    return undefined;
  }
}

// The reasons of Go's net package (the text of the syscall errors kubectl prints) for the codes
// Node reports on connect.
const CONNECT_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  EHOSTUNREACH: 'no route to host',
  ENETUNREACH: 'network is unreachable',
  EHOSTDOWN: 'host is down',
  ECONNRESET: 'connection reset by peer',
};

/**
 * A connection failure in the shape kubectl prints it (Go's net package: `dial tcp
 * 127.0.0.1:6443: connect: connection refused`, `dial tcp: lookup HOST: no such host`, `dial tcp
 * ADDR: i/o timeout`), naming the address and the reason, instead of fetch's bare `fetch failed`.
 * `server` (the API server URL) names the address where the error does not. Undefined when `err`
 * is no network failure; the socket error's own text for a failure Go words differently (TLS).
 */
export function connectionFailure(err: unknown, server?: string): string | undefined {
  const s = socketError(err);
  const requestTimeout = (err as { name?: unknown } | undefined)?.name === 'TimeoutError';
  const timedOut = s?.code === 'ETIMEDOUT' || s?.code === 'UND_ERR_CONNECT_TIMEOUT';
  if (!s && !requestTimeout) return undefined;
  const fromError =
    s?.address !== undefined && s.port !== undefined
      ? `${s.address.includes(':') ? `[${s.address}]` : s.address}:${s.port}`
      : undefined;
  const address = fromError ?? urlAddress(server);
  const dial = address ? `dial tcp ${address}` : 'dial tcp';
  if (timedOut) return `${dial}: i/o timeout`;
  if (!s) return `${address ?? 'the server'}: no answer within the request's timeout`;
  const code = s!.code;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    const host = s!.hostname ?? (server ? new URL(server).hostname : '?');
    return `dial tcp: lookup ${host}: ${code === 'ENOTFOUND' ? 'no such host' : 'temporary failure in name resolution'}`;
  }
  if (s!.message === 'bad port') {
    // The Fetch standard blocks a list of ports (1, 6000, 6665-6669, ...) before any connection.
    return `${dial}: not dialled: Node's fetch refuses this port (a "bad port" of the Fetch standard, https://fetch.spec.whatwg.org/#bad-port)`;
  }
  if (code !== undefined && CONNECT_REASONS[code] !== undefined && s!.syscall === 'connect')
    return `${dial}: connect: ${CONNECT_REASONS[code]}`;
  return s!.message;
}

/**
 * client-node's ApiException (its generated APIs' HTTP failure), told by its shape so that this
 * file does not load client-node (the kubectl plugin never does: docs/plugin.md): an Error with a
 * numeric `code`, a `body`, and the message client-node gives it (`HTTP-Code: 404 ...`).
 */
function isApiException(err: unknown): err is Error & { code: number; body: unknown } {
  return (
    err instanceof Error &&
    typeof (err as { code?: unknown }).code === 'number' &&
    'body' in err &&
    err.message.startsWith('HTTP-Code: ')
  );
}

/**
 * Any thrown value as a KubeError: an ApiException from client-node's generated APIs, a watch
 * failure carrying `statusCode`, a network error, or a KubeError already (returned as is).
 * `server`, the API server's URL, names the address of a connection failure that does not.
 */
export function toKubeError(err: unknown, what?: string, server?: string): KubeError {
  if (err instanceof KubeError) return err;
  if (isApiException(err)) return fromResponse(err.code, err.body, what);
  const e = err as { statusCode?: unknown; message?: unknown; name?: unknown } | undefined;
  if (e && typeof e.statusCode === 'number') return fromResponse(e.statusCode, undefined, what);
  const badPort = socketError(err)?.message === 'bad port';
  const code = networkCode(err) ?? (badPort ? BAD_PORT : undefined);
  const baseMessage = err instanceof Error ? err.message : String(err);
  const failure = code !== undefined || badPort ? connectionFailure(err, server) : undefined;
  const detail = failure ?? (code && !baseMessage.includes(code) ? `${baseMessage} (${code})` : baseMessage);
  const message = what ? `${what}: ${detail}` : detail;
  if (code && UNREACHABLE_CODES.has(code)) return new KubeError('Unreachable', message, { reason: code, cause: err });
  if (code && TRANSIENT_CODES.has(code)) return new KubeError('Transient', message, { reason: code, cause: err });
  return new KubeError('Other', message, { reason: code, cause: err });
}

/**
 * What a real API server answers, with code 422 and no details, when a JSON patch operation does
 * not apply (a failed `test`, a missing path): its patch handler keeps only this generic message
 * (k8s.io/apiserver, pkg/endpoints/handlers/patch.go, through NewGenericServerResponse).
 */
export const JSON_PATCH_NOT_APPLIED = 'the server rejected our request due to an error in our request';

/**
 * Whether a patch guarded by a `test` of the resourceVersion lost a race with another writer: a
 * JSON patch that no longer applies, or a Conflict. The caller reads again and plans again.
 */
export function isStalePatch(err: unknown): boolean {
  return (
    err instanceof KubeError &&
    (err.kind === 'Conflict' || (err.code === 422 && err.status?.message === JSON_PATCH_NOT_APPLIED))
  );
}

export function isKind(err: unknown, kind: KubeErrorKind): boolean {
  return err instanceof KubeError && err.kind === kind;
}

/** Errors worth retrying with backoff without alarm (the cluster is busy or briefly away). */
export function isRetryable(err: unknown): boolean {
  return (
    err instanceof KubeError && (err.kind === 'Conflict' || err.kind === 'Transient' || err.kind === 'Unreachable')
  );
}
