// Whether a request may reach the dashboard at all: its Host header names this server (DNS
// rebinding is refused), and a POST comes from one of its own pages (Sec-Fetch-Site or Origin);
// and the security headers every answer carries. server.ts applies them to each request.

import type http from 'node:http';
import { isIP } from 'node:net';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1']);

/** Headers on every answer: no framing, no sniffing, scripts and connections to this origin only. */
export const SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

/** The host (without brackets) and port of a Host header; undefined when it is not one. */
export function parseHost(h: string | undefined): { name: string; port: number } | undefined {
  if (h === undefined) return undefined;
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+))(?::([0-9]{1,5}))?$/.exec(h);
  if (!m) return undefined;
  return { name: (m[1] ?? m[2]).toLowerCase(), port: m[3] === undefined ? 80 : Number(m[3]) };
}

export function isWildcard(address: string): boolean {
  return address === '0.0.0.0' || address === '::';
}

/**
 * Whether a request's Host header names this server: its port, and a loopback name, the address
 * it listens on, or (listening on every interface) any IP address. A DNS name is refused unless it
 * is localhost: a page of another site whose name was pointed at this machine (DNS rebinding)
 * reaches the server with its own name in Host.
 */
export function hostAllowed(host: string | undefined, address: string, port: number): boolean {
  const h = parseHost(host);
  if (!h || h.port !== port) return false;
  if (LOOPBACK.has(h.name) || h.name === address.toLowerCase()) return true;
  return isWildcard(address) && isIP(h.name) !== 0;
}

/**
 * Whether a POST comes from a page of this server: Sec-Fetch-Site says same-origin (every current
 * browser sends it), or, without it, Origin is this server's. A request with neither is refused:
 * curl and scripts add `-H "Origin: http://HOST:PORT"`.
 */
export function sameOrigin(headers: http.IncomingHttpHeaders): boolean {
  const site = headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin';
  const origin = headers.origin;
  if (origin === undefined || headers.host === undefined) return false;
  return origin === `http://${headers.host}`;
}
