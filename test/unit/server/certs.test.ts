// The self-signed serving certificate: Node's own X.509 parser reads it, its signature verifies
// with its key, it names every host, and a TLS client that trusts it connects to a server using it.

import { expect } from 'chai';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { createServer } from 'node:https';
import { request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { integer, selfSignedCertificate } from '../../../src/server/certs.ts';

describe('server/certs: DER INTEGERs in minimal form', () => {
  // A random serial starting 00 0x (x < 8) once came out with a padding byte, which OpenSSL refuses
  // ("illegal padding"): about one certificate in 256.
  const rows: Array<[string, number[], string]> = [
    ['a small number', [0x05], '020105'],
    ['zero', [0x00], '020100'],
    ['a leading zero byte dropped', [0x00, 0x05], '020105'],
    ['leading zeros dropped, one kept before a set top bit', [0x00, 0x00, 0x80], '02020080'],
    ['a set top bit gets a zero byte in front', [0x80, 0x01], '0203008001'],
    ['two bytes, top bit clear', [0x7f, 0xff], '02027fff'],
  ];
  for (const [name, bytes, hex] of rows) {
    it(`${name}: ${Buffer.from(bytes).toString('hex')} → ${hex}`, () => {
      expect(integer(Buffer.from(bytes)).toString('hex')).to.equal(hex);
    });
  }
});

describe('server/certs: a serving certificate made in memory', () => {
  const now = Date.parse('2026-11-24T10:00:00Z');
  const { cert, key } = selfSignedCertificate(
    ['pacer-controller-metrics.pacer-system.svc', 'localhost', '127.0.0.1', '::1'],
    now,
    30,
  );
  const x = new X509Certificate(cert);

  it('is an X.509 certificate signed by its own key, for the hosts asked, valid from an hour before now for the days asked', () => {
    expect(x.verify(x.publicKey)).to.equal(true);
    expect(x.checkPrivateKey(createPrivateKey(key))).to.equal(true);
    expect(x.subject).to.equal('CN=pacer-controller-metrics.pacer-system.svc');
    expect(x.issuer).to.equal(x.subject);
    expect(x.subjectAltName).to.equal(
      'DNS:pacer-controller-metrics.pacer-system.svc, DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1',
    );
    expect(new Date(x.validFrom).toISOString()).to.equal('2026-11-24T09:00:00.000Z');
    expect(new Date(x.validTo).toISOString()).to.equal('2026-12-24T10:00:00.000Z');
    expect(x.checkHost('localhost')).to.equal('localhost');
    expect(x.checkIP('127.0.0.1')).to.equal('127.0.0.1');
    expect(x.checkHost('example.com')).to.equal(undefined);
  });

  it('a year after 2049 is written as GeneralizedTime, and still read', () => {
    const later = new X509Certificate(selfSignedCertificate(['x'], Date.parse('2049-12-31T00:00:00Z'), 10).cert);
    expect(new Date(later.validTo).toISOString()).to.equal('2050-01-10T00:00:00.000Z');
  });

  it('a client that trusts it completes a TLS handshake with a server that uses it', async () => {
    const real = selfSignedCertificate(['localhost', '127.0.0.1']);
    const server = createServer({ cert: real.cert, key: real.key }, (_req, res) => res.end('ok'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const body = await new Promise<string>((resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port: (server.address() as AddressInfo).port, ca: real.cert, path: '/' },
          (res) => {
            let text = '';
            res.on('data', (c: Buffer) => {
              text += c.toString();
            });
            res.on('end', () => resolve(text));
          },
        );
        req.on('error', reject);
        req.end();
      });
      expect(body).to.equal('ok');
    } finally {
      server.close();
    }
  });
});
