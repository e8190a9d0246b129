// Request bodies in Kubernetes' protobuf encoding, for the few kinds `kubectl create` sends that
// way (docs/simulated-api-server.md#protobuf-request-bodies). kubectl's typed clients send built-in
// kinds as `Content-Type: application/vnd.kubernetes.protobuf` and do not retry as JSON on a 415
// (client-go falls back to JSON only after a 415 to CBOR: kubernetes/kubernetes#128497), so
// `kubectl create namespace|configmap|secret` need this to work at all.
//
// The wire format (https://kubernetes.io/docs/reference/using-api/api-concepts/#protobuf-encoding):
// the four bytes `k8s\0`, then a runtime.Unknown message whose `raw` holds the object's own
// message. Decoded by hand, field by field, with the field numbers of the .proto files the Go types
// are generated from:
//
//   k8s.io/apimachinery/pkg/runtime/generated.proto
//     Unknown   { TypeMeta typeMeta = 1; bytes raw = 2; string contentEncoding = 3; string contentType = 4; }
//     TypeMeta  { string apiVersion = 1; string kind = 2; }
//   k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto
//     ObjectMeta { name = 1; generateName = 2; namespace = 3; selfLink = 4; uid = 5;
//                  resourceVersion = 6; int64 generation = 7; Time creationTimestamp = 8;
//                  Time deletionTimestamp = 9; int64 deletionGracePeriodSeconds = 10;
//                  map labels = 11; map annotations = 12; OwnerReference ownerReferences = 13;
//                  repeated string finalizers = 14; ManagedFieldsEntry managedFields = 17; }
//     OwnerReference { kind = 1; name = 3; uid = 4; apiVersion = 5; bool controller = 6;
//                      bool blockOwnerDeletion = 7; }
//   k8s.io/api/core/v1/generated.proto
//     Namespace      { ObjectMeta metadata = 1; NamespaceSpec spec = 2; NamespaceStatus status = 3; }
//     NamespaceSpec  { repeated string finalizers = 1; }   NamespaceStatus { string phase = 1; ... }
//     ConfigMap      { metadata = 1; map<string,string> data = 2; map<string,bytes> binaryData = 3;
//                      bool immutable = 4; }
//     Secret         { metadata = 1; map<string,bytes> data = 2; string type = 3;
//                      map<string,string> stringData = 4; bool immutable = 5; }
//
// A map is a repeated entry message { key = 1; value = 2; }. Go writes every optional string, even
// empty: an empty one reads as absent, as its JSON form (omitempty) would be. A field this decoder
// does not know, present in a body, is refused (400 naming it) rather than dropped; another kind is
// a 415 naming the kinds decoded.

import { ApiError } from './types.ts';
import type { KubeObject } from './types.ts';

export const PROTOBUF_CONTENT_TYPE = 'application/vnd.kubernetes.protobuf';
const MAGIC = Buffer.from('k8s\0', 'latin1');

/** The fields of one message: field number to the values in order (varints as bigint, the rest as bytes). */
type Fields = Map<number, Array<bigint | Buffer>>;

function readVarint(buf: Buffer, at: number): [bigint, number] {
  let value = 0n;
  let shift = 0n;
  for (let i = at; i < buf.length && shift < 70n; i++) {
    const b = buf[i];
    value |= BigInt(b & 0x7f) << shift;
    if ((b & 0x80) === 0) return [value, i + 1];
    shift += 7n;
  }
  throw new ApiError(400, 'BadRequest', 'the protobuf body is truncated (a varint runs past its end)');
}

/** Splits a message into its fields (wire types 0, varint; 1, 64-bit; 2, length-delimited; 5, 32-bit). */
function fields(buf: Buffer, what: string): Fields {
  const out: Fields = new Map();
  let at = 0;
  while (at < buf.length) {
    const [key, next] = readVarint(buf, at);
    at = next;
    const field = Number(key >> 3n);
    const wire = Number(key & 7n);
    let value: bigint | Buffer;
    if (wire === 0) {
      [value, at] = readVarint(buf, at);
    } else if (wire === 2) {
      const [len, start] = readVarint(buf, at);
      const end = start + Number(len);
      if (end > buf.length) throw new ApiError(400, 'BadRequest', `the protobuf body of ${what} is truncated`);
      value = buf.subarray(start, end);
      at = end;
    } else if (wire === 1 || wire === 5) {
      const size = wire === 1 ? 8 : 4;
      value = buf.subarray(at, at + size);
      at += size;
    } else {
      throw new ApiError(400, 'BadRequest', `the protobuf body of ${what} has field ${field} of wire type ${wire}`);
    }
    const list = out.get(field);
    if (list) list.push(value);
    else out.set(field, [value]);
  }
  return out;
}

