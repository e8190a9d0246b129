// The seam between the API server core and the schema work package (src/sim/schema/): CRD
// defaulting, validation and compilation, custom-resource admission, OpenAPI v3 and Table
// conversion. The schema modules are loaded when present (loadSchema); until then, and for
// anything they do not export, the minimal fallbacks below keep kubectl working: CRDs are served
// without schema validation, OpenAPI carries only what `kubectl apply` needs, and Tables have
// Name and Age.

import type { ResourceInfo } from './resources.ts';
import { STANDARD_VERBS } from './resources.ts';
import type { KubeObject, StatusCause } from './types.ts';

export interface ServedVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema?: unknown;
  subresources: {
    status?: boolean | object;
    scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  };
  additionalPrinterColumns?: unknown[];
  [key: string]: unknown;
}

export interface CompiledCRD {
  name: string;
  group: string;
  scope: string;
  names: { plural: string; singular: string; kind: string; listKind: string; shortNames: string[]; categories: string[] };
  versions: ServedVersion[];
  [key: string]: unknown;
}

export interface AdmitResult {
  object: KubeObject;
  causes: StatusCause[];
  unknownFields: string[];
}

export interface TableOptions {
  now: number;
  includeObject?: 'None' | 'Metadata' | 'Object';
  version?: ServedVersion;
  noHeaders?: boolean;
  resourceVersion?: string;
  continue?: string;
}

export interface SchemaApi {
  defaultCRD(crd: KubeObject): KubeObject;
  validateCRD(crd: KubeObject, old?: KubeObject): StatusCause[];
  compileCRD(crd: KubeObject): CompiledCRD;
  establishedStatus(crd: KubeObject, nowIso: string): Record<string, unknown>;
  resourceInfoFor(compiled: CompiledCRD, version: ServedVersion): ResourceInfo;
  admitCustomResource(
    version: ServedVersion, obj: KubeObject, old: KubeObject | undefined,
    opts: { kind: string; group: string; subresource?: 'status' },
  ): AdmitResult;
  openApiRoot(resources: ResourceInfo[], crds: CompiledCRD[]): object;
  openApiGroupVersion(path: string, resources: ResourceInfo[], crds: CompiledCRD[]): object | undefined;
  toTable(info: ResourceInfo, objects: KubeObject[], opts: TableOptions): object;
}

// ---- fallbacks -------------------------------------------------------------------------------

function rec(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function fallbackDefaultCRD(crd: KubeObject): KubeObject {
  const out = structuredClone(crd);
  const spec = rec((out.spec ??= {}));
  const names = rec((spec.names ??= {}));
  if (typeof names.kind === 'string') {
    names.singular ??= names.kind.toLowerCase();
    names.listKind ??= `${names.kind}List`;
  }
  spec.conversion ??= { strategy: 'None' };
  return out;
}

function fallbackValidateCRD(crd: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = rec(crd.spec);
  const names = rec(spec.names);
  const expected = `${String(names.plural ?? '')}.${String(spec.group ?? '')}`;
  if (crd.metadata.name !== expected) {
    causes.push({
      reason: 'FieldValueInvalid', field: 'metadata.name',
      message: `Invalid value: ${JSON.stringify(crd.metadata.name ?? '')}: must be spec.names.plural+"."+spec.group`,
    });
  }
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') {
    causes.push({ reason: 'FieldValueNotSupported', field: 'spec.scope', message: `Unsupported value: ${JSON.stringify(spec.scope ?? '')}: supported values: "Cluster", "Namespaced"` });
  }
  const versions = Array.isArray(spec.versions) ? spec.versions.map(rec) : [];
  if (versions.length === 0) causes.push({ reason: 'FieldValueRequired', field: 'spec.versions', message: 'Required value' });
  else if (versions.filter((v) => v.storage === true).length !== 1) {
    causes.push({ reason: 'FieldValueInvalid', field: 'spec.versions', message: `Invalid value: ${JSON.stringify(versions)}: must have exactly one version marked as storage version` });
  }
  return causes;
}

