// The seam between the API server core (store.ts, server.ts) and src/sim/schema/: every schema
// operation the core uses, named in one place (CRD defaulting, validation and compilation,
// custom-resource admission, OpenAPI v3 documents, the v2 frame and Table conversion, and JSON
// with sorted keys as Go marshals an unstructured object).

import { compileCRD, defaultCRD, establishedStatus, resourceInfoFor, validateCRD } from './schema/crd.ts';
import { admitCustomResource } from './schema/admit.ts';
import { openApiGroupVersion, openApiRoot } from './schema/openapi.ts';
import {
  OPENAPI_V2_PROTOBUF_ACCEPT,
  OPENAPI_V2_PROTOBUF_TYPE,
  openApiV2,
  openApiV2Protobuf,
} from './schema/openapiv2.ts';
import { toTable } from './schema/table.ts';
import { canonical } from './schema/types.ts';

export type { CompiledCRD, ServedVersion } from './schema/crd.ts';
export type { AdmitResult } from './schema/admit.ts';
export type { TableOptions } from './schema/table.ts';

export const schema = {
  defaultCRD,
  validateCRD,
  compileCRD,
  establishedStatus,
  resourceInfoFor,
  admitCustomResource,
  openApiRoot,
  openApiGroupVersion,
  openApiV2,
  openApiV2Protobuf,
  OPENAPI_V2_PROTOBUF_ACCEPT,
  OPENAPI_V2_PROTOBUF_TYPE,
  toTable,
  canonical,
};
