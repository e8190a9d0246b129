// The four PATCH content types of docs/simulated-api-server.md#patch-types: JSON merge patch (RFC 7386), JSON patch
// (RFC 6902), strategic merge patch for built-in types (its merge keys and directives), and a
// minimal server-side apply (a merge patch that may create). Pure functions over JSON values.

import jsonpatch from 'fast-json-patch';
import { JSON_PATCH_NOT_APPLIED } from '../kube/errors.ts';
import { ApiError } from './types.ts';

type Json = unknown;
type JsonObject = Record<string, unknown>;

function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export const PATCH_CONTENT_TYPES: Record<string, 'merge' | 'json' | 'strategic' | 'apply'> = {
  'application/merge-patch+json': 'merge',
  'application/json-patch+json': 'json',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
  'application/apply-patch+cbor': 'apply',
};

/** The 415 a real server gives for strategic merge patch on a custom resource. */
export function strategicUnsupported(): ApiError {
  return new ApiError(
    415,
    'UnsupportedMediaType',
    'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
  );
}

// ---- RFC 7386 ---------------------------------------------------------------------------------

/** RFC 7386: objects merge recursively, null deletes, everything else (arrays too) replaces. */
export function mergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return structuredClone(patch);
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

// ---- RFC 6902 ---------------------------------------------------------------------------------

/**
 * RFC 6902 with upstream's error mapping: a malformed patch → 400; an operation that does not
 * apply (a failed `test`, a missing path) → 422 with upstream's generic message and no details,
 * so a client cannot tell the two apart (see JSON_PATCH_NOT_APPLIED).
 */