const bytesOf = (v: bigint | Buffer | undefined): Buffer | undefined => (Buffer.isBuffer(v) ? v : undefined);
const str = (f: Fields, n: number): string | undefined => {
  const b = bytesOf(f.get(n)?.at(-1));
  const s = b?.toString('utf8');
  return s === '' ? undefined : s;
};
const strs = (f: Fields, n: number): string[] => (f.get(n) ?? []).map((v) => bytesOf(v)?.toString('utf8') ?? '');
const bool = (f: Fields, n: number): boolean | undefined => {
  const v = f.get(n)?.at(-1);
  return typeof v === 'bigint' ? v !== 0n : undefined;
};
const int = (f: Fields, n: number): number | undefined => {
  const v = f.get(n)?.at(-1);
  return typeof v === 'bigint' ? Number(BigInt.asIntN(64, v)) : undefined;
};

/** A map<string, string|bytes> field; bytes values as base64 (their JSON form). */
function map(f: Fields, n: number, values: 'string' | 'bytes', what: string): Record<string, string> | undefined {
  const entries = f.get(n);
  if (!entries?.length) return undefined;
  const out: Record<string, string> = {};
  for (const e of entries) {
    const entry = fields(bytesOf(e) ?? Buffer.alloc(0), what);
    const key = bytesOf(entry.get(1)?.at(-1))?.toString('utf8') ?? '';
    const value = bytesOf(entry.get(2)?.at(-1)) ?? Buffer.alloc(0);
    out[key] = values === 'bytes' ? value.toString('base64') : value.toString('utf8');
  }
  return out;
}

/** Refuses a field outside `known` that carries something (an empty message or string is nothing). */
function onlyKnown(f: Fields, known: readonly number[], what: string): void {
  for (const [n, values] of f) {
    if (known.includes(n)) continue;
    if (values.every((v) => Buffer.isBuffer(v) && v.length === 0)) continue;
    throw new ApiError(
      400,
      'BadRequest',
      `the simulated API server does not decode field ${n} of ${what} from protobuf (send it as JSON: kubectl create -f FILE.yaml, or kubectl apply)`,
    );
  }
}

function time(f: Fields, n: number, what: string): string | undefined {
  const b = bytesOf(f.get(n)?.at(-1));
  if (!b || b.length === 0) return undefined;
  const t = fields(b, what);
  const seconds = int(t, 1) ?? 0;
  return seconds === 0 ? undefined : new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function objectMeta(b: Buffer | undefined, what: string): Record<string, unknown> {
  if (!b) return {};
  const what2 = `${what}.metadata`;
  const f = fields(b, what2);
  onlyKnown(f, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17], what2);
  const owners = (f.get(13) ?? []).map((v) => {
    const o = fields(bytesOf(v) ?? Buffer.alloc(0), `${what2}.ownerReferences`);
    return {
      ...(str(o, 5) !== undefined ? { apiVersion: str(o, 5) } : {}),
      ...(str(o, 1) !== undefined ? { kind: str(o, 1) } : {}),
      ...(str(o, 3) !== undefined ? { name: str(o, 3) } : {}),
      ...(str(o, 4) !== undefined ? { uid: str(o, 4) } : {}),
      ...(bool(o, 6) !== undefined ? { controller: bool(o, 6) } : {}),
      ...(bool(o, 7) !== undefined ? { blockOwnerDeletion: bool(o, 7) } : {}),
    };
  });
  const meta: Record<string, unknown> = {
    name: str(f, 1),
    generateName: str(f, 2),
    namespace: str(f, 3),
    uid: str(f, 5),
    resourceVersion: str(f, 6),
    creationTimestamp: time(f, 8, what2),
    labels: map(f, 11, 'string', what2),
    annotations: map(f, 12, 'string', what2),
    ownerReferences: owners.length ? owners : undefined,
    finalizers: f.get(14)?.length ? strs(f, 14) : undefined,
  };
  // managedFields (17) and the server-set generation (7), selfLink (4), deletion fields (9, 10)
  // are the server's to set: left out, as a server drops them from a create.
  return Object.fromEntries(Object.entries(meta).filter(([, v]) => v !== undefined));
}

