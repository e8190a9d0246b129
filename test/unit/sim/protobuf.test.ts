// Protobuf request bodies (src/sim/protobuf.ts): kubectl's own bytes, then messages built here
// field by field with the numbers of k8s.io/api's and k8s.io/apimachinery's generated.proto.

import { expect } from 'chai';
import { decodeProtobufObject, isProtobuf } from '../../../src/sim/protobuf.ts';
import { apiError } from './api-error.ts';

/** A varint. */
function varint(n: number | bigint): Buffer {
  let v = BigInt(n);
  const out: number[] = [];
  do {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v > 0n ? b | 0x80 : b);
  } while (v > 0n);
  return Buffer.from(out);
}
/** Field `n` as a length-delimited value (a string, bytes or a message). */
const len = (n: number, v: string | Buffer): Buffer => {
  const b = typeof v === 'string' ? Buffer.from(v, 'utf8') : v;
  return Buffer.concat([varint((n << 3) | 2), varint(b.length), b]);
};
/** Field `n` as a varint (a bool or an integer). */
const num = (n: number, v: number | boolean): Buffer => Buffer.concat([varint(n << 3), varint(Number(v))]);
const msg = (...parts: Buffer[]): Buffer => Buffer.concat(parts);
/** A map entry { key = 1; value = 2 }. */
const entry = (n: number, key: string, value: string | Buffer) => len(n, msg(len(1, key), len(2, value)));
/** `k8s\0` + runtime.Unknown { typeMeta = 1 { apiVersion = 1; kind = 2 }; raw = 2 }. */
const envelope = (apiVersion: string, kind: string, raw: Buffer): Buffer =>
  Buffer.concat([Buffer.from('k8s\0', 'latin1'), len(1, msg(len(1, apiVersion), len(2, kind))), len(2, raw)]);

describe('sim/protobuf: request bodies in Kubernetes protobuf', () => {
  it('`kubectl create namespace demo` as kubectl v1.36.4 sent it (its -v=9 trace)', () => {
    const bytes = Buffer.from(
      '6b3873000a0f0a02763112094e616d657370616365121c0a140a0464656d6f12001a0022002a00320038004200120' +
        '01a020a001a002200',
      'hex',
    );
    expect(isProtobuf('application/vnd.kubernetes.protobuf', bytes)).to.equal(true);
    expect(decodeProtobufObject(bytes)).to.deep.equal({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'demo' },
    });
  });

  const rows: Array<[string, Buffer, object]> = [
    [
      'a Namespace with finalizers (NamespaceSpec.finalizers = 1)',
      envelope(
        'v1',
        'Namespace',
        msg(len(1, len(1, 'ops')), len(2, msg(len(1, 'kubernetes'), len(1, 'example.com/x')))),
      ),
      {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'ops' },
        spec: { finalizers: ['kubernetes', 'example.com/x'] },
      },
    ],
    [
      'a ConfigMap: labels (11), annotations (12), data (2), binaryData (3, base64), immutable (4)',
      envelope(
        'v1',
        'ConfigMap',
        msg(
          len(
            1,
            msg(
              len(1, 'settings'),
              len(3, 'demo'),
              entry(11, 'app', 'web'),
              entry(11, 'tier', 'front'),
              entry(12, 'note', 'hello'),
            ),
          ),
          entry(2, 'a', 'b'),
          entry(2, 'empty', ''),
          entry(3, 'blob', Buffer.from([0, 1, 2, 255])),
          num(4, true),
        ),
      ),
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: 'settings',
          namespace: 'demo',
          labels: { app: 'web', tier: 'front' },
          annotations: { note: 'hello' },
        },
        data: { a: 'b', empty: '' },
        binaryData: { blob: 'AAEC/w==' },
        immutable: true,
      },
    ],
    [
      'a Secret: data (2, bytes as base64), type (3), stringData (4), immutable false (5)',
      envelope(
        'v1',
        'Secret',
        msg(len(1, len(1, 's')), entry(2, 'a', 'b'), len(3, 'Opaque'), entry(4, 'plain', 'text'), num(5, false)),
      ),
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 's' },
        data: { a: 'Yg==' },
        type: 'Opaque',
        stringData: { plain: 'text' },
        immutable: false,
      },
    ],
    [
      'ObjectMeta: generateName (2), finalizers (14), an owner reference (13: kind 1, name 3, uid 4, apiVersion 5, controller 6)',
      envelope(
        'v1',
        'ConfigMap',
        msg(
          len(
            1,
            msg(
              len(1, ''),
              len(2, 'cfg-'),
              len(14, 'example.com/keep'),
              len(13, msg(len(1, 'ReplicaSet'), len(3, 'web-1'), len(4, 'u-1'), len(5, 'apps/v1'), num(6, true))),
              len(8, msg()), // creationTimestamp, empty: the server's to set
            ),
          ),
        ),
      ),
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          generateName: 'cfg-',
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: 'u-1', controller: true }],
          finalizers: ['example.com/keep'],
        },
      },
    ],
  ];
  for (const [name, bytes, want] of rows) {
    it(name, () => {
      expect(decodeProtobufObject(bytes)).to.deep.equal(want);
    });
  }

  const refused: Array<[string, Buffer, number, string]> = [
    [
      'a kind not decoded: 415 naming the kinds that are',
      envelope('apps/v1', 'Deployment', len(1, len(1, 'web'))),
      415,
      'the simulated API server decodes protobuf bodies of Namespace, ConfigMap, Secret only, got apps/v1/Deployment; accepted media types include: application/json, application/yaml',
    ],
    [
      'a field not decoded, carrying something: 400 naming it (not dropped)',
      envelope('v1', 'ConfigMap', msg(len(1, len(1, 'x')), len(9, 'surprise'))),
      400,
      'the simulated API server does not decode field 9 of v1.ConfigMap from protobuf (send it as JSON: kubectl create -f FILE.yaml, or kubectl apply)',
    ],
    [
      'no k8s\\0 prefix',
      Buffer.from('{"kind":"Namespace"}'),
      400,
      'the protobuf body does not start with the prefix "k8s\\x00"',
    ],
    [
      'a length past the end',
      Buffer.concat([Buffer.from('k8s\0', 'latin1'), Buffer.from([0x12, 0x40, 0x0a])]),
      400,
      'the protobuf body of runtime.Unknown is truncated',
    ],
  ];
  for (const [name, bytes, code, message] of refused) {
    it(name, () => {
      const e = apiError(() => decodeProtobufObject(bytes));
      expect([e.code, e.message]).to.deep.equal([code, message]);
    });
  }

  it('is told by its Content-Type or, without one, by its prefix', () => {
    expect(isProtobuf('application/json', Buffer.from('k8s\0...', 'latin1'))).to.equal(true);
    expect(isProtobuf('application/json', Buffer.from('{}'))).to.equal(false);
  });
});
