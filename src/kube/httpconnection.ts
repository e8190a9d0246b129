// The plugin's and the controller's requests over Node's own http and https, with the credentials of a
// kubeconfig read by kubeconfig.ts: a bearer token (or a token file, read again after a minute as
// client-go does), a client certificate and key, basic auth, impersonation (`as`), the cluster's
// CA, insecure-skip-tls-verify and tls-server-name. What it cannot carry (exec plugins, auth
// providers, proxies: kubeconfig.ts's needsClientNode) goes through client-node (clientnode.ts).
//
// node:https (and with it tls and crypto) is loaded only for an https server, through
// process.getBuiltinModule, so that a plain-http cluster (the simulated one) never loads it.
// Failures are Node's own socket errors (`connect ECONNREFUSED 127.0.0.1:1`, with code, syscall,
// address and port), which errors.ts words as kubectl does; an aborted request rejects with its
// signal's reason, as fetch does, so a timeout reads the same through either connection.

import type { Agent as HttpAgent, IncomingMessage, RequestOptions } from 'node:http';
import { readFileSync } from 'node:fs';
import type { KubeconfigCluster, KubeconfigUser } from './kubeconfig.ts';
import type { Connection, WireRequest, WireResponse } from './wire.ts';

/** How long a token file's content is used before it is read again (client-go: a minute). */
export const TOKEN_FILE_TTL_MS = 60_000;

/** The bytes of a `-data` field (base64) or of the file named, or undefined for neither. */
function bytes(what: string, file: string | undefined, data: string | undefined): Buffer | undefined {
  if (file !== undefined) {
    try {
      return readFileSync(file);
    } catch (err) {
      throw new Error(
        `${what} ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`,
      );
    }
  }
  return data === undefined ? undefined : Buffer.from(data, 'base64');
}

/**
 * How long a kept connection may sit idle before it is closed (undici's keepAliveTimeout, which
 * client-node's fetch used: 4 s). A server closes idle connections too (Go's http.Server after its
 * IdleTimeout), and a request sent on one just as the server closes it fails with ECONNRESET: closing first, on
 * the client's side, keeps that race away. A request in flight (a watch waiting for its next event)
 * is not closed by it: the timeout only ends connections in the free pool.
 */
export const IDLE_CONNECTION_MS = 4_000;

/** For tests: the clock a token file's age is measured on (default Date.now), the idle limit. */
export interface HttpConnectionOptions {
  now?: () => number;
  idleConnectionMs?: number;
}

export class HttpConnection implements Connection {
  readonly server: string;
  readonly clusterName: string | undefined;
  private readonly url: URL;
  private readonly user: KubeconfigUser | undefined;
  private readonly agent: HttpAgent;
  private readonly request: typeof import('node:http').request;
  private token?: { value: string; readAt: number };
  private readonly now: () => number;

  constructor(cluster: KubeconfigCluster, user: KubeconfigUser | undefined, opts: HttpConnectionOptions = {}) {
    this.now = opts.now ?? Date.now;
    const idle = opts.idleConnectionMs ?? IDLE_CONNECTION_MS;
    this.server = cluster.server.replace(/\/+$/, '');
    this.clusterName = cluster.name;
    this.user = user;
    try {
      this.url = new URL(this.server);
    } catch {
      throw new Error(`cluster "${cluster.name}": server ${JSON.stringify(cluster.server)} is not a URL`);
    }
    if (this.url.protocol === 'https:') {
      const https = process.getBuiltinModule('node:https');
      const cert = bytes('client-certificate', user?.certFile, user?.certData);
      const key = bytes('client-key', user?.keyFile, user?.keyData);
      this.agent = new https.Agent({
        keepAlive: true,
        timeout: idle,
        ca: bytes('certificate-authority', cluster.caFile, cluster.caData),
        cert,
        key,
        // Only when the kubeconfig says so: otherwise Node's default (NODE_TLS_REJECT_UNAUTHORIZED).
        ...(cluster.skipTLSVerify ? { rejectUnauthorized: false } : {}),
        ...(cluster.tlsServerName !== undefined ? { servername: cluster.tlsServerName } : {}),
      });
      this.request = https.request;
    } else if (this.url.protocol === 'http:') {
      const http = process.getBuiltinModule('node:http');
      this.agent = new http.Agent({ keepAlive: true, timeout: idle });
      this.request = http.request;
    } else {
      throw new Error(
        `cluster "${cluster.name}": server ${JSON.stringify(cluster.server)}: only http and https are supported`,
      );
    }
  }

