// Serving certificates: tls.crt and tls.key from a directory (cert-manager's Secret mounted), or a
// self-signed one made in memory at start, for HTTPS without a certificate directory: what controller-runtime's secure metrics server does when no certificate is given
// (https://pkg.go.dev/sigs.k8s.io/controller-runtime/pkg/metrics/server, Options.SecureServing and
// CertDir). A scraper then cannot verify it and skips verification (kubebuilder's ServiceMonitor
// says insecureSkipVerify); a certificate from a directory (cert-manager's) replaces it.
//
// node:crypto makes the key and signs, and parses certificates (X509Certificate), but does not
// build them: the few DER structures of an X.509 v3 certificate (RFC 5280, section 4.1) are written
// here, an ECDSA P-256 key signing with SHA-256, the hosts as subjectAltName entries.

import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import fs from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';

function der(tag: number, body: Buffer): Buffer {
  const n = body.length;
  const len = n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), len, body]);
}
const seq = (...parts: Buffer[]) => der(0x30, Buffer.concat(parts));
const set = (...parts: Buffer[]) => der(0x31, Buffer.concat(parts));

function oid(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  const bytes = [40 * arcs[0] + arcs[1]];
  for (const arc of arcs.slice(2)) {
    const base128 = [arc & 0x7f];
    for (let v = arc >>> 7; v > 0; v >>>= 7) base128.unshift((v & 0x7f) | 0x80);
    bytes.push(...base128);
  }
  return der(0x06, Buffer.from(bytes));
}

/**
 * A non-negative INTEGER from big-endian bytes, in DER's minimal form: leading zero bytes dropped
 * (a parser refuses them as "illegal padding"), one 0 byte in front when the top bit is set.
 */
export function integer(bytes: Buffer): Buffer {
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0) i++;
  const v = bytes.subarray(i);
  return der(0x02, v.length === 0 ? Buffer.from([0]) : v[0] & 0x80 ? Buffer.concat([Buffer.from([0]), v]) : v);
}

/** UTCTime through 2049, GeneralizedTime from 2050 (RFC 5280, 4.1.2.5). */
function time(ms: number): Buffer {
  const iso = new Date(ms).toISOString().replace(/[-:T]/g, '').slice(0, 14); // YYYYMMDDHHMMSS
  const year = Number(iso.slice(0, 4));
  return year < 2050 ? der(0x17, Buffer.from(`${iso.slice(2)}Z`)) : der(0x18, Buffer.from(`${iso}Z`));
}

const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';
const COMMON_NAME = '2.5.4.3';
const SUBJECT_ALT_NAME = '2.5.29.17';

/** subjectAltName entries: a dNSName ([2]) for a name, an iPAddress ([7]) for an address. */
function altNames(hosts: readonly string[]): Buffer {
  return seq(
    ...hosts.map((h) => {
      const ip = isIP(h);
      if (ip === 4) return der(0x87, Buffer.from(h.split('.').map(Number)));
      if (ip === 6) {
        const [head, tail = ''] = h.split('::');
        const part = (s: string) => (s === '' ? [] : s.split(':').map((x) => parseInt(x, 16)));
        const groups = h.includes('::')
          ? [...part(head), ...Array<number>(8 - part(head).length - part(tail).length).fill(0), ...part(tail)]
          : part(h);
        return der(0x87, Buffer.from(groups.flatMap((g) => [g >> 8, g & 0xff])));
      }
      return der(0x82, Buffer.from(h, 'ascii'));
    }),
  );
}

export interface ServingCertificate {
  /** PEM. */
  cert: string | Buffer;
  /** PEM (PKCS#8). */
  key: string | Buffer;
}

/** tls.crt and tls.key from `certDir`, when both exist. */
export function readCertDir(certDir: string | undefined): ServingCertificate | undefined {
  if (!certDir) return undefined;
  const crt = path.join(certDir, 'tls.crt');
  const key = path.join(certDir, 'tls.key');
  if (!fs.existsSync(crt) || !fs.existsSync(key)) return undefined;
  return { cert: fs.readFileSync(crt), key: fs.readFileSync(key) };
}

/** A certificate for `hosts` (the first is also the common name), valid from an hour before `now` for `days` days. */
export function selfSignedCertificate(
  hosts: readonly string[],
  now = Date.now(),
  days = 365,
): { cert: string; key: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const name = seq(set(seq(oid(COMMON_NAME), der(0x0c, Buffer.from(hosts[0] ?? 'pacer', 'utf8')))));
  const serial = randomBytes(16);
  serial[0] = (serial[0] & 0x7f) | 0x01; // positive, and 16 bytes long in DER (RFC 5280: at most 20)
  const tbs = seq(
    der(0xa0, integer(Buffer.from([2]))), // v3
    integer(serial),
    seq(oid(ECDSA_WITH_SHA256)),
    name,
    seq(time(now - 3600_000), time(now + days * 86_400_000)),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    der(0xa3, seq(seq(oid(SUBJECT_ALT_NAME), der(0x04, altNames(hosts))))),
  );
  const signature = sign('sha256', tbs, privateKey);
  const cert = seq(tbs, seq(oid(ECDSA_WITH_SHA256)), der(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const pem = (label: string, body: Buffer) =>
    `-----BEGIN ${label}-----\n${body.toString('base64').replace(/.{1,64}/g, '$&\n')}-----END ${label}-----\n`;
  return { cert: pem('CERTIFICATE', cert), key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string };
}