/** The kinds decoded: their field numbers (see the header) and how each becomes JSON. */
const KINDS: Record<string, { known: number[]; decode: (f: Fields, what: string) => Record<string, unknown> }> = {
  'v1/Namespace': {
    known: [1, 2, 3],
    decode: (f, what) => {
      const spec = bytesOf(f.get(2)?.at(-1));
      const s = spec ? fields(spec, `${what}.spec`) : new Map();
      if (spec) onlyKnown(s, [1], `${what}.spec`);
      const finalizers = s.get(1)?.length ? strs(s, 1) : undefined;
      return finalizers ? { spec: { finalizers } } : {};
    },
  },
  'v1/ConfigMap': {
    known: [1, 2, 3, 4],
    decode: (f, what) => ({
      ...(map(f, 2, 'string', what) ? { data: map(f, 2, 'string', what) } : {}),
      ...(map(f, 3, 'bytes', what) ? { binaryData: map(f, 3, 'bytes', what) } : {}),
      ...(bool(f, 4) !== undefined ? { immutable: bool(f, 4) } : {}),
    }),
  },
  'v1/Secret': {
    known: [1, 2, 3, 4, 5],
    decode: (f, what) => ({
      ...(map(f, 2, 'bytes', what) ? { data: map(f, 2, 'bytes', what) } : {}),
      ...(str(f, 3) !== undefined ? { type: str(f, 3) } : {}),
      ...(map(f, 4, 'string', what) ? { stringData: map(f, 4, 'string', what) } : {}),
      ...(bool(f, 5) !== undefined ? { immutable: bool(f, 5) } : {}),
    }),
  },
};

/** The kinds whose protobuf bodies the simulated API server reads, as `v1/Kind`. */
export const PROTOBUF_KINDS = Object.keys(KINDS);

export function isProtobuf(contentType: string, body: Buffer): boolean {
  return contentType === PROTOBUF_CONTENT_TYPE || (body.length >= 4 && body.subarray(0, 4).equals(MAGIC));
}

/** The JSON object of a protobuf request body (`k8s\0` + runtime.Unknown). */
export function decodeProtobufObject(body: Buffer): KubeObject {
  if (body.length < 4 || !body.subarray(0, 4).equals(MAGIC))
    throw new ApiError(400, 'BadRequest', 'the protobuf body does not start with the prefix "k8s\\x00"');
  const unknown = fields(body.subarray(4), 'runtime.Unknown');
  const typeMetaBytes = bytesOf(unknown.get(1)?.at(-1));
  const typeMeta = typeMetaBytes ? fields(typeMetaBytes, 'runtime.TypeMeta') : new Map();
  const apiVersion = str(typeMeta, 1) ?? '';
  const kind = str(typeMeta, 2) ?? '';
  const encoding = str(unknown, 3);
  if (encoding !== undefined)
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      `the protobuf body's contentEncoding "${encoding}" is not supported`,
    );
  const decoder = KINDS[`${apiVersion}/${kind}`];
  if (!decoder)
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      `the simulated API server decodes protobuf bodies of ${PROTOBUF_KINDS.map((k) => k.split('/')[1]).join(', ')} only, got ${apiVersion}/${kind}; accepted media types include: application/json, application/yaml`,
    );
  const what = `${apiVersion === 'v1' ? 'v1' : apiVersion}.${kind}`;
  const raw = fields(bytesOf(unknown.get(2)?.at(-1)) ?? Buffer.alloc(0), what);
  onlyKnown(raw, decoder.known, what);
  return {
    apiVersion,
    kind,
    metadata: objectMeta(bytesOf(raw.get(1)?.at(-1)), what),
    ...decoder.decode(raw, what),
  } as KubeObject;
}
