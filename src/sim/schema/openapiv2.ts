// GET /openapi/v2 (docs/simulated-api-server.md#openapi): the OpenAPI v2 document's frame, without
// paths or definitions. kubectl reads v2 in one case the v3 documents do not cover: a `kind: List`
// file (v1 List is in no group-version's v3 document), whose validation falls back to v2. With
// this frame kubectl finds no schema of its own for the List's items and leaves them to the
// server, which validates each one as it is written (`fieldValidation=Strict`, which kubectl sends
// on every write). client-go asks for the protobuf form only (gnostic's openapi_v2.Document,
// github.com/google/gnostic-models/openapiv2/OpenAPIv2.proto); the JSON form is served to anyone
// who asks for JSON.

import { KUBE_VERSION } from '../version.ts';

/** The media type client-go's discovery client asks for, and the one the API server answers with. */
export const OPENAPI_V2_PROTOBUF_ACCEPT = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
export const OPENAPI_V2_PROTOBUF_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

export interface OpenApiV2Frame {
  swagger: '2.0';
  info: { title: string; version: string };
  paths: Record<string, never>;
  definitions: Record<string, never>;
}

export function openApiV2(): OpenApiV2Frame {
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: KUBE_VERSION.gitVersion },
    paths: {},
    definitions: {},
  };
}

// Protocol buffers' wire format, as far as this document needs it: length-delimited fields
// (wire type 2) holding strings and nested messages (protobuf.dev/programming-guides/encoding).
function varint(n: number): Buffer {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return Buffer.from(out);
}

function field(num: number, body: Buffer): Buffer {
  return Buffer.concat([varint((num << 3) | 2), varint(body.length), body]);
}

const text = (num: number, s: string) => field(num, Buffer.from(s, 'utf8'));

/** The frame as gnostic's Document: swagger = 1, info = 2 (title = 1, version = 2), paths = 8, definitions = 9. */
export function openApiV2Protobuf(doc: OpenApiV2Frame = openApiV2()): Buffer {
  return Buffer.concat([
    text(1, doc.swagger),
    field(2, Buffer.concat([text(1, doc.info.title), text(2, doc.info.version)])),
    field(8, Buffer.alloc(0)),
    field(9, Buffer.alloc(0)),
  ]);
}