export function jsonPatch(target: Json, patch: Json): Json {
  if (!Array.isArray(patch)) {
    throw new ApiError(400, 'BadRequest', 'json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  }
  for (const op of patch) {
    if (!isObject(op) || typeof op.op !== 'string' || typeof op.path !== 'string') {
      throw new ApiError(400, 'BadRequest', `unexpected kind of operation: ${JSON.stringify(op)}`);
    }
    if (!['add', 'remove', 'replace', 'move', 'copy', 'test'].includes(op.op)) {
      throw new ApiError(400, 'BadRequest', `Unexpected kind: ${op.op}`);
    }
  }
  let doc = structuredClone(target);
  for (const op of patch as JsonObject[]) {
    try {
      doc = jsonpatch.applyOperation(doc, op as never, true, true, true).newDocument;
    } catch {
      throw new ApiError(422, 'Invalid', JSON_PATCH_NOT_APPLIED, {});
    }
  }
  return doc;
}

// ---- strategic merge patch -------------------------------------------------------------------

interface ListStrategy {
  /** Element field that identifies an element of a list of objects. */
  mergeKey?: string;
  /** A list of scalars merged as a set (metadata.finalizers). */
  primitiveMerge?: boolean;
  /** Elements also honour $retainKeys (volumes). */
  retainKeys?: boolean;
}

/**
 * Merge strategies of the built-in types' lists (k8s.io/api struct tags), keyed by the field name,
 * or by "parent.field" where the name alone is ambiguous. Lists not named here are atomic.
 */
const LIST_STRATEGIES: Record<string, ListStrategy> = {
  'metadata.ownerReferences': { mergeKey: 'uid' },
  'metadata.finalizers': { primitiveMerge: true },
  containers: { mergeKey: 'name' },
  initContainers: { mergeKey: 'name' },
  ephemeralContainers: { mergeKey: 'name' },
  volumes: { mergeKey: 'name', retainKeys: true },
  imagePullSecrets: { mergeKey: 'name' },
  resourceClaims: { mergeKey: 'name' },
  schedulingGates: { mergeKey: 'name' },
  hostAliases: { mergeKey: 'ip' },
  topologySpreadConstraints: { mergeKey: 'topologyKey' },
  env: { mergeKey: 'name' },
  ports: { mergeKey: 'containerPort' },
  volumeMounts: { mergeKey: 'mountPath' },
  volumeDevices: { mergeKey: 'devicePath' },
  'status.conditions': { mergeKey: 'type' },
  'status.addresses': { mergeKey: 'type' },
};

function strategyFor(path: string[]): ListStrategy | undefined {
  const field = path[path.length - 1];
  const parent = path[path.length - 2];
  // Only the top-level metadata and status blocks carry those keyed lists.
  if (parent === 'metadata' || parent === 'status') {
    return LIST_STRATEGIES[`${parent}.${field}`];
  }
  if (
    field === 'containers' ||
    field === 'initContainers' ||
    field === 'ephemeralContainers' ||
    field === 'volumes' ||
    field === 'imagePullSecrets' ||
    field === 'resourceClaims' ||
    field === 'schedulingGates' ||
    field === 'hostAliases' ||
    field === 'topologySpreadConstraints'
  ) {
    return parent === 'spec' ? LIST_STRATEGIES[field] : undefined;
  }
  if (field === 'env' || field === 'ports' || field === 'volumeMounts' || field === 'volumeDevices') {
    // Container fields: the path runs through a containers list (array indexes are not in `path`).
    const grand = path[path.length - 2];
    return grand === 'containers' || grand === 'initContainers' || grand === 'ephemeralContainers'
      ? LIST_STRATEGIES[field]
      : undefined;
  }
  return undefined;
}

const SET_ORDER = '$setElementOrder/';
const DELETE_FROM_PRIMITIVE = '$deleteFromPrimitiveList/';

function badPatch(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

function keyOf(v: unknown, mergeKey: string): string | undefined {
  if (!isObject(v)) return undefined;
  const k = v[mergeKey];
  return k === undefined ? undefined : JSON.stringify(k);
}

function mergeList(orig: unknown, patch: unknown[], path: string[], order: unknown[] | undefined): unknown[] {
  const strategy = strategyFor(path);
  if (!strategy) return structuredClone(patch);
  const base = Array.isArray(orig) ? orig : [];
  if (strategy.primitiveMerge) {
    const out = [...base];
    for (const v of patch) if (!out.some((o) => JSON.stringify(o) === JSON.stringify(v))) out.push(v);
    return order ? orderBy(out, order, (v) => JSON.stringify(v)) : out;
  }
  const mk = strategy.mergeKey!;
  // `{"$patch": "replace"}` among the elements: the other elements replace the list.
  if (patch.some((e) => isObject(e) && e.$patch === 'replace')) {
    return patch.filter((e) => !(isObject(e) && e.$patch === 'replace')).map((e) => stripDirectives(e));
  }
  const out: unknown[] = base.map((e) => structuredClone(e));
  for (const pe of patch) {
    if (!isObject(pe)) throw badPatch(`map: ${JSON.stringify(pe)} does not contain declared merge key: ${mk}`);
    const k = keyOf(pe, mk);
    if (k === undefined) {
      throw badPatch(
        `map: map[${Object.keys(pe)
          .map((x) => `${x}:${JSON.stringify(pe[x])}`)
          .join(' ')}] does not contain declared merge key: ${mk}`,
      );
    }
    const idx = out.findIndex((e) => keyOf(e, mk) === k);
    if (pe.$patch === 'delete') {
      if (idx >= 0) out.splice(idx, 1);
      continue;
    }
    if (idx >= 0) out[idx] = strategicMerge(out[idx], pe, path);
    else out.push(stripDirectives(pe));
  }
  return order ? orderBy(out, order, (v) => keyOf(v, mk) ?? '') : out;
}

/** Orders `items` as `order` says; items missing from `order` keep their relative place at the end. */
function orderBy(items: unknown[], order: unknown[], key: (v: unknown) => string): unknown[] {
  const rank = new Map<string, number>();
  order.forEach((o, i) => {
    const k = isObject(o)
      ? Object.values(o).length > 0
        ? JSON.stringify(Object.values(o)[0])
        : ''
      : JSON.stringify(o);
    rank.set(k, i);
  });
  const ranked = items.filter((v) => rank.has(key(v))).sort((a, b) => rank.get(key(a))! - rank.get(key(b))!);
  const rest = items.filter((v) => !rank.has(key(v)));
  return [...ranked, ...rest];
}

function stripDirectives(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripDirectives);
  if (!isObject(v)) return v;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === '$patch' || k === '$retainKeys' || k.startsWith(SET_ORDER) || k.startsWith(DELETE_FROM_PRIMITIVE))
      continue;
    if (x === null) continue;
    out[k] = stripDirectives(x);
  }
  return out;
}