function fallbackCompileCRD(crd: KubeObject): CompiledCRD {
  const spec = rec(crd.spec);
  const names = rec(spec.names);
  const kind = String(names.kind ?? '');
  return {
    name: crd.metadata.name ?? '',
    group: String(spec.group ?? ''),
    scope: String(spec.scope ?? 'Namespaced'),
    names: {
      plural: String(names.plural ?? ''),
      singular: String(names.singular ?? kind.toLowerCase()),
      kind,
      listKind: String(names.listKind ?? `${kind}List`),
      shortNames: Array.isArray(names.shortNames) ? names.shortNames.map(String) : [],
      categories: Array.isArray(names.categories) ? names.categories.map(String) : [],
    },
    versions: (Array.isArray(spec.versions) ? spec.versions : []).map((v0) => {
      const v = rec(v0);
      const sub = rec(v.subresources);
      const scale = sub.scale ? rec(sub.scale) : undefined;
      return {
        name: String(v.name ?? ''),
        served: v.served === true,
        storage: v.storage === true,
        schema: rec(v.schema).openAPIV3Schema,
        subresources: {
          status: sub.status ? true : undefined,
          scale: scale ? {
            specReplicasPath: String(scale.specReplicasPath ?? ''),
            statusReplicasPath: String(scale.statusReplicasPath ?? ''),
            labelSelectorPath: scale.labelSelectorPath === undefined ? undefined : String(scale.labelSelectorPath),
          } : undefined,
        },
        additionalPrinterColumns: Array.isArray(v.additionalPrinterColumns) ? v.additionalPrinterColumns : [],
      };
    }),
  };
}

function fallbackEstablishedStatus(crd: KubeObject, nowIso: string): Record<string, unknown> {
  const c = fallbackCompileCRD(crd);
  const storage = c.versions.find((v) => v.storage)?.name;
  const prev = rec(crd.status);
  const stored = Array.isArray(prev.storedVersions) ? prev.storedVersions.map(String) : [];
  if (storage && !stored.includes(storage)) stored.push(storage);
  const names: Record<string, unknown> = { plural: c.names.plural, singular: c.names.singular, kind: c.names.kind, listKind: c.names.listKind };
  if (c.names.shortNames.length) names.shortNames = c.names.shortNames;
  if (c.names.categories.length) names.categories = c.names.categories;
  return {
    conditions: [
      { type: 'NamesAccepted', status: 'True', lastTransitionTime: nowIso, reason: 'NoConflicts', message: 'no conflicts found' },
      { type: 'Established', status: 'True', lastTransitionTime: nowIso, reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
    ],
    acceptedNames: names,
    storedVersions: stored,
  };
}

function fallbackResourceInfoFor(c: CompiledCRD, v: ServedVersion): ResourceInfo {
  const subs: ResourceInfo['subresources'] = [];
  if (v.subresources.status) subs.push('status');
  if (v.subresources.scale) subs.push('scale');
  return {
    group: c.group, version: v.name, resource: c.names.plural, singular: c.names.singular, kind: c.names.kind,
    listKind: c.names.listKind, namespaced: c.scope === 'Namespaced', shortNames: c.names.shortNames,
    categories: c.names.categories, verbs: STANDARD_VERBS, subresources: subs, hasGeneration: true,
    statusSubresource: !!v.subresources.status, scale: v.subresources.scale, returnDeletedObject: true,
  };
}

const PATCH_PARAMS = ['fieldValidation', 'fieldManager', 'dryRun', 'force'].map((name) => ({
  name, in: 'query', schema: { type: 'string', uniqueItems: true },
}));

/** A content hash, so kubectl's per-URL OpenAPI cache notices CRD changes. */
function hashOf(text: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 16777619);
    h2 = Math.imul(h2 + c, 2246822519);
  }
  return ((h1 >>> 0).toString(16).padStart(8, '0') + (h2 >>> 0).toString(16).padStart(8, '0')).toUpperCase();
}