  /** The Authorization and Impersonate-User headers of the user. */
  private authHeaders(): Record<string, string> {
    const u = this.user;
    const h: Record<string, string> = {};
    if (!u) return h;
    if (u.username !== undefined) {
      h.Authorization = `Basic ${Buffer.from(`${u.username}:${u.password ?? ''}`).toString('base64')}`;
    }
    const token = u.token ?? this.tokenFromFile();
    if (token !== undefined) h.Authorization = `Bearer ${token}`;
    if (u.impersonateUser !== undefined) h['Impersonate-User'] = u.impersonateUser;
    return h;
  }

  private tokenFromFile(): string | undefined {
    const file = this.user?.tokenFile;
    if (file === undefined) return undefined;
    const now = this.now();
    if (this.token === undefined || now - this.token.readAt > TOKEN_FILE_TTL_MS) {
      let value: string;
      try {
        value = readFileSync(file, 'utf8').trim();
      } catch (err) {
        throw new Error(
          `tokenFile ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`,
        );
      }
      this.token = { value, readAt: now };
    }
    return this.token.value;
  }

  send(req: WireRequest): Promise<WireResponse> {
    const { signal } = req;
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const url = new URL(this.server + req.path);
      const headers: Record<string, string | number> = { ...req.headers, ...this.authHeaders() };
      // Said outright: Node sends a DELETE's body (DeleteOptions) neither sized nor chunked otherwise.
      if (req.body !== undefined) headers['Content-Length'] = Buffer.byteLength(req.body);
      const options: RequestOptions = { method: req.method, headers, agent: this.agent };
      const r = this.request(url, options, (res) => resolve(response(res, signal)));
      r.on('error', (err) => reject(signal.aborted ? signal.reason : err));
      // The abort is wired here, not through the request's `signal` option: Node's destroys the
      // request with an AbortError even when its answer has all arrived (a watch's last event read,
      // the caller stopping on it), and that error then reaches no listener: an uncaught exception.
      // Destroyed without an error, a request in flight fails ("socket hang up") and an answer
      // still coming ends ("aborted"), both read as the signal's reason; a finished one is left.
      const onAbort = (): void => void r.destroy();
      signal.addEventListener('abort', onAbort, { once: true });
      r.once('close', () => signal.removeEventListener('abort', onAbort));
      r.end(req.body);
    });
  }
}

/** A response whose body fails with the signal's reason once it is aborted. */
function response(res: IncomingMessage, signal: AbortSignal): WireResponse {
  async function* chunks(): AsyncIterable<Uint8Array> {
    try {
      for await (const chunk of res) {
        if (signal.aborted) break;
        yield chunk as Uint8Array;
      }
    } catch (err) {
      throw signal.aborted ? signal.reason : err;
    }
    // Aborted after the last byte came: the reading still ends with the signal's reason.
    if (signal.aborted) throw signal.reason;
  }
  return {
    status: res.statusCode ?? 0,
    header: (name) => {
      const v = res.headers[name.toLowerCase()];
      return Array.isArray(v) ? v[0] : v;
    },
    text: async () => {
      const parts: Buffer[] = [];
      for await (const chunk of chunks()) parts.push(chunk as Buffer);
      return Buffer.concat(parts).toString('utf8');
    },
    stream: () => chunks(),
  };
}
