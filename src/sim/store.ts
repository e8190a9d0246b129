// The simulated cluster's storage and API semantics: one in-memory store for every resource type,
// with the behaviour of docs/simulated-api-server.md (resourceVersion, uid, generation, status and
// scale subresources, optimistic concurrency, finalizers and deletion, namespaces, custom
// resources from CRDs, selectors, paging, and a watch history that serves watch-from-RV and 410).
//
// Stored objects are deep-frozen when they are committed: every write stores a new object, which
// shares the unchanged (frozen) parts of the one it replaces. So the watch history, the watchers,
// read-only subscribers and the HTTP layer share them (and their serialised JSON) without copies;
// everything the StoreApi hands to a caller is a deep copy it may mutate.

import { randomUUID } from 'node:crypto';
import { isEmptySelector, selectorMatches, selectorToString } from '../api/selector.ts';
import type { LabelSelector } from '../api/types.ts';
import { jsonEqual } from '../kube/jsonequal.ts';
import {
  cannotDecode,
  decodeFailure,
  roundTripRollbackTo,
  defaultDeploymentSpec,
  deploymentCauses,
  deploymentStatusCauses,
  dropOmittedValues,
  pruneUnknownFields,
} from './deployments.ts';
import { applyPatch } from './patch.ts';
import type { ResourceInfo } from './resources.ts';
import { BUILTIN_RESOURCES, groupVersion, qualifiedResource } from './resources.ts';
import type { CompiledCRD, ServedVersion } from './schemabridge.ts';
import { schema } from './schemabridge.ts';
import type { FieldSelectorFn, LabelSelectorFn } from './selectors.ts';
import { fieldSelectorFor, labelKeyError, labelSelectorFn, labelValueError } from './selectors.ts';
import { ApiError } from './types.ts';
import type {
  DeleteOptions,
  KubeObject,
  ListOptions,
  ListResult,
  PatchType,
  ResourceRef,
  StatusCause,
  StoreApi,
  StoreEvent,
  WatchEventType,
  WatchOptions,
  WriteOptions,
} from './types.ts';

export interface StoreOptions {
  /** Clock in epoch milliseconds (tests pin it). */
  now?: () => number;
  /** How many past events the watch history keeps (watch-from-RV older than that → 410). */
  historySize?: number;
}

/** One committed change, shared by the history and every watcher (never mutated). */
export interface Change {
  type: WatchEventType;
  gr: string;
  namespace: string;
  name: string;
  /** The object after the change (for DELETED: its last state, carrying the deletion's RV). */
  object: KubeObject;
  /** The object before the change (MODIFIED and DELETED), for selector transitions. */
  old?: KubeObject;
  rv: number;
  /** Watch lines for this change per event type and apiVersion, filled lazily by the HTTP layer. */
  lines?: Map<string, Buffer>;
}

/** Write options of the HTTP layer: `shared` returns the stored (frozen) object instead of a copy. */
export interface SharedResult {
  shared?: boolean;
}

/** Extra write options the HTTP layer passes (compatible with WriteOptions). */
export interface ServerWriteOptions extends WriteOptions, SharedResult {
  /** Filled with `Warning` header texts (fieldValidation=Warn). */
  warnings?: string[];
  subresource?: 'status';
}

/** What a subscriber declares: `readonly` listeners get the stored, frozen objects (no copy). */
export interface SubscribeOptions {
  readonly?: boolean;
}

interface Watcher {
  gr: string;
  namespace?: string;
  label: LabelSelectorFn;
  field: FieldSelectorFn;
  deliver: (type: WatchEventType, change: Change) => void;
  close: () => void;
}

interface Storage {
  /** Any served version's info: kind, scope, generation and status rules are the same for all. */
  info: ResourceInfo;
  objects: Map<string, Map<string, KubeObject>>; // namespace ('' for cluster-scoped) → name → object
  count: number;
  /** List order caches, dropped when an object is added or removed (not when one changes). */
  nsOrder?: string[];
  nameOrder: Map<string, string[]>;
}

interface CrdEntry {
  compiled: CompiledCRD;
  versions: Map<string, ServedVersion>;
  infos: ResourceInfo[];
}

export interface Scale {
  kind: 'Scale';
  apiVersion: 'autoscaling/v1';
  metadata: Record<string, unknown>;
  spec: { replicas: number };
  status: { replicas: number; selector?: string };
}

const GENERATE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const CONFLICT_DETAIL = 'the object has been modified; please apply your changes to the latest version and try again';

/** List order: namespace, then name (as the sorted orders of scan()). */
function compareKeys(ns1: string, name1: string, ns2: string, name2: string): number {
  if (ns1 !== ns2) return ns1 < ns2 ? -1 : 1;
  return name1 === name2 ? 0 : name1 < name2 ? -1 : 1;
}

export function grOf(r: { group: string; resource: string }): string {
  return `${r.group}/${r.resource}`;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Binary search in a sorted array: the first index whose element is > `v` (`after`), else >= `v`. */
function bound(sorted: string[], v: string, after: boolean): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < v || (after && sorted[mid] === v)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const lowerBound = (sorted: string[], v: string): number => bound(sorted, v, false);
const upperBound = (sorted: string[], v: string): number => bound(sorted, v, true);

/**
 * Freezes `v` and everything under it. A frozen node is already frozen all the way down (only this
 * function freezes stored objects), so the parts a write shares with the previous version are
 * skipped and a write costs what it changed.
 */
export function deepFreeze<T>(v: T): T {
  if (v === null || typeof v !== 'object' || Object.isFrozen(v)) return v;
  Object.freeze(v);
  if (Array.isArray(v)) {
    for (const x of v) deepFreeze(x);
  } else {
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
  }
  return v;
}

/**
 * A deep copy of a JSON value: ten times faster than structuredClone on objects the size of a pod,
 * and the copies callers get are always of plain JSON. Anything else (a Date from an in-process
 * caller) goes through structuredClone.
 */
export function cloneJson<T>(v: T): T {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    const out = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = cloneJson(v[i]);
    return out as T;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return structuredClone(v);
  const out: Record<string, unknown> = {};
  for (const k in v) out[k] = cloneJson((v as Record<string, unknown>)[k]);
  return out as T;
}

/** A new top level and metadata over the shared (frozen) rest: what a write may change in place. */
function ownTop(o: KubeObject): KubeObject {
  return { ...o, metadata: { ...o.metadata } };
}

function without(o: KubeObject, keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (!keys.includes(k)) out[k] = v;
  return out;
}

function at(o: unknown, path: string): unknown {
  let cur: unknown = o;
  for (const p of path.split('.').filter(Boolean)) {
    if (!isRecord(cur)) return undefined;
    cur = cur[p];
  }
  return cur;
}

function setAt(o: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.').filter(Boolean);
  let cur = o;
  for (const p of parts.slice(0, -1)) {
    if (!isRecord(cur[p])) cur[p] = {};
    cur = cur[p] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]] = value;
}

export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** How upstream prints one field error in a 422 message: `spec.replicas: Required value`. */
export function formatCause(c: StatusCause): string {
  return c.field ? `${c.field}: ${c.message}` : c.message;
}

export function invalidError(info: { kind: string; group: string }, name: string, causes: StatusCause[]): ApiError {
  const what = info.group ? `${info.kind}.${info.group}` : info.kind;
  const list = causes.length === 1 ? formatCause(causes[0]) : `[${causes.map(formatCause).join(', ')}]`;
  return new ApiError(422, 'Invalid', `${what} "${name}" is invalid: ${list}`, {
    name,
    ...(info.group ? { group: info.group } : {}),
    kind: info.kind,
    causes,
  });
}