function fallbackGroupVersion(path: string, resources: ResourceInfo[], crds: CompiledCRD[]): object | undefined {
  const mine = resources.filter((r) => (r.group === '' ? `api/${r.version}` : `apis/${r.group}/${r.version}`) === path);
  if (mine.length === 0) return undefined;
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  for (const r of mine) {
    const prefix = r.group === '' ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
    const p = r.namespaced ? `${prefix}/namespaces/{namespace}/${r.resource}/{name}` : `${prefix}/${r.resource}/{name}`;
    paths[p] = {
      patch: {
        operationId: `patch${r.kind}`, 'x-kubernetes-action': 'patch',
        'x-kubernetes-group-version-kind': { group: r.group, version: r.version, kind: r.kind },
        parameters: PATCH_PARAMS, responses: { '200': { description: 'OK' } },
      },
    };
    const crd = crds.find((c) => c.group === r.group && c.names.plural === r.resource);
    const v = crd?.versions.find((x) => x.name === r.version);
    const s = rec(v?.schema);
    const key = `${r.group.split('.').reverse().join('.') || 'io.k8s.api.core'}.${r.version}.${r.kind}`;
    schemas[key] = {
      ...s, type: 'object', description: typeof s.description === 'string' ? s.description : '',
      properties: {
        apiVersion: { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object.' },
        kind: { type: 'string', description: 'Kind is a string value representing the REST resource this object represents.' },
        metadata: { type: 'object', description: "Standard object's metadata." },
        ...rec(s.properties),
      },
      'x-kubernetes-group-version-kind': [{ group: r.group, version: r.version, kind: r.kind }],
    };
  }
  return { openapi: '3.0.0', info: { title: 'Kubernetes', version: 'v1.32.0' }, paths, components: { schemas } };
}

function fallbackOpenApiRoot(resources: ResourceInfo[], crds: CompiledCRD[]): object {
  const paths: Record<string, unknown> = {};
  for (const r of resources) {
    const p = r.group === '' ? `api/${r.version}` : `apis/${r.group}/${r.version}`;
    if (paths[p]) continue;
    const doc = fallbackGroupVersion(p, resources, crds);
    paths[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${hashOf(JSON.stringify(doc))}` };
  }
  return { paths };
}

function age(fromIso: string | undefined, now: number): string {
  if (!fromIso) return '<unknown>';
  const t = Date.parse(fromIso);
  if (Number.isNaN(t)) return '<invalid>';
  const s = Math.max(0, Math.floor((now - t) / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 ? `${m}m${s % 60}s` : `${m}m`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return m % 60 ? `${h}h${m % 60}m` : `${h}h`;
  const d = Math.floor(h / 24);
  return d < 8 && h % 24 ? `${d}d${h % 24}h` : `${d}d`;
}

function fallbackToTable(info: ResourceInfo, objects: KubeObject[], opts: TableOptions): object {
  const rows = objects.map((o) => {
    const row: Record<string, unknown> = { cells: [o.metadata.name, age(o.metadata.creationTimestamp, opts.now)] };
    if (opts.includeObject !== 'None') {
      row.object = opts.includeObject === 'Object' ? o
        : { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata };
    }
    return row;
  });
  const table: Record<string, unknown> = {
    kind: 'Table', apiVersion: 'meta.k8s.io/v1',
    metadata: { resourceVersion: opts.resourceVersion ?? '', ...(opts.continue ? { continue: opts.continue } : {}) },
  };
  if (!opts.noHeaders) {
    table.columnDefinitions = [
      { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.', priority: 0 },
      { name: 'Age', type: 'date', format: '', description: 'CreationTimestamp is a timestamp representing the server time when this object was created.', priority: 0 },
    ];
  }
  table.rows = rows;
  void info;
  return table;
}

const fallback: SchemaApi = {
  defaultCRD: fallbackDefaultCRD,
  validateCRD: fallbackValidateCRD,
  compileCRD: fallbackCompileCRD,
  establishedStatus: fallbackEstablishedStatus,
  resourceInfoFor: fallbackResourceInfoFor,
  admitCustomResource: (_v, obj) => ({ object: obj, causes: [], unknownFields: [] }),
  openApiRoot: fallbackOpenApiRoot,
  openApiGroupVersion: fallbackGroupVersion,
  toTable: fallbackToTable,
};

/** The active implementation: the fallbacks until loadSchema() finds the schema modules. */
export const schema: SchemaApi = { ...fallback };

let loaded: Promise<void> | undefined;

/**
 * Installs the schema work package's functions where its modules exist and load. Safe to call
 * many times; a module that is missing or broken leaves the fallback in place.
 */
export function loadSchema(): Promise<void> {
  loaded ??= (async () => {
    const modules: Array<[string, Array<keyof SchemaApi>]> = [
      ['./schema/crd.ts', ['defaultCRD', 'validateCRD', 'compileCRD', 'establishedStatus', 'resourceInfoFor']],
      ['./schema/admit.ts', ['admitCustomResource']],
      ['./schema/openapi.ts', ['openApiRoot', 'openApiGroupVersion']],
      ['./schema/table.ts', ['toTable']],
    ];
    for (const [path, names] of modules) {
      try {
        const mod = (await import(path)) as Record<string, unknown>;
        for (const n of names) {
          if (typeof mod[n] === 'function') (schema as unknown as Record<string, unknown>)[n] = mod[n];
        }
      } catch {
        // Not written yet (or not loadable): keep the fallback.
      }
    }
  })();
  return loaded;
}

/** Which functions come from the schema package (for the README and diagnostics). */
export function schemaSources(): Record<string, 'schema' | 'fallback'> {
  const out: Record<string, 'schema' | 'fallback'> = {};
  for (const k of Object.keys(fallback) as Array<keyof SchemaApi>) out[k] = schema[k] === fallback[k] ? 'fallback' : 'schema';
  return out;
}