/**
 * Strategic merge patch of one map. `path` is the chain of field names from the object's root
 * (array indexes left out), which selects the list strategies.
 */
function strategicMerge(orig: unknown, patch: unknown, path: string[]): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const directive = patch.$patch;
  if (directive === 'replace') return stripDirectives(patch);
  if (directive === 'delete') return undefined;
  if (directive !== undefined && directive !== 'merge')
    throw badPatch(`Unknown patch type: ${String(directive)} in map: ${JSON.stringify(patch)}`);
  const out: JsonObject = isObject(orig) ? { ...orig } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch' || k === '$retainKeys' || k.startsWith(SET_ORDER)) continue;
    if (k.startsWith(DELETE_FROM_PRIMITIVE)) {
      const field = k.slice(DELETE_FROM_PRIMITIVE.length);
      if (!Array.isArray(v)) throw badPatch(`invalid type for ${k}: expected a list`);
      const cur = out[field];
      if (Array.isArray(cur)) {
        const drop = new Set(v.map((x) => JSON.stringify(x)));
        out[field] = cur.filter((x) => !drop.has(JSON.stringify(x)));
      }
      continue;
    }
    const childPath = [...path, k];
    if (v === null) {
      delete out[k];
      continue;
    }
    if (Array.isArray(v)) {
      const order = patch[SET_ORDER + k];
      out[k] = mergeList(out[k], v, childPath, Array.isArray(order) ? order : undefined);
      continue;
    }
    if (isObject(v)) {
      const merged = strategicMerge(out[k], v, childPath);
      if (merged === undefined) delete out[k];
      else out[k] = merged;
      continue;
    }
    out[k] = v;
  }
  // `$setElementOrder` for lists the patch did not otherwise touch.
  for (const [k, order] of Object.entries(patch)) {
    if (!k.startsWith(SET_ORDER)) continue;
    const field = k.slice(SET_ORDER.length);
    if (field in patch || !Array.isArray(order) || !Array.isArray(out[field])) continue;
    const s = strategyFor([...path, field]);
    if (s?.mergeKey) out[field] = orderBy(out[field] as unknown[], order, (x) => keyOf(x, s.mergeKey!) ?? '');
    else if (s?.primitiveMerge) out[field] = orderBy(out[field] as unknown[], order, (x) => JSON.stringify(x));
  }
  const retain = patch.$retainKeys;
  if (Array.isArray(retain)) {
    const keep = new Set(retain.map(String));
    for (const k of Object.keys(out)) if (!keep.has(k)) delete out[k];
  }
  return out;
}

/** Strategic merge patch for built-in types (docs/simulated-api-server.md#patch-types). */
export function strategicMergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) throw badPatch('strategic merge patch must be a JSON object');
  return strategicMerge(target, patch, []) ?? {};
}

/** Applies a patch of the given type; `builtin` says whether strategic merge is allowed. */
export function applyPatch(
  type: 'merge' | 'json' | 'strategic' | 'apply',
  target: Json,
  patch: Json,
  builtin: boolean,
): Json {
  switch (type) {
    case 'merge':
    case 'apply':
      if (!isObject(patch)) {
        throw new ApiError(
          400,
          'BadRequest',
          'json: cannot unmarshal array into Go value of type map[string]interface {}',
        );
      }
      return mergePatch(target, patch);
    case 'json':
      return jsonPatch(target, patch);
    case 'strategic':
      if (!builtin) throw strategicUnsupported();
      return strategicMergePatch(target, patch);
  }
}