function goMap(m: Record<string, string>): string {
  return `map[string]string{${Object.keys(m)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${JSON.stringify(m[k])}`)
    .join(', ')}}`;
}

export class Store implements StoreApi {
  private rv = 0;
  private readonly now: () => number;
  private readonly served = new Map<string, ResourceInfo>(); // group/version/resource
  private readonly storages = new Map<string, Storage>(); // group/resource
  private readonly crds = new Map<string, CrdEntry>(); // group/resource of the CR
  private readonly watchers = new Map<string, Set<Watcher>>(); // group/resource
  /** Subscribers, each with whether it takes the shared frozen objects (readonly). */
  private readonly listeners = new Map<(e: StoreEvent) => void, boolean>();
  private readonly ownerIndex = new Map<string, Set<string>>(); // owner uid → "gr|ns|name"
  private readonly history: Array<Change | undefined>;
  private histStart = 0;
  private histCount = 0;
  /** RV of the newest change dropped from the history; watches from before it get 410. */
  private evictedUpTo = 0;
  /** Faults may expire every resourceVersion before this one. */
  private expireFloor = 0;
  /** Faults: the next watch from an explicit resourceVersion gets 410 whatever the version. */
  private expireNextWatch = false;
  private readonly pendingNamespaces = new Set<string>();
  /** Called whenever the set of served resources changes (CRD established, updated or deleted). */
  onResourcesChanged?: () => void;

  constructor(opts: StoreOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.history = new Array(Math.max(16, opts.historySize ?? 50_000));
    for (const info of BUILTIN_RESOURCES) this.register(info);
  }

  // ---- resource registry --------------------------------------------------------------------

  private register(info: ResourceInfo): void {
    this.served.set(`${info.group}/${info.version}/${info.resource}`, info);
    const gr = grOf(info);
    const st = this.storages.get(gr);
    if (!st) this.storages.set(gr, { info, objects: new Map(), count: 0, nameOrder: new Map() });
    else st.info = info;
  }

  /** Every served resource type (built-in and custom), for routing and discovery. */
  resources(): ResourceInfo[] {
    return [...this.served.values()];
  }

  /** The compiled CRDs currently served. */
  compiledCRDs(): CompiledCRD[] {
    return [...this.crds.values()].map((c) => c.compiled);
  }

  resourceInfo(ref: ResourceRef): ResourceInfo | undefined {
    return this.served.get(`${ref.group}/${ref.version}/${ref.resource}`);
  }

  /** The CRD version serving `ref`, when it is a custom resource. */
  servedVersion(ref: ResourceRef): ServedVersion | undefined {
    return this.crds.get(grOf(ref))?.versions.get(ref.version);
  }

  private resolve(ref: ResourceRef): ResourceInfo {
    const info = this.resourceInfo(ref);
    if (!info) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
    return info;
  }

  private storage(info: ResourceInfo): Storage {
    return this.storages.get(grOf(info))!;
  }

  private isCustom(info: ResourceInfo): boolean {
    return this.crds.has(grOf(info));
  }

  // ---- errors ---------------------------------------------------------------------------------

  private details(info: ResourceInfo, name: string): NonNullable<ApiError['details']> {
    return { name, ...(info.group ? { group: info.group } : {}), kind: info.resource };
  }

  notFound(info: ResourceInfo, name: string): ApiError {
    return new ApiError(404, 'NotFound', `${qualifiedResource(info)} "${name}" not found`, this.details(info, name));
  }

  private conflict(info: ResourceInfo, name: string, detail: string): ApiError {
    return new ApiError(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${qualifiedResource(info)} "${name}": ${detail}`,
      this.details(info, name),
    );
  }

  // ---- reads ----------------------------------------------------------------------------------

  currentResourceVersion(): number {
    return this.rv;
  }

  private nsKey(info: ResourceInfo, namespace: string | undefined): string {
    return info.namespaced ? (namespace ?? '') : '';
  }

  /** The stored (shared, read-only) object. */
  peek(ref: ResourceRef, namespace: string | undefined, name: string): KubeObject | undefined {
    const info = this.resourceInfo(ref);
    if (!info) return undefined;
    return this.storage(info).objects.get(this.nsKey(info, namespace))?.get(name);
  }

  /** A copy of `obj` as the version `info` serves it (custom resources may be read in any served version). */
  private out(info: ResourceInfo, obj: KubeObject): KubeObject {
    const o = cloneJson(obj);
    o.apiVersion = groupVersion(info);
    o.kind = info.kind;
    return o;
  }

  /** `obj` as the version `info` serves it, without a copy (read-only; a new top level only when the version differs). */
  private view(info: ResourceInfo, obj: KubeObject): KubeObject {
    const apiVersion = groupVersion(info);
    if (obj.apiVersion === apiVersion && obj.kind === info.kind) return obj;
    return { ...obj, apiVersion, kind: info.kind };
  }

  /** What a read or write hands back: a copy, or for the HTTP layer (`shared`) the stored object. */
  private result(info: ResourceInfo, obj: KubeObject, opts: SharedResult): KubeObject {
    return opts.shared ? this.view(info, obj) : this.out(info, obj);
  }

  get(ref: ResourceRef, namespace: string | undefined, name: string): KubeObject | undefined {
    const info = this.resolve(ref);
    const o = this.storage(info).objects.get(this.nsKey(info, namespace))?.get(name);
    return o ? this.out(info, o) : undefined;
  }

  /** get() that throws the upstream 404 (`shared`: the stored, frozen object). */
  getOrThrow(ref: ResourceRef, namespace: string | undefined, name: string, opts: SharedResult = {}): KubeObject {
    const info = this.resolve(ref);
    const o = this.storage(info).objects.get(this.nsKey(info, namespace))?.get(name);
    if (!o) throw this.notFound(info, name);
    return this.result(info, o, opts);
  }

  /** The storage's namespaces in list order, sorted once per namespace added or removed. */
  private namespaceOrder(st: Storage): string[] {
    return (st.nsOrder ??= [...st.objects.keys()].sort());
  }

  /** One namespace's names in list order, sorted once per object added or removed there. */
  private nameOrder(st: Storage, ns: string): string[] {
    let names = st.nameOrder.get(ns);
    if (!names) st.nameOrder.set(ns, (names = [...(st.objects.get(ns)?.keys() ?? [])].sort()));
    return names;
  }

  /**
   * Walks the matching stored objects (shared, read-only) in list order, namespace then name,
   * starting after `after` ([namespace, name]); `visit` returns false to stop.
   */
  private scan(
    info: ResourceInfo,
    namespace: string | undefined,
    opts: ListOptions,
    after: [string, string] | undefined,
    visit: (o: KubeObject) => boolean,
  ): void {
    const label = labelSelectorFn(opts.labelSelector);
    const field = fieldSelectorFor(info, opts.fieldSelector, opts.labelSelector ?? '');
    const st = this.storage(info);
    const namespaces = info.namespaced && namespace ? [namespace] : this.namespaceOrder(st);
    for (let i = after ? lowerBound(namespaces, after[0]) : 0; i < namespaces.length; i++) {
      const ns = namespaces[i];
      const m = st.objects.get(ns);
      if (!m) continue;
      const from = after && ns === after[0] ? after[1] : undefined;
      if (field.name !== undefined) {
        const o = m.get(field.name);
        if (o && (from === undefined || field.name > from) && label(o.metadata.labels) && field.matches(o) && !visit(o))
          return;
        continue;
      }
      const names = this.nameOrder(st, ns);
      for (let j = from === undefined ? 0 : upperBound(names, from); j < names.length; j++) {
        const o = m.get(names[j])!;
        if (label(o.metadata.labels) && field.matches(o) && !visit(o)) return;
      }
    }
  }

  /**
   * scan() over the collection as it stood at resourceVersion `at` (a continued list's first page):
   * as the API server serves every page of a list from one snapshot, so that a watch from the list's
   * resourceVersion misses nothing. Each key's first change after `at` holds its state then (none
   * for an ADDED); objects deleted since are walked in their place. The caller has checked that the
   * history still reaches back to `at` (else 410).
   */
  private scanAt(
    info: ResourceInfo,
    namespace: string | undefined,
    opts: ListOptions,
    after: [string, string] | undefined,
    at: number,
    visit: (o: KubeObject) => boolean,
  ): void {
    const gr = grOf(info);
    const ns = info.namespaced && namespace ? namespace : undefined;
    const then = new Map<string, KubeObject | undefined>();
    for (let i = this.firstChangeAfter(at); i < this.histCount; i++) {
      const c = this.historyAt(i);
      if (c.gr !== gr || (ns !== undefined && c.namespace !== ns)) continue;
      const key = `${c.namespace}/${c.name}`;
      if (!then.has(key)) then.set(key, c.type === 'ADDED' ? undefined : c.old);
    }
    const label = labelSelectorFn(opts.labelSelector);
    const field = fieldSelectorFor(info, opts.fieldSelector, opts.labelSelector ?? '');
    const st = this.storage(info);
    const order = (a: KubeObject, b: KubeObject) =>
      compareKeys(a.metadata.namespace ?? '', a.metadata.name ?? '', b.metadata.namespace ?? '', b.metadata.name ?? '');
    const isAfter = (o: KubeObject) =>
      !after || compareKeys(o.metadata.namespace ?? '', o.metadata.name ?? '', after[0], after[1]) > 0;
    const gone = [...then.values()]
      .filter(
        (o): o is KubeObject =>
          !!o && !st.objects.get(o.metadata.namespace ?? '')?.has(o.metadata.name ?? '') && isAfter(o),
      )
      .sort(order);
    let g = 0;
    const offer = (o: KubeObject) => !(label(o.metadata.labels) && field.matches(o)) || visit(o);
    let stopped = false;
    this.scan(info, namespace, {}, after, (cur) => {
      for (; g < gone.length && order(gone[g], cur) < 0; g++) if (!offer(gone[g])) return !(stopped = true);
      const key = `${cur.metadata.namespace ?? ''}/${cur.metadata.name ?? ''}`;
      const o = then.has(key) ? then.get(key) : cur;
      if (o && !offer(o)) return !(stopped = true);
      return true;
    });
    for (; !stopped && g < gone.length; g++) if (!offer(gone[g])) return;
  }

  /** How many objects (no selectors) come after namespace/name in list order. */
  private countAfter(info: ResourceInfo, namespace: string | undefined, ns: string, name: string): number {
    const st = this.storage(info);
    const namespaces = info.namespaced && namespace ? [namespace] : this.namespaceOrder(st);
    let n = 0;
    for (let i = lowerBound(namespaces, ns); i < namespaces.length; i++) {
      const cur = namespaces[i];
      if (cur === ns) {
        const names = this.nameOrder(st, ns);
        n += names.length - upperBound(names, name);
      } else {
        n += st.objects.get(cur)?.size ?? 0;
      }
    }
    return n;
  }

  /** The matching stored objects, sorted by namespace and name (shared, read-only). */
  private select(info: ResourceInfo, namespace: string | undefined, opts: ListOptions): KubeObject[] {
    const out: KubeObject[] = [];
    this.scan(info, namespace, opts, undefined, (o) => {
      out.push(o);
      return true;
    });
    return out;
  }

  list(ref: ResourceRef, namespace: string | undefined, opts: ListOptions & SharedResult = {}): ListResult {
    const info = this.resolve(ref);
    const resourceVersion = String(this.rv);
    let after: [string, string] | undefined;
    /** For a continuation: the resourceVersion of the list's first page, which every page is served at. */
    let at: number | undefined;
    if (opts.continue) {
      let token: { rv?: number; key?: string };
      try {
        token = JSON.parse(Buffer.from(opts.continue, 'base64url').toString('utf8')) as { rv?: number; key?: string };
      } catch {
        throw new ApiError(400, 'BadRequest', 'continue key is not valid: illegal base64 data at input byte 0');
      }
      if (typeof token.rv !== 'number' || token.rv < Math.max(this.evictedUpTo, this.expireFloor)) {
        throw new ApiError(
          410,
          'Expired',
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
        );
      }
      // "<namespace>/<name>" of the last item served; neither part can contain a slash.
      const key = String(token.key ?? '');
      const slash = key.indexOf('/');
      after = slash < 0 ? [key, ''] : [key.slice(0, slash), key.slice(slash + 1)];
      at = token.rv;
    }
    // One page costs the page plus a selector check per remaining object (for remainingItemCount):
    // no sort and no copy of the whole collection.
    const limit = opts.limit && opts.limit > 0 ? opts.limit : Infinity;
    const items: KubeObject[] = [];
    let remaining = 0;
    const unfiltered = !opts.labelSelector && !opts.fieldSelector;
    const visit = (o: KubeObject) => {
      if (items.length < limit) {
        items.push(o);
        return true;
      }
      remaining++;
      return !unfiltered; // without selectors the rest is counted, not walked
    };
    if (at !== undefined && at < this.rv) this.scanAt(info, namespace, opts, after, at, visit);
    else this.scan(info, namespace, opts, after, visit);
    const listRv = at ?? this.rv;
    let cont: string | undefined;
    if (remaining > 0) {
      const last = items[items.length - 1];
      if (unfiltered)
        remaining = this.countAfter(info, namespace, last.metadata.namespace ?? '', last.metadata.name ?? '');
      cont = Buffer.from(
        JSON.stringify({ rv: listRv, key: `${last.metadata.namespace ?? ''}/${last.metadata.name}` }),
      ).toString('base64url');
    }
    return {
      items: items.map((o) => this.result(info, o, opts)),
      resourceVersion: at === undefined ? resourceVersion : String(at),
      ...(cont ? { continue: cont, remainingItemCount: remaining } : {}),
    };
  }

  // ---- writes ---------------------------------------------------------------------------------

  private nowIso(offsetSeconds = 0): string {
    return rfc3339(this.now() + offsetSeconds * 1000);
  }

  private checkNamespaceArg(info: ResourceInfo, namespace: string | undefined): string {
    if (!info.namespaced) return '';
    if (!namespace)
      throw new ApiError(400, 'BadRequest', 'the server could not find the requested resource (namespace is required)');
    return namespace;
  }

  private requireNamespace(namespace: string, forCreate: boolean): void {
    const ns = this.storages.get('/namespaces')!.objects.get('')?.get(namespace);
    if (!ns) {
      throw new ApiError(404, 'NotFound', `namespaces "${namespace}" not found`, {
        name: namespace,
        kind: 'namespaces',
      });
    }
    if (forCreate && ns.metadata.deletionTimestamp) {
      throw new ApiError(
        403,
        'Forbidden',
        `unable to create new content in namespace ${namespace} because it is being terminated`,
        {
          name: namespace,
          kind: 'namespaces',
          causes: [
            {
              reason: 'NamespaceTerminating',
              message: `namespace ${namespace} is being terminated`,
              field: 'metadata.namespace',
            },
          ],
        },
      );
    }
  }

  /** Fills kind/apiVersion from the endpoint and refuses a body meant for another type. */
  private checkTypeMeta(info: ResourceInfo, o: KubeObject): void {
    const gv = groupVersion(info);
    if (o.apiVersion !== undefined && o.apiVersion !== '' && o.apiVersion !== gv) {
      const other =
        this.isCustom(info) &&
        typeof o.apiVersion === 'string' &&
        o.apiVersion.startsWith(`${info.group}/`) &&
        this.servedVersion({
          group: info.group,
          version: o.apiVersion.slice(info.group.length + 1),
          resource: info.resource,
        });
      if (!other) {
        throw new ApiError(
          400,
          'BadRequest',
          `the API version in the data (${String(o.apiVersion)}) does not match the expected API version (${gv})`,
        );
      }
    }
    if (o.kind !== undefined && o.kind !== '' && o.kind !== info.kind) {
      throw new ApiError(
        400,
        'BadRequest',
        `the kind in the data (${String(o.kind)}) does not match the expected kind (${info.kind})`,
      );
    }
    o.apiVersion = gv;
    o.kind = info.kind;
  }

  private metaCauses(info: ResourceInfo, o: KubeObject): StatusCause[] {
    const causes: StatusCause[] = [];
    const name = o.metadata.name ?? '';
    const label = info.resource === 'namespaces';
    const re = label ? DNS1123_LABEL : DNS1123_SUBDOMAIN;
    const max = label ? 63 : 253;
    if (name && (!re.test(name) || name.length > max) && info.resource !== 'events') {
      const msg = label
        ? "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
        : "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
      causes.push({
        reason: 'FieldValueInvalid',
        field: 'metadata.name',
        message: `Invalid value: ${JSON.stringify(name)}: ${name.length > max ? `must be no more than ${max} characters` : msg}`,
      });
    }
    const labels = o.metadata.labels;
    if (labels !== undefined && !isRecord(labels)) {
      causes.push({
        reason: 'FieldValueTypeInvalid',
        field: 'metadata.labels',
        message: 'Invalid value: must be a map of strings',
      });
    } else if (labels) {
      for (const [k, v] of Object.entries(labels)) {
        const ke = labelKeyError(k);
        if (ke)
          causes.push({
            reason: 'FieldValueInvalid',
            field: 'metadata.labels',
            message: `Invalid value: ${JSON.stringify(k)}: ${ke}`,
          });
        const ve = typeof v === 'string' ? labelValueError(v) : 'must be a string';
        if (ve)
          causes.push({
            reason: 'FieldValueInvalid',
            field: 'metadata.labels',
            message: `Invalid value: ${JSON.stringify(v)}: ${ve}`,
          });
      }
    }
    return causes;
  }

  /** Defaults a real server applies on create (the light subset the simulator needs). */
  private prepareCreate(info: ResourceInfo, o: KubeObject): void {
    const spec = isRecord(o.spec) ? o.spec : undefined;
    switch (grOf(info)) {
      case '/namespaces': {
        const s = isRecord(o.spec) ? o.spec : (o.spec = {});
        (s as Record<string, unknown>).finalizers ??= ['kubernetes'];
        o.status = { phase: 'Active' };
        break;
      }
      case '/pods':
        if (spec) defaultPodSpec(spec);
        o.status = { phase: 'Pending', qosClass: 'BestEffort' };
        break;
      case 'apps/replicasets':
        if (spec) {
          spec.replicas ??= 1;
          const t = spec.template;
          if (isRecord(t) && isRecord(t.spec)) defaultPodSpec(t.spec);
        }
        o.status = { replicas: 0 };
        break;
      case 'apps/deployments':
        this.defaultDeployment(o);
        o.status = {};
        break;
      case 'policy/poddisruptionbudgets':
        o.status = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
        break;
      case '/secrets':
        (o as Record<string, unknown>).type ??= 'Opaque';
        mergeStringData(o);
        break;
      case 'apiextensions.k8s.io/customresourcedefinitions':
        break;
      default:
        if (info.statusSubresource && this.isCustom(info)) delete o.status;
    }
  }

  /** apps/v1's defaults of a Deployment and its pod template (on every write but a status one). */
  private defaultDeployment(o: KubeObject): void {
    if (!isRecord(o.spec)) o.spec = {};
    const spec = o.spec as Record<string, unknown>;
    defaultDeploymentSpec(spec);
    const t = spec.template;
    if (isRecord(t) && isRecord(t.spec)) defaultPodSpec(t.spec);
  }

  /**
   * Decoding an apps/v1 Deployment (deployments.ts): a field of the wrong JSON type is 400; fields
   * apps/v1 does not have are dropped, or refused (400) with fieldValidation=Strict, or each a
   * warning with Warn.
   */
  private decodeDeployment(
    o: KubeObject,
    opts: ServerWriteOptions,
    mode?: 'put' | 'patch' | 'mutate',
    stored?: KubeObject,
  ): void {
    const err = decodeFailure(o);
    if (err && mode === 'patch') {
      // The patched object failed to decode: upstream's patcher words it as a 422 on the field "patch".
      const message = `Invalid value: ${JSON.stringify(schema.canonical(o))}: ${err}`;
      throw new ApiError(422, 'Invalid', ` "" is invalid: patch: ${message}`, {
        causes: [{ reason: 'FieldValueInvalid', message, field: 'patch' }],
      });
    }
    if (err) throw new ApiError(400, 'BadRequest', cannotDecode(err));
    // The conversion's round trip of the rollback annotation (a /status write keeps the stored one).
    roundTripRollbackTo(o, stored);
    const unknown = pruneUnknownFields(o);
    dropOmittedValues(o);
    if (unknown.length === 0) return;
    if (opts.fieldValidation === 'Strict') {
      throw new ApiError(
        400,
        'BadRequest',
        cannotDecode(`strict decoding error: ${unknown.map((f) => `unknown field "${f}"`).join(', ')}`),
      );
    }
    if (opts.fieldValidation === 'Warn') for (const f of unknown) opts.warnings?.push(`unknown field "${f}"`);
  }

  /** Light validation of built-in types (the rules kubectl users meet first); apps/v1 Deployments in full. */
  private builtinCauses(info: ResourceInfo, o: KubeObject, old: KubeObject | undefined, sub?: 'status'): StatusCause[] {
    const causes: StatusCause[] = [];
    const spec = isRecord(o.spec) ? o.spec : {};
    switch (grOf(info)) {
      case 'apps/deployments':
        causes.push(...(sub === 'status' ? deploymentStatusCauses(o.status) : deploymentCauses(o, old)));
        break;
      case 'apps/replicasets': {
        const sel = spec.selector as LabelSelector | undefined;
        const tmplLabels = (at(o, 'spec.template.metadata.labels') ?? {}) as Record<string, string>;
        if (!isRecord(sel))
          causes.push({ reason: 'FieldValueRequired', field: 'spec.selector', message: 'Required value' });
        else if (isEmptySelector(sel)) {
          causes.push({
            reason: 'FieldValueInvalid',
            field: 'spec.selector',
            message: `Invalid value: "${selectorToString(sel)}": empty selector is invalid for deployment`,
          });
        } else if (!selectorMatches(sel, tmplLabels)) {
          causes.push({
            reason: 'FieldValueInvalid',
            field: 'spec.template.metadata.labels',
            message: `Invalid value: ${goMap(tmplLabels)}: \`selector\` does not match template \`labels\``,
          });
        }
        if (old && isRecord(sel) && !jsonEqual(sel, at(old, 'spec.selector'))) {
          causes.push({
            reason: 'FieldValueInvalid',
            field: 'spec.selector',
            message: `Invalid value: ${JSON.stringify(sel)}: field is immutable`,
          });
        }
        const r = spec.replicas;
        if (r !== undefined && (typeof r !== 'number' || !Number.isInteger(r) || r < 0)) {
          causes.push({
            reason: 'FieldValueInvalid',
            field: 'spec.replicas',
            message: `Invalid value: ${JSON.stringify(r)}: must be greater than or equal to 0`,
          });
        }
        break;
      }
      case '/pods': {
        const containers = spec.containers;
        if (!Array.isArray(containers) || containers.length === 0) {
          causes.push({ reason: 'FieldValueRequired', field: 'spec.containers', message: 'Required value' });
        }
        if (old && at(old, 'spec.nodeName') && at(o, 'spec.nodeName') !== at(old, 'spec.nodeName')) {
          causes.push({
            reason: 'FieldValueForbidden',
            field: 'spec',
            message:
              'Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
          });
        }
        break;
      }
      case 'policy/poddisruptionbudgets':
        if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined) {
          causes.push({
            reason: 'FieldValueInvalid',
            field: 'spec',
            message: `Invalid value: ${JSON.stringify(spec)}: minAvailable and maxUnavailable cannot be both set`,
          });
        }
        break;
      case 'apiextensions.k8s.io/customresourcedefinitions':
        causes.push(...schema.validateCRD(o, old));
        break;
    }
    return causes;
  }

  /** Generation rules (docs/simulated-api-server.md#generation): what counts as a change of the desired state. */
  private desiredChanged(info: ResourceInfo, a: KubeObject, b: KubeObject): boolean {
    if (this.isCustom(info)) {
      const skip = info.statusSubresource ? ['metadata', 'status'] : ['metadata'];
      return !jsonEqual(without(a, skip), without(b, skip));
    }
    // A Deployment's annotations count too: they are copied to its ReplicaSets (upstream's strategy).
    if (grOf(info) === 'apps/deployments' && !jsonEqual(a.metadata.annotations ?? {}, b.metadata.annotations ?? {}))
      return true;
    return !jsonEqual(a.spec, b.spec);
  }

  /** Custom-resource admission (prune, default, validate) through the schema package. */
  private admitCustom(
    info: ResourceInfo,
    o: KubeObject,
    old: KubeObject | undefined,
    opts: ServerWriteOptions,
  ): KubeObject {
    const version = this.servedVersion(info);
    if (!version) return o;
    const res = schema.admitCustomResource(version, o, old, {
      kind: info.kind,
      group: info.group,
      ...(opts.subresource ? { subresource: opts.subresource } : {}),
    });
    if (res.unknownFields.length > 0) {
      if (opts.fieldValidation === 'Strict') {
        throw new ApiError(
          400,
          'BadRequest',
          `${info.kind} in version "${info.version}" cannot be handled as a ${info.kind}: strict decoding error: ${res.unknownFields.map((f) => `unknown field "${f}"`).join(', ')}`,
        );
      }
      if (opts.fieldValidation === 'Warn') {
        for (const f of res.unknownFields) opts.warnings?.push(`unknown field "${f}"`);
      }
    }
    if (res.causes.length > 0) throw invalidError(info, o.metadata.name ?? '', res.causes);
    return res.object;
  }

  create(ref: ResourceRef, namespace: string | undefined, obj: KubeObject, opts: ServerWriteOptions = {}): KubeObject {
    const info = this.resolve(ref);
    const ns = this.checkNamespaceArg(info, namespace);
    if (!isRecord(obj)) throw new ApiError(400, 'BadRequest', 'the body of the request must be a JSON object');
    let o = cloneJson(obj);
    if (!isRecord(o.metadata)) o.metadata = {};
    this.checkTypeMeta(info, o);
    if (grOf(info) === 'apps/deployments') this.decodeDeployment(o, opts);
    const m = o.metadata;
    if (info.namespaced) {
      if (m.namespace && m.namespace !== ns) {
        throw new ApiError(
          400,
          'BadRequest',
          'the namespace of the provided object does not match the namespace sent on the request',
        );
      }
      m.namespace = ns;
    } else {
      delete m.namespace;
    }
    if (!m.name && m.generateName) {
      let suffix = '';
      for (let i = 0; i < 5; i++) suffix += GENERATE_ALPHABET[Math.floor(Math.random() * GENERATE_ALPHABET.length)];
      m.name = `${m.generateName}${suffix}`;
    }
    if (!m.name) {
      throw invalidError(info, '', [
        {
          reason: 'FieldValueRequired',
          field: 'metadata.name',
          message: 'Required value: name or generateName is required',
        },
      ]);
    }
    if (info.namespaced) this.requireNamespace(ns, true);
    for (const k of [
      'uid',
      'resourceVersion',
      'deletionTimestamp',
      'deletionGracePeriodSeconds',
      'generation',
      'creationTimestamp',
      'selfLink',
      'managedFields',
    ]) {
      delete m[k];
    }
    if (grOf(info) === 'apiextensions.k8s.io/customresourcedefinitions') o = schema.defaultCRD(o);
    this.prepareCreate(info, o);
    const causes = [
      ...this.metaCauses(info, o),
      ...(this.isCustom(info) ? [] : this.builtinCauses(info, o, undefined)),
    ];
    if (causes.length > 0) throw invalidError(info, o.metadata.name ?? '', causes);
    if (this.isCustom(info)) o = this.admitCustom(info, o, undefined, opts);
    const name = o.metadata.name!;
    const st = this.storage(info);
    if (st.objects.get(ns)?.has(name)) {
      throw new ApiError(
        409,
        'AlreadyExists',
        `${qualifiedResource(info)} "${name}" already exists`,
        this.details(info, name),
      );
    }
    o.metadata.uid = randomUUID();
    o.metadata.creationTimestamp = this.nowIso();
    if (info.hasGeneration || this.isCustom(info)) o.metadata.generation = 1;
    if (grOf(info) === 'apiextensions.k8s.io/customresourcedefinitions') {
      o.status = schema.establishedStatus(o, this.nowIso());
    }
    if (opts.dryRun) return this.result(info, o, opts);
    this.commit(info, 'ADDED', ns, name, o, undefined);
    if (grOf(info) === 'apiextensions.k8s.io/customresourcedefinitions') this.crdCommitted(o);
    return this.result(info, o, opts);
  }

  update(
    ref: ResourceRef,
    namespace: string | undefined,
    name: string,
    obj: KubeObject,
    opts: ServerWriteOptions = {},
  ): KubeObject {
    const info = this.resolve(ref);
    return this.updateInternal(info, this.nsKey(info, namespace), name, obj, opts, 'put');
  }

  private updateInternal(
    info: ResourceInfo,
    ns: string,
    name: string,
    incoming: KubeObject,
    opts: ServerWriteOptions,
    mode: 'put' | 'patch' | 'mutate',
  ): KubeObject {
    const sub = opts.subresource;
    if (sub === 'status' && !info.statusSubresource)
      throw new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
    const cur = this.storage(info).objects.get(ns)?.get(name);
    if (!cur) throw this.notFound(info, name);
    if (!isRecord(incoming)) throw new ApiError(400, 'BadRequest', 'the body of the request must be a JSON object');
    const inMeta = isRecord(incoming.metadata) ? incoming.metadata : {};
    if (mode !== 'mutate') {
      const rv = inMeta.resourceVersion;
      if (rv !== undefined && rv !== '' && rv !== cur.metadata.resourceVersion)
        throw this.conflict(info, name, CONFLICT_DETAIL);
      if ((rv === undefined || rv === '') && mode === 'put' && this.isCustom(info)) {
        throw invalidError(info, name, [
          {
            reason: 'FieldValueInvalid',
            field: 'metadata.resourceVersion',
            message: 'Invalid value: 0x0: must be specified for an update',
          },
        ]);
      }
      if (inMeta.name !== undefined && inMeta.name !== name) {
        throw new ApiError(
          400,
          'BadRequest',
          `the name of the object (${String(inMeta.name)}) does not match the name on the URL (${name})`,
        );
      }
      if (info.namespaced && inMeta.namespace !== undefined && inMeta.namespace !== '' && inMeta.namespace !== ns) {
        throw new ApiError(
          400,
          'BadRequest',
          'the namespace of the provided object does not match the namespace sent on the request',
        );
      }
    }
    // A patch result is ours already (new nodes over frozen shared ones); what a caller passed in
    // (PUT, mutate) is still theirs to change, so it is copied.
    const owned = mode === 'patch';
    let next: KubeObject;
    const isDeployment = grOf(info) === 'apps/deployments';
    if (sub === 'status') {
      next = ownTop(cur);
      if (incoming.status === undefined) delete next.status;
      else next.status = owned ? incoming.status : cloneJson(incoming.status);
      // A Deployment's status strategy keeps only its spec and labels: annotations come from the
      // body (the Deployment controller writes its revision annotation with the status).
      // The rollback annotation is spec in disguise (deployments.ts): it stays as stored.
      if (isDeployment) {
        if (isRecord(inMeta.annotations))
          next.metadata.annotations = cloneJson(inMeta.annotations) as Record<string, string>;
        else delete next.metadata.annotations;
        if (next.status !== undefined) next.status = cloneJson(next.status);
        this.decodeDeployment(next, opts, mode, cur);
      }
    } else {
      next = owned ? { ...incoming } : cloneJson(incoming);
      next.metadata = (owned ? { ...inMeta } : cloneJson(inMeta)) as KubeObject['metadata'];
      this.checkTypeMeta(info, next);
      if (isDeployment) {
        next.spec = cloneJson(next.spec);
        this.decodeDeployment(next, opts, mode);
        this.defaultDeployment(next);
      }
      const m = next.metadata;
      m.name = name;
      if (info.namespaced) m.namespace = ns;
      else delete m.namespace;
      m.uid = cur.metadata.uid;
      m.creationTimestamp = cur.metadata.creationTimestamp;
      if (cur.metadata.generation !== undefined) m.generation = cur.metadata.generation;
      else delete m.generation;
      for (const k of ['deletionTimestamp', 'deletionGracePeriodSeconds'] as const) {
        if (cur.metadata[k] !== undefined) (m as Record<string, unknown>)[k] = cur.metadata[k];
        else delete m[k];
      }
      delete m.selfLink;
      if (info.statusSubresource) {
        if (cur.status !== undefined) next.status = cur.status;
        else delete next.status;
      }
    }
    next.apiVersion = groupVersion(info);
    next.kind = info.kind;
    next.metadata.resourceVersion = cur.metadata.resourceVersion;
    // Finalizers cannot be added to an object that is going away.
    if (cur.metadata.deletionTimestamp) {
      const before = new Set(cur.metadata.finalizers ?? []);
      const added = (next.metadata.finalizers ?? []).filter((f) => !before.has(f));
      if (added.length > 0) {
        throw invalidError(info, name, [
          {
            reason: 'FieldValueForbidden',
            field: 'metadata.finalizers',
            message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`,
          },
        ]);
      }
    }
    const isCrd = grOf(info) === 'apiextensions.k8s.io/customresourcedefinitions';
    if (isCrd && sub !== 'status') next = schema.defaultCRD(next);
    if (grOf(info) === '/secrets') mergeStringData(next);
    const causes = [
      ...this.metaCauses(info, next),
      ...(this.isCustom(info) ? [] : this.builtinCauses(info, next, cur, sub)),
    ];
    if (causes.length > 0) throw invalidError(info, name, causes);
    if (this.isCustom(info)) next = this.admitCustom(info, next, cur, opts);
    if (sub !== 'status' && (info.hasGeneration || this.isCustom(info)) && this.desiredChanged(info, cur, next)) {
      next.metadata.generation = (cur.metadata.generation ?? 0) + 1;
    }
    if (isCrd && sub !== 'status' && !jsonEqual(cur.spec, next.spec)) {
      const established = (
        at(cur, 'status.conditions') as Array<{ type?: string; lastTransitionTime?: string }> | undefined
      )?.find((c) => c.type === 'Established')?.lastTransitionTime;
      next.status = schema.establishedStatus(next, established ?? this.nowIso());
    }
    if (jsonEqual(cur, next)) return this.result(info, cur, opts);
    if (opts.dryRun) return this.result(info, next, opts);
    const gracePending = grOf(info) === '/pods' && (next.metadata.deletionGracePeriodSeconds ?? 0) > 0;
    if (next.metadata.deletionTimestamp && (next.metadata.finalizers ?? []).length === 0 && !gracePending) {
      this.remove(info, ns, name, next);
      return this.result(info, this.lastDeleted!, opts);
    }
    this.commit(info, 'MODIFIED', ns, name, next, cur);
    if (isCrd) this.crdCommitted(next);
    return this.result(info, next, opts);
  }

  patch(
    ref: ResourceRef,
    namespace: string | undefined,
    name: string,
    type: PatchType,
    body: unknown,
    opts: ServerWriteOptions = {},
  ): KubeObject {
    return this.patchOrCreate(ref, namespace, name, type, body, opts).object;
  }

  /** patch(), telling whether an apply patch created the object (HTTP 201). */
  patchOrCreate(
    ref: ResourceRef,
    namespace: string | undefined,
    name: string,
    type: PatchType,
    body: unknown,
    opts: ServerWriteOptions = {},
  ): { object: KubeObject; created: boolean } {
    const info = this.resolve(ref);
    const ns = this.nsKey(info, namespace);
    const cur = this.storage(info).objects.get(ns)?.get(name);
    if (!cur) {
      if (type === 'apply' && opts.subresource === undefined) {
        const base = applyPatch('apply', {}, body, !this.isCustom(info)) as KubeObject;
        if (!isRecord(base.metadata)) base.metadata = {};
        base.metadata.name ??= name;
        if (base.metadata.name !== name) {
          throw new ApiError(
            400,
            'BadRequest',
            `the name of the object (${String(base.metadata.name)}) does not match the name on the URL (${name})`,
          );
        }
        return { object: this.create(ref, namespace, base, opts), created: true };
      }
      throw this.notFound(info, name);
    }
    // The patch functions build new nodes along the patched paths and share the rest of the
    // (frozen) stored object; the body is copied so that no part of the caller's ends up stored.
    const patched = applyPatch(type, this.view(info, cur), cloneJson(body), !this.isCustom(info));
    if (!isRecord(patched)) throw new ApiError(400, 'BadRequest', 'the patched object is not a JSON object');
    return { object: this.updateInternal(info, ns, name, patched as KubeObject, opts, 'patch'), created: false };
  }

  mutate(
    ref: ResourceRef,
    namespace: string | undefined,
    name: string,
    fn: (obj: KubeObject) => KubeObject | undefined,
    opts: ServerWriteOptions = {},
  ): KubeObject | undefined {
    const info = this.resolve(ref);
    const ns = this.nsKey(info, namespace);
    const cur = this.storage(info).objects.get(ns)?.get(name);
    if (!cur) return undefined;
    const next = fn(this.out(info, cur));
    if (next === undefined) return this.out(info, cur);
    return this.updateInternal(info, ns, name, next, opts, 'mutate');
  }

  // ---- scale subresource ----------------------------------------------------------------------

  private scaleInfo(info: ResourceInfo): NonNullable<ResourceInfo['scale']> {
    if (!info.scale || !info.subresources.includes('scale')) {
      throw new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
    }
    return info.scale;
  }

  private toScale(info: ResourceInfo, o: KubeObject): Scale {
    const s = this.scaleInfo(info);
    const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
    let selector: string | undefined;
    if (grOf(info) === 'apps/replicasets' || grOf(info) === 'apps/deployments')
      selector = selectorToString(at(o, 'spec.selector') as LabelSelector | undefined);
    else if (s.labelSelectorPath) {
      const v = at(o, s.labelSelectorPath);
      if (typeof v === 'string') selector = v;
    }
    return {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: {
        name: o.metadata.name,
        ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
        uid: o.metadata.uid,
        resourceVersion: o.metadata.resourceVersion,
        creationTimestamp: o.metadata.creationTimestamp,
      },
      spec: { replicas: num(at(o, s.specReplicasPath)) },
      status: { replicas: num(at(o, s.statusReplicasPath)), ...(selector !== undefined ? { selector } : {}) },
    };
  }

  getScale(ref: ResourceRef, namespace: string | undefined, name: string): Scale {
    const info = this.resolve(ref);
    this.scaleInfo(info);
    return this.toScale(info, this.getOrThrow(ref, namespace, name));
  }

  /** PUT …/scale: writes spec.replicas into the parent (a Scale RV is a precondition). */
  updateScale(
    ref: ResourceRef,
    namespace: string | undefined,
    name: string,
    scale: unknown,
    opts: ServerWriteOptions = {},
  ): Scale {
    const info = this.resolve(ref);
    const s = this.scaleInfo(info);
    const cur = this.getOrThrow(ref, namespace, name);
    const sc = isRecord(scale) ? scale : {};
    const replicas = at(sc, 'spec.replicas');
    if (typeof replicas !== 'number') {
      throw new ApiError(400, 'BadRequest', `the spec replicas field "${s.specReplicasPath}" cannot be empty`);
    }
    if (!Number.isInteger(replicas) || replicas < 0) {
      throw invalidError({ kind: 'Scale', group: 'autoscaling' }, name, [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.replicas',
          message: `Invalid value: ${replicas}: must be greater than or equal to 0`,
        },
      ]);
    }
    const rv = at(sc, 'metadata.resourceVersion');
    if (typeof rv === 'string' && rv !== '' && rv !== cur.metadata.resourceVersion)
      throw this.conflict(info, name, CONFLICT_DETAIL);
    const next = cur; // getOrThrow's copy
    setAt(next, s.specReplicasPath, replicas);
    const { subresource: _ignored, ...rest } = opts;
    void _ignored;
    const out = this.updateInternal(info, this.nsKey(info, namespace), name, next, rest, 'mutate');
    return this.toScale(info, out);
  }

  patchScale(
    ref: ResourceRef,
    namespace: string | undefined,
    name: string,
    type: PatchType,
    body: unknown,
    opts: ServerWriteOptions = {},
  ): Scale {
    const current = this.getScale(ref, namespace, name);
    const patched = applyPatch(type === 'strategic' || type === 'apply' ? 'merge' : type, current, body, true);
    return this.updateScale(ref, namespace, name, patched, opts);
  }

  // ---- delete ---------------------------------------------------------------------------------

  private lastDeleted: KubeObject | undefined;

  delete(ref: ResourceRef, namespace: string | undefined, name: string, opts: DeleteOptions = {}): KubeObject {
    return this.deleteWithResult(ref, namespace, name, opts).object;
  }

  /** delete(), telling whether the object is gone or only pending deletion. */
  deleteWithResult(
    ref: ResourceRef,
    namespace: string | undefined,
    name: string,
    opts: DeleteOptions & SharedResult = {},
  ): { object: KubeObject; pending: boolean } {
    const info = this.resolve(ref);
    const ns = this.nsKey(info, namespace);
    const cur = this.storage(info).objects.get(ns)?.get(name);
    if (!cur) throw this.notFound(info, name);
    const pre = opts.preconditions;
    if (pre?.uid && pre.uid !== cur.metadata.uid) {
      throw this.conflict(
        info,
        name,
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${cur.metadata.uid}`,
      );
    }
    if (pre?.resourceVersion && pre.resourceVersion !== cur.metadata.resourceVersion) {
      throw this.conflict(
        info,
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${cur.metadata.resourceVersion}`,
      );
    }
    const isPod = grOf(info) === '/pods';
    const grace = opts.gracePeriodSeconds;
    const next = ownTop(cur);
    const m = next.metadata;
    if (cur.metadata.deletionTimestamp) {
      // Already going away: only a shorter grace period (a force delete of a pod) changes anything.
      if (isPod && grace !== undefined && grace < (cur.metadata.deletionGracePeriodSeconds ?? 0)) {
        m.deletionGracePeriodSeconds = grace;
        m.deletionTimestamp = this.nowIso(grace);
        if (opts.dryRun) return { object: this.result(info, next, opts), pending: true };
        if ((m.finalizers ?? []).length === 0 && grace === 0) {
          this.remove(info, ns, name, next);
          return { object: this.result(info, this.lastDeleted!, opts), pending: false };
        }
        this.commit(info, 'MODIFIED', ns, name, next, cur);
        return { object: this.result(info, next, opts), pending: true };
      }
      return { object: this.result(info, cur, opts), pending: true };
    }
    const policy = opts.propagationPolicy;
    const finalizers = [...(m.finalizers ?? [])];
    const hasDependents = (this.ownerIndex.get(cur.metadata.uid ?? '')?.size ?? 0) > 0;
    if (policy === 'Foreground' && hasDependents && !finalizers.includes('foregroundDeletion'))
      finalizers.push('foregroundDeletion');
    if (policy === 'Orphan' && hasDependents && !finalizers.includes('orphan')) finalizers.push('orphan');
    let pending = finalizers.length > 0;
    let graceSeconds = 0;
    if (isPod) {
      const phase = at(cur, 'status.phase');
      const scheduled = typeof at(cur, 'spec.nodeName') === 'string' && at(cur, 'spec.nodeName') !== '';
      const terminal = phase === 'Succeeded' || phase === 'Failed';
      const g = grace ?? (at(cur, 'spec.terminationGracePeriodSeconds') as number | undefined) ?? 30;
      if (scheduled && !terminal && g > 0) {
        graceSeconds = g;
        pending = true;
      }
    }
    if (info.resource === 'namespaces' && info.group === '') pending = true;
    if (!pending) {
      if (opts.dryRun) return { object: this.result(info, cur, opts), pending: false };
      this.remove(info, ns, name, next);
      return { object: this.result(info, this.lastDeleted!, opts), pending: false };
    }
    if (finalizers.length > 0) m.finalizers = finalizers;
    m.deletionTimestamp = this.nowIso(graceSeconds);
    m.deletionGracePeriodSeconds = graceSeconds;
    if (m.generation !== undefined) m.generation = m.generation + 1;
    if (info.resource === 'namespaces' && info.group === '')
      next.status = { ...(isRecord(next.status) ? next.status : {}), phase: 'Terminating' };
    if (opts.dryRun) return { object: this.result(info, next, opts), pending: true };
    this.commit(info, 'MODIFIED', ns, name, next, cur);
    if (info.resource === 'namespaces' && info.group === '') this.scheduleNamespaceCleanup(name);
    return { object: this.result(info, next, opts), pending: true };
  }

  /** DELETE on a collection: every matching object, as a list of what was deleted. */
  deleteCollection(
    ref: ResourceRef,
    namespace: string | undefined,
    listOpts: ListOptions,
    opts: DeleteOptions & SharedResult = {},
  ): KubeObject[] {
    const info = this.resolve(ref);
    const items = this.select(info, namespace, listOpts);
    const out: KubeObject[] = [];
    for (const o of items) {
      try {
        out.push(this.delete(ref, o.metadata.namespace, o.metadata.name!, opts));
      } catch (e) {
        if (!(e instanceof ApiError && e.code === 404)) throw e;
      }
    }
    return out;
  }

  private scheduleNamespaceCleanup(namespace: string): void {
    if (this.pendingNamespaces.has(namespace)) return;
    this.pendingNamespaces.add(namespace);
    setImmediate(() => {
      for (const st of this.storages.values()) {
        if (!st.info.namespaced) continue;
        const m = st.objects.get(namespace);
        if (!m) continue;
        const ref = { group: st.info.group, version: st.info.version, resource: st.info.resource };
        for (const name of [...m.keys()]) {
          try {
            this.delete(ref, namespace, name, { propagationPolicy: 'Background' });
          } catch {
            // Gone already.
          }
        }
      }
      this.finishNamespaceIfEmpty(namespace);
    });
  }

  private namespaceEmpty(namespace: string): boolean {
    for (const st of this.storages.values()) {
      if (st.info.namespaced && (st.objects.get(namespace)?.size ?? 0) > 0) return false;
    }
    return true;
  }

  private finishNamespaceIfEmpty(namespace: string): void {
    if (!this.pendingNamespaces.has(namespace) || !this.namespaceEmpty(namespace)) return;
    this.pendingNamespaces.delete(namespace);
    const info = this.storages.get('/namespaces')!.info;
    const cur = this.storage(info).objects.get('')?.get(namespace);
    if (!cur) return;
    const next = ownTop(cur);
    if (isRecord(next.spec)) next.spec = { ...next.spec, finalizers: [] };
    if ((next.metadata.finalizers ?? []).length > 0) {
      this.commit(info, 'MODIFIED', '', namespace, next, cur);
      return;
    }
    this.remove(info, '', namespace, next);
  }

  // ---- commit and watch -----------------------------------------------------------------------

  private indexOwners(key: string, before: KubeObject | undefined, after: KubeObject | undefined): void {
    const b = before?.metadata.ownerReferences ?? [];
    const a = after?.metadata.ownerReferences ?? [];
    if (a === b || (b.length === 0 && a.length === 0)) return; // same (shared) list: nothing to re-index
    for (const r of b) {
      const s = this.ownerIndex.get(r.uid);
      if (s) {
        s.delete(key);
        if (s.size === 0) this.ownerIndex.delete(r.uid);
      }
    }
    for (const r of a) {
      let s = this.ownerIndex.get(r.uid);
      if (!s) this.ownerIndex.set(r.uid, (s = new Set()));
      s.add(key);
    }
  }

  /** Objects whose ownerReferences name `uid` (for the garbage collector). */
  dependentsOf(uid: string): Array<{ ref: ResourceRef; namespace: string | undefined; name: string }> {
    const out: Array<{ ref: ResourceRef; namespace: string | undefined; name: string }> = [];
    for (const key of this.ownerIndex.get(uid) ?? []) {
      const [gr, ns, name] = key.split('|');
      const st = this.storages.get(gr);
      if (!st) continue;
      out.push({
        ref: { group: st.info.group, version: st.info.version, resource: st.info.resource },
        namespace: ns || undefined,
        name,
      });
    }
    return out;
  }

  private commit(
    info: ResourceInfo,
    type: WatchEventType,
    ns: string,
    name: string,
    obj: KubeObject,
    old: KubeObject | undefined,
  ): void {
    this.rv += 1;
    obj.metadata.resourceVersion = String(this.rv);
    deepFreeze(obj);
    const st = this.storage(info);
    const gr = grOf(info);
    if (type === 'DELETED') {
      const m = st.objects.get(ns);
      m?.delete(name);
      if (m && m.size === 0) {
        st.objects.delete(ns);
        st.nsOrder = undefined;
      }
      st.nameOrder.delete(ns);
      st.count -= 1;
    } else {
      let m = st.objects.get(ns);
      if (!m) {
        st.objects.set(ns, (m = new Map()));
        st.nsOrder = undefined;
      }
      if (!m.has(name)) st.nameOrder.delete(ns);
      m.set(name, obj);
      if (type === 'ADDED') st.count += 1;
    }
    this.indexOwners(`${gr}|${ns}|${name}`, old, type === 'DELETED' ? undefined : obj);
    const change: Change = { type, gr, namespace: ns, name, object: obj, old, rv: this.rv };
    this.record(change);
    this.notify(change);
    if (type === 'DELETED' && info.namespaced && this.pendingNamespaces.has(ns)) {
      setImmediate(() => this.finishNamespaceIfEmpty(ns));
    }
  }

  private remove(info: ResourceInfo, ns: string, name: string, last: KubeObject): void {
    // A CRD takes its custom resources with it (the real server does this before the CRD goes).
    if (grOf(info) === 'apiextensions.k8s.io/customresourcedefinitions') this.crdRemoved(last);
    const cur = this.storage(info).objects.get(ns)?.get(name);
    this.commit(info, 'DELETED', ns, name, last, cur);
    this.lastDeleted = last;
  }

  private record(c: Change): void {
    const cap = this.history.length;
    if (this.histCount === cap) {
      const dropped = this.history[this.histStart]!;
      this.evictedUpTo = dropped.rv;
      this.history[this.histStart] = c;
      this.histStart = (this.histStart + 1) % cap;
    } else {
      this.history[(this.histStart + this.histCount) % cap] = c;
      this.histCount += 1;
    }
  }

  /** The history's index of its first change after resourceVersion `rv` (binary search). */
  private firstChangeAfter(rv: number): number {
    let lo = 0;
    let hi = this.histCount;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.historyAt(mid).rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private historyAt(i: number): Change {
    return this.history[(this.histStart + i) % this.history.length]!;
  }

  private matches(w: Watcher, o: KubeObject): boolean {
    return w.label(o.metadata.labels) && w.field(o);
  }

  private notify(c: Change): void {
    const set = this.watchers.get(c.gr);
    if (set) {
      for (const w of set) this.offer(w, c);
    }
    if (this.listeners.size > 0) {
      const st = this.storages.get(c.gr);
      if (st) {
        const ref = { group: st.info.group, version: st.info.version, resource: st.info.resource };
        // One frozen event for every read-only subscriber; a copy for each of the others.
        let shared: StoreEvent | undefined;
        for (const [l, readonly] of this.listeners) {
          try {
            if (readonly)
              l(
                (shared ??= Object.freeze({
                  type: c.type,
                  ref: Object.freeze(ref),
                  object: c.object,
                  resourceVersion: c.rv,
                })),
              );
            else l({ type: c.type, ref: { ...ref }, object: cloneJson(c.object), resourceVersion: c.rv });
          } catch {
            // A listener's failure is its own.
          }
        }
      }
    }
  }

  /** Delivers one change to one watcher, turning selector transitions into ADDED/DELETED. */
  private offer(w: Watcher, c: Change): void {
    if (w.namespace !== undefined && c.namespace !== w.namespace) return;
    const now = this.matches(w, c.object);
    if (c.type === 'ADDED' || c.type === 'DELETED') {
      if (now) w.deliver(c.type, c);
      return;
    }
    const before = c.old ? this.matches(w, c.old) : false;
    if (now && before) w.deliver('MODIFIED', c);
    else if (now) w.deliver('ADDED', c);
    else if (before) w.deliver('DELETED', c);
  }

  /**
   * Every committed change. By default each listener gets its own copy of the object; with
   * `{readonly: true}` it gets the stored object itself, deep-frozen and shared with every other
   * reader (no copy per listener per event), and must not keep it for changing later.
   */
  subscribe(listener: (e: StoreEvent) => void, opts: SubscribeOptions = {}): () => void {
    this.listeners.set(listener, opts.readonly === true);
    return () => this.listeners.delete(listener);
  }

  /**
   * A fault: every resourceVersion before the current one becomes too old to watch from, and the
   * next watch from any explicit resourceVersion gets 410 (so a connected client relists once).
   */
  expireResourceVersions(): void {
    this.expireFloor = this.rv;
    this.expireNextWatch = true;
  }

  /**
   * The watch the HTTP layer uses: shares the stored objects and the Change records (so each event
   * is serialised once per apiVersion). `onClose` runs if the store ends the watch (its resource
   * type went away, or close()).
   */
  watchChanges(
    ref: ResourceRef,
    namespace: string | undefined,
    opts: WatchOptions,
    deliver: (type: WatchEventType, change: Change) => void,
    onClose: () => void = () => {},
  ): () => void {
    const info = this.resolve(ref);
    const gr = grOf(info);
    const w: Watcher = {
      gr,
      namespace: info.namespaced ? namespace || undefined : undefined,
      label: labelSelectorFn(opts.labelSelector),
      field: fieldSelectorFor(info, opts.fieldSelector, opts.labelSelector ?? '').matches,
      deliver,
      close: onClose,
    };
    const rvText = opts.resourceVersion ?? '';
    const fromNow = rvText === '' || rvText === '0';
    if (!fromNow && !/^\d+$/.test(rvText))
      throw new ApiError(
        400,
        'BadRequest',
        `resourceVersion: Invalid value: "${rvText}": must be a non-negative integer`,
      );
    if (opts.sendInitialEvents ?? fromNow) {
      for (const o of this.select(info, w.namespace, {
        labelSelector: opts.labelSelector,
        fieldSelector: opts.fieldSelector,
      })) {
        deliver('ADDED', {
          type: 'ADDED',
          gr,
          namespace: o.metadata.namespace ?? '',
          name: o.metadata.name!,
          object: o,
          rv: Number(o.metadata.resourceVersion),
        });
      }
    } else if (!fromNow) {
      const from = Number(rvText);
      const floor = Math.max(this.evictedUpTo, this.expireFloor);
      if (from < floor || this.expireNextWatch) {
        this.expireNextWatch = false;
        throw new ApiError(410, 'Expired', `too old resource version: ${from} (${Math.max(floor, this.rv)})`);
      }
      for (let i = this.firstChangeAfter(from); i < this.histCount; i++) {
        const c = this.historyAt(i);
        if (c.gr === gr) this.offer(w, c);
      }
    }
    let set = this.watchers.get(gr);
    if (!set) this.watchers.set(gr, (set = new Set()));
    set.add(w);
    return () => {
      this.watchers.get(gr)?.delete(w);
    };
  }

  watch(
    ref: ResourceRef,
    namespace: string | undefined,
    opts: WatchOptions,
    listener: (e: StoreEvent) => void,
  ): () => void {
    const info = this.resolve(ref);
    const r = { group: info.group, version: info.version, resource: info.resource };
    return this.watchChanges(ref, namespace, opts, (type, c) => {
      const object = this.out(info, c.object);
      object.metadata.resourceVersion = String(c.rv);
      listener({ type, ref: r, object, resourceVersion: c.rv });
    });
  }

  /** Ends every watch (server shutdown). */
  closeWatches(gr?: string): void {
    for (const [key, set] of this.watchers) {
      if (gr !== undefined && key !== gr) continue;
      for (const w of set) w.close();
      set.clear();
    }
  }

  // ---- custom resource definitions ------------------------------------------------------------

  /** The served form of a stored CRD, or undefined for one that does not compile (it serves nothing). */
  private compiled(crd: KubeObject): CompiledCRD | undefined {
    try {
      return schema.compileCRD(crd);
    } catch {
      return undefined;
    }
  }

  private crdCommitted(crd: KubeObject): void {
    const compiled = this.compiled(crd);
    if (!compiled) return;
    const gr = `${compiled.group}/${compiled.names.plural}`;
    const prev = this.crds.get(gr);
    for (const info of prev?.infos ?? []) this.served.delete(`${info.group}/${info.version}/${info.resource}`);
    const versions = new Map<string, ServedVersion>();
    const infos: ResourceInfo[] = [];
    // Served versions, storage version first so that the storage keeps its info.
    const ordered = [...compiled.versions].sort((a, b) => Number(b.storage) - Number(a.storage));
    for (const v of ordered) {
      if (!v.served) continue;
      versions.set(v.name, v);
      infos.push(schema.resourceInfoFor(compiled, v));
    }
    this.crds.set(gr, { compiled, versions, infos });
    for (const info of infos) this.register(info);
    this.onResourcesChanged?.();
  }

  private crdRemoved(crd: KubeObject): void {
    const compiled = this.compiled(crd);
    if (!compiled) return;
    const gr = `${compiled.group}/${compiled.names.plural}`;
    const entry = this.crds.get(gr);
    if (!entry) return;
    const st = this.storages.get(gr);
    if (st) {
      for (const [ns, m] of [...st.objects]) {
        for (const [name, o] of [...m]) {
          const last = ownTop(o);
          this.commit(st.info, 'DELETED', ns, name, last, o);
        }
      }
    }
    this.closeWatches(gr);
    for (const info of entry.infos) this.served.delete(`${info.group}/${info.version}/${info.resource}`);
    this.crds.delete(gr);
    this.storages.delete(gr);
    this.watchers.delete(gr);
    this.onResourcesChanged?.();
  }
}

/**
 * A Secret's stringData, write-only as on a real server: each key goes into data, base64-encoded
 * (over a data key of the same name), and stringData itself is never stored.
 */
function mergeStringData(o: KubeObject): void {
  const obj = o as Record<string, unknown>;
  const strings = obj.stringData;
  if (!isRecord(strings)) return;
  const data = isRecord(obj.data) ? { ...obj.data } : {};
  for (const [k, v] of Object.entries(strings)) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
  obj.data = data;
  delete obj.stringData;
}

/** Pod spec defaults that a real server fills in (the subset that shows in `kubectl get -o yaml`). */
function defaultPodSpec(spec: Record<string, unknown>): void {
  spec.restartPolicy ??= 'Always';
  spec.terminationGracePeriodSeconds ??= 30;
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.schedulerName ??= 'default-scheduler';
  spec.securityContext ??= {};
  for (const list of ['containers', 'initContainers']) {
    const cs = spec[list];
    if (!Array.isArray(cs)) continue;
    for (const c of cs) {
      if (!isRecord(c)) continue;
      c.terminationMessagePath ??= '/dev/termination-log';
      c.terminationMessagePolicy ??= 'File';
      if (c.imagePullPolicy === undefined && typeof c.image === 'string') {
        const tag = c.image.includes('@') ? 'digest' : c.image.split('/').pop()!.split(':')[1];
        c.imagePullPolicy = tag === undefined || tag === 'latest' ? 'Always' : 'IfNotPresent';
      }
      c.resources ??= {};
    }
  }
}
