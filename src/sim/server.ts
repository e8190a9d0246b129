// The simulated cluster's HTTP API (docs/simulated-api-server.md): routing, discovery, OpenAPI v3, the verbs
// on resources and subresources, Table responses, watch streams, Status errors, the audit log and
// the fault hooks. The store holds all semantics; this file only translates HTTP to store calls.

import { subjectAccessReview, tokenReview } from './authz.ts';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse as parseYaml } from 'yaml';
import { matchingWebhooks, validate } from './admission.ts';
import type { Operation } from './admission.ts';
import type { AuditLog, AuditVerb } from './audit.ts';
import type { Faults } from './faults.ts';
import { queryBool, readListOptions } from './listoptions.ts';
import { KUBE_VERSION } from './version.ts';
import { PATCH_CONTENT_TYPES, strategicUnsupported } from './patch.ts';
import { decodeProtobufObject, isProtobuf } from './protobuf.ts';
import type { ResourceInfo } from './resources.ts';
import { REF, groupVersion } from './resources.ts';
import { schema } from './schemabridge.ts';
import { fieldSelectorFor, labelSelectorFn } from './selectors.ts';
import type { Change, ServerWriteOptions, SharedResult } from './store.ts';
import type { Store } from './store.ts';
import { ApiError } from './types.ts';
import type { DeleteOptions, KubeObject, ResourceRef, WatchEventType } from './types.ts';

export type EvictFn = (
  store: Store,
  namespace: string,
  name: string,
  body: unknown,
  now: number,
) => { code: number; body: object };

export interface ServerDeps {
  store: Store;
  audit: AuditLog;
  faults: Faults;
  now?: () => number;
  /** POST …/pods/{name}/eviction (the control plane's PDB-aware eviction). */
  evict?: EvictFn;
}

const VERSION_INFO = {
  ...KUBE_VERSION,
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-08-20T11:51:43Z',
  goVersion: 'go1.26.0',
  compiler: 'gc',
  platform: 'linux/amd64',
};

const TABLE_CONTENT_TYPE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const DISCOVERY_CONTENT_TYPE = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const BUILTIN_GROUP_ORDER = [
  '',
  'apps',
  'coordination.k8s.io',
  'policy',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
];
const MAX_BODY = 3 * 1024 * 1024;

/** Kubernetes version priority: v1 > v1beta2 > v1beta1 > v1alpha1 > anything else (alphabetical). */
export function compareKubeVersions(a: string, b: string): number {
  const parse = (v: string): [number, number, number] | undefined => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return undefined;
    return [m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1, Number(m[1]), Number(m[3] ?? 0)];
  };
  const pa = parse(a);
  const pb = parse(b);
  if (pa && pb) {
    for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pb[i] - pa[i];
    return 0;
  }
  if (pa) return -1;
  if (pb) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function storageVersionHash(r: ResourceInfo): string {
  let h = 0;
  for (const c of `${r.group}/${r.resource}`) h = (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0;
  return `${Buffer.from(h.toString(16).padStart(8, '0')).toString('base64').slice(0, 11)}=`;
}

interface Route {
  info: ResourceInfo;
  namespace?: string;
  name?: string;
  subresource?: string;
}

interface RequestContext {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  url: URL;
  verb?: AuditVerb | string;
  route?: Route;
  warnings: string[];
  /** Records the request in the audit log now (once); otherwise it is recorded when the response ends. */
  audit?: () => void;
}

function notFoundPath(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
}

function methodNotAllowed(): ApiError {
  return new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
}

export class SimServer {
  readonly store: Store;
  private readonly audit: AuditLog;
  private readonly faults: Faults;
  private readonly now: () => number;
  private readonly evict?: EvictFn;
  private server?: http.Server;
  private readonly openWatches = new Set<() => void>();
  private readonly sockets = new Set<import('node:net').Socket>();
  private port = 0;

  constructor(deps: ServerDeps) {
    this.store = deps.store;
    this.audit = deps.audit;
    this.faults = deps.faults;
    this.now = deps.now ?? Date.now;
    this.evict = deps.evict;
    this.faults.onDropWatches(() => this.endWatches());
    this.faults.onExpire(() => this.store.expireResourceVersions());
  }

  /** Listens on 127.0.0.1 (port 0 = a free port); resolves to the port. */
  listen(port = 0): Promise<number> {
    const server = http.createServer((req, res) => {
      void this.handle(req, res);
    });
    server.keepAliveTimeout = 65_000;
    server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        this.port = (server.address() as AddressInfo).port;
        resolve(this.port);
      });
    });
  }

  /** Ends every open watch stream cleanly. */
  endWatches(): void {
    for (const end of [...this.openWatches]) end();
  }

  async close(): Promise<void> {
    this.endWatches();
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections?.();
      for (const s of this.sockets) s.destroy();
    });
    this.server = undefined;
  }

  // ---- request handling -----------------------------------------------------------------------

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const ctx: RequestContext = { req, res, url: new URL(req.url ?? '/', 'http://127.0.0.1'), warnings: [] };
    res.setHeader('Audit-Id', randomUUID());
    res.setHeader('Cache-Control', 'no-cache, private');
    let audited = false;
    const recordAudit = (): void => {
      if (audited || !ctx.route || !ctx.verb) return;
      audited = true;
      const auth = req.headers.authorization;
      const name = ctx.route.name || nameSelected(ctx);
      this.audit.record({
        time: new Date(this.now()).toISOString(),
        userAgent: String(req.headers['user-agent'] ?? ''),
        ...(auth?.startsWith('Bearer ') ? { user: auth.slice(7) } : {}),
        verb: ctx.verb,
        apiGroup: ctx.route.info.group,
        resource: ctx.route.info.resource,
        ...(ctx.route.subresource ? { subresource: ctx.route.subresource } : {}),
        ...(ctx.route.namespace ? { namespace: ctx.route.namespace } : {}),
        ...(name ? { name } : {}),
        code: res.statusCode,
        requestURI: req.url ?? '',
      });
    };
    ctx.audit = recordAudit;
    res.on('finish', recordAudit);
    res.on('close', recordAudit);
    try {
      await this.dispatch(ctx);
    } catch (e) {
      this.sendError(ctx, e);
    }
  }

  private sendError(ctx: RequestContext, e: unknown): void {
    const err =
      e instanceof ApiError
        ? e
        : new ApiError(500, 'InternalError', `Internal error occurred: ${(e as Error)?.message ?? String(e)}`, {
            causes: [{ message: (e as Error)?.message ?? String(e) }],
          });
    if (ctx.res.headersSent) {
      ctx.res.end();
      return;
    }
    const headers: Record<string, string> = {};
    if (err.code === 429 && err.details?.retryAfterSeconds)
      headers['Retry-After'] = String(err.details.retryAfterSeconds);
    this.sendJson(ctx, err.code, err.toStatus(), headers);
  }

  private sendJson(
    ctx: RequestContext,
    code: number,
    body: unknown,
    headers: Record<string, string> = {},
    contentType = 'application/json',
  ): void {
    const text = JSON.stringify(body);
    if (ctx.warnings.length > 0) {
      ctx.res.setHeader(
        'Warning',
        ctx.warnings.map((w) => `299 - ${JSON.stringify(w)}`),
      );
    }
    ctx.res.writeHead(code, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text), ...headers });
    ctx.res.end(text);
  }

  private sendText(ctx: RequestContext, code: number, text: string): void {
    ctx.res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
    ctx.res.end(text);
  }

  private async dispatch(ctx: RequestContext): Promise<void> {
    const path = ctx.url.pathname.replace(/\/+$/, '') || '/';
    const method = ctx.req.method ?? 'GET';
    if (path === '/version') return this.sendJson(ctx, 200, VERSION_INFO);
    if (path === '/healthz' || path === '/readyz' || path === '/livez') return this.sendText(ctx, 200, 'ok');
    if (path.startsWith('/sim/')) return this.simEndpoint(ctx, path, method);
    if (path === '/openapi/v2') {
      if (!String(ctx.req.headers.accept ?? '').includes(schema.OPENAPI_V2_PROTOBUF_ACCEPT))
        return this.sendJson(ctx, 200, schema.openApiV2());
      const body = schema.openApiV2Protobuf();
      ctx.res.writeHead(200, { 'Content-Type': schema.OPENAPI_V2_PROTOBUF_TYPE, 'Content-Length': body.length });
      ctx.res.end(body);
      return;
    }
    if (path === '/openapi/v3')
      return this.sendJson(ctx, 200, schema.openApiRoot(this.store.resources(), this.store.compiledCRDs()));
    if (path.startsWith('/openapi/v3/')) {
      const doc = schema.openApiGroupVersion(
        path.slice('/openapi/v3/'.length),
        this.store.resources(),
        this.store.compiledCRDs(),
      );
      if (!doc) throw notFoundPath();
      return this.sendJson(ctx, 200, doc);
    }
    const segs = path.split('/').filter(Boolean).map(decodeURIComponent);
    let group: string;
    let version: string;
    let rest: string[];
    if (segs[0] === 'api') {
      if (segs.length === 1) return this.discoveryCore(ctx);
      group = '';
      version = segs[1];
      rest = segs.slice(2);
    } else if (segs[0] === 'apis') {
      if (segs.length === 1) return this.discoveryGroups(ctx);
      if (segs.length === 2) return this.discoveryGroup(ctx, segs[1]);
      group = segs[1];
      version = segs[2];
      rest = segs.slice(3);
    } else {
      throw notFoundPath();
    }
    const inGv = this.store.resources().filter((r) => r.group === group && r.version === version);
    if (inGv.length === 0) throw notFoundPath();
    if (rest.length === 0) {
      if (method !== 'GET') throw methodNotAllowed();
      return this.sendJson(ctx, 200, this.resourceList(group, version, inGv));
    }
    const find = (plural: string): ResourceInfo | undefined => inGv.find((r) => r.resource === plural);
    let route: Route;
    if (rest[0] === 'namespaces' && rest.length >= 3 && find(rest[2])?.namespaced) {
      if (rest.length > 5) throw notFoundPath();
      route = { info: find(rest[2])!, namespace: rest[1], name: rest[3], subresource: rest[4] };
    } else {
      const info = find(rest[0]);
      if (!info || rest.length > 3) throw notFoundPath();
      if (info.namespaced && rest.length > 1) throw notFoundPath();
      route = { info, name: rest[1], subresource: rest[2] };
    }
    if (route.subresource !== undefined && !route.info.subresources.includes(route.subresource as never))
      throw notFoundPath();
    ctx.route = route;
    return this.serveResource(ctx, route, method);
  }

  // ---- discovery ------------------------------------------------------------------------------

  private wantsAggregated(ctx: RequestContext): boolean {
    return String(ctx.req.headers.accept ?? '').includes('as=APIGroupDiscoveryList');
  }

  /** Groups (core excluded) with their versions in priority order. */
  private groups(): Array<{ name: string; versions: string[] }> {
    const byGroup = new Map<string, Set<string>>();
    for (const r of this.store.resources()) {
      if (r.group === '') continue;
      let s = byGroup.get(r.group);
      if (!s) byGroup.set(r.group, (s = new Set()));
      s.add(r.version);
    }
    const names = [...byGroup.keys()].sort((a, b) => {
      const ia = BUILTIN_GROUP_ORDER.indexOf(a);
      const ib = BUILTIN_GROUP_ORDER.indexOf(b);
      if (ia >= 0 || ib >= 0) return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib);
      return a < b ? -1 : 1;
    });
    return names.map((name) => ({ name, versions: [...byGroup.get(name)!].sort(compareKubeVersions) }));
  }

  private discoveryCore(ctx: RequestContext): void {
    if (this.wantsAggregated(ctx)) {
      this.sendJson(ctx, 200, this.aggregated([{ name: '', versions: ['v1'] }]), {}, DISCOVERY_CONTENT_TYPE);
      return;
    }
    this.sendJson(ctx, 200, {
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: `127.0.0.1:${this.port}` }],
    });
  }

  private apiGroup(g: { name: string; versions: string[] }): object {
    const versions = g.versions.map((v) => ({ groupVersion: `${g.name}/${v}`, version: v }));
    return { name: g.name, versions, preferredVersion: versions[0] };
  }

  private discoveryGroups(ctx: RequestContext): void {
    const groups = this.groups();
    if (this.wantsAggregated(ctx)) {
      this.sendJson(ctx, 200, this.aggregated(groups), {}, DISCOVERY_CONTENT_TYPE);
      return;
    }
    this.sendJson(ctx, 200, { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map((g) => this.apiGroup(g)) });
  }

  private discoveryGroup(ctx: RequestContext, name: string): void {
    const g = this.groups().find((x) => x.name === name);
    if (!g) throw notFoundPath();
    this.sendJson(ctx, 200, { kind: 'APIGroup', apiVersion: 'v1', ...this.apiGroup(g) });
  }

  private subresourceKind(
    r: ResourceInfo,
    sub: string,
  ): { group?: string; version?: string; kind: string; verbs: string[] } {
    switch (sub) {
      case 'scale':
        return { group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] };
      case 'eviction':
        return { group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] };
      case 'finalize':
        return { kind: r.kind, verbs: ['update'] };
      default:
        return { kind: r.kind, verbs: ['get', 'patch', 'update'] };
    }
  }

  private resourceList(group: string, version: string, infos: ResourceInfo[]): object {
    const resources: object[] = [];
    for (const r of infos) {
      resources.push({
        name: r.resource,
        singularName: r.singular,
        namespaced: r.namespaced,
        kind: r.kind,
        verbs: r.verbs,
        ...(r.shortNames.length ? { shortNames: r.shortNames } : {}),
        ...(r.categories.length ? { categories: r.categories } : {}),
        storageVersionHash: storageVersionHash(r),
      });
      // Subresources in name order, as the API server lists them (scale before status).
      for (const sub of [...r.subresources].sort()) {
        const k = this.subresourceKind(r, sub);
        resources.push({
          name: `${r.resource}/${sub}`,
          singularName: '',
          namespaced: r.namespaced,
          ...(k.group !== undefined ? { group: k.group, version: k.version } : {}),
          kind: k.kind,
          verbs: k.verbs,
        });
      }
    }
    return {
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: group ? `${group}/${version}` : version,
      resources,
    };
  }

  private aggregated(groups: Array<{ name: string; versions: string[] }>): object {
    const all = this.store.resources();
    return {
      kind: 'APIGroupDiscoveryList',
      apiVersion: 'apidiscovery.k8s.io/v2',
      metadata: {},
      items: groups.map((g) => ({
        metadata: { name: g.name, creationTimestamp: null },
        versions: g.versions.map((v) => ({
          version: v,
          freshness: 'Current',
          resources: all
            .filter((r) => r.group === g.name && r.version === v)
            .map((r) => ({
              resource: r.resource,
              responseKind: { group: r.group, version: r.version, kind: r.kind },
              scope: r.namespaced ? 'Namespaced' : 'Cluster',
              singularResource: r.singular,
              verbs: r.verbs,
              ...(r.shortNames.length ? { shortNames: r.shortNames } : {}),
              ...(r.categories.length ? { categories: r.categories } : {}),
              ...(r.subresources.length
                ? {
                    subresources: [...r.subresources].sort().map((sub) => {
                      const k = this.subresourceKind(r, sub);
                      return {
                        subresource: sub,
                        responseKind: { group: k.group ?? r.group, version: k.version ?? r.version, kind: k.kind },
                        verbs: k.verbs,
                      };
                    }),
                  }
                : {}),
            })),
        })),
      })),
    };
  }

  // ---- bodies ---------------------------------------------------------------------------------

  private readBody(ctx: RequestContext): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      ctx.req.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_BODY) {
          reject(new ApiError(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728'));
          ctx.req.destroy();
          return;
        }
        chunks.push(c);
      });
      ctx.req.on('end', () => resolve(Buffer.concat(chunks)));
      ctx.req.on('error', reject);
    });
  }

  private contentType(ctx: RequestContext): string {
    return String(ctx.req.headers['content-type'] ?? 'application/json')
      .split(';')[0]
      .trim()
      .toLowerCase();
  }

  /** A JSON (or YAML) object body for create/update. */
  private async objectBody(ctx: RequestContext, optional = false): Promise<unknown> {
    const ct = this.contentType(ctx);
    const raw = await this.readBody(ctx);
    // kubectl's typed clients send built-in kinds as protobuf (protobuf.ts decodes the kinds
    // `kubectl create` sends that way).
    if (isProtobuf(ct, raw)) return decodeProtobufObject(raw);
    if (raw.length === 0) {
      if (optional) return undefined;
      throw new ApiError(400, 'BadRequest', 'the body of the request was empty');
    }
    const text = raw.toString('utf8');
    try {
      if (ct === 'application/yaml' || ct === 'text/yaml') return parseYaml(text);
      return JSON.parse(text);
    } catch (e) {
      throw new ApiError(400, 'BadRequest', `couldn't get version/kind; json parse error: ${(e as Error).message}`);
    }
  }

  private writeOptions(ctx: RequestContext, sub?: 'status'): ServerWriteOptions {
    const q = ctx.url.searchParams;
    const dryRun = q.getAll('dryRun');
    for (const d of dryRun)
      if (d !== 'All')
        throw new ApiError(400, 'BadRequest', `dryRun: Unsupported value: "${d}": supported values: "All"`);
    const fv = q.get('fieldValidation') ?? undefined;
    if (fv !== undefined && fv !== 'Strict' && fv !== 'Warn' && fv !== 'Ignore') {
      throw new ApiError(
        400,
        'BadRequest',
        `fieldValidation: Unsupported value: "${fv}": supported values: "Ignore", "Strict", "Warn"`,
      );
    }
    return {
      dryRun: dryRun.length > 0,
      actor: q.get('fieldManager') ?? String(ctx.req.headers['user-agent'] ?? ''),
      ...(fv ? { fieldValidation: fv } : {}),
      warnings: ctx.warnings,
      ...(sub ? { subresource: sub } : {}),
      shared: true, // only serialised here: no copy
    };
  }

  private async deleteOptions(ctx: RequestContext): Promise<DeleteOptions & SharedResult> {
    const body = await this.objectBody(ctx, true);
    const q = ctx.url.searchParams;
    const b = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
    const policy = (b.propagationPolicy ?? q.get('propagationPolicy') ?? undefined) as string | undefined;
    if (policy !== undefined && !['Background', 'Foreground', 'Orphan'].includes(policy)) {
      throw new ApiError(
        422,
        'Invalid',
        `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan", "nil"`,
      );
    }
    const orphan = b.orphanDependents ?? (q.has('orphanDependents') ? queryBool(q.get('orphanDependents')) : undefined);
    const graceRaw = b.gracePeriodSeconds ?? q.get('gracePeriodSeconds') ?? undefined;
    const grace = graceRaw === undefined || graceRaw === null ? undefined : Number(graceRaw);
    const dryRun = [...(Array.isArray(b.dryRun) ? b.dryRun.map(String) : []), ...q.getAll('dryRun')];
    const pre = b.preconditions as DeleteOptions['preconditions'] | undefined;
    return {
      propagationPolicy: (policy ??
        (orphan === true
          ? 'Orphan'
          : orphan === false
            ? 'Background'
            : undefined)) as DeleteOptions['propagationPolicy'],
      ...(grace !== undefined && !Number.isNaN(grace) ? { gracePeriodSeconds: grace } : {}),
      ...(pre ? { preconditions: pre } : {}),
      dryRun: dryRun.includes('All'),
      actor: String(ctx.req.headers['user-agent'] ?? ''),
      shared: true,
    };
  }

  // ---- resources ------------------------------------------------------------------------------

  private wantsTable(ctx: RequestContext): boolean {
    return String(ctx.req.headers.accept ?? '').includes('as=Table');
  }

  private ref(info: ResourceInfo): ResourceRef {
    return { group: info.group, version: info.version, resource: info.resource };
  }

  private tableOf(
    ctx: RequestContext,
    info: ResourceInfo,
    objects: KubeObject[],
    extra: { resourceVersion?: string; continue?: string; noHeaders?: boolean },
  ): object {
    const include = ctx.url.searchParams.get('includeObject');
    const version = this.store.servedVersion(this.ref(info));
    return schema.toTable(info, objects, {
      now: this.now(),
      ...(include === 'None' || include === 'Metadata' || include === 'Object' ? { includeObject: include } : {}),
      ...(version ? { version } : {}),
      ...extra,
    });
  }

  private verbFor(route: Route, method: string, watch: boolean): string {
    const sub = route.subresource;
    if (sub === 'eviction') {
      if (method === 'POST') return 'create';
      throw methodNotAllowed();
    }
    if (route.name === undefined) {
      if (method === 'GET') return watch ? 'watch' : 'list';
      if (method === 'POST') {
        if (route.info.namespaced && route.namespace === undefined) throw methodNotAllowed();
        return 'create';
      }
      if (method === 'DELETE') return 'deletecollection';
      throw methodNotAllowed();
    }
    if (sub === 'finalize') {
      if (method === 'PUT') return 'update';
      throw methodNotAllowed();
    }
    switch (method) {
      case 'GET':
        return 'get';
      case 'PUT':
        return 'update';
      case 'PATCH':
        return 'patch';
      case 'DELETE':
        if (sub) throw methodNotAllowed();
        return 'delete';
      default:
        throw methodNotAllowed();
    }
  }

  private async serveResource(ctx: RequestContext, route: Route, method: string): Promise<void> {
    const q = ctx.url.searchParams;
    const watch = queryBool(q.get('watch'));
    const verb = this.verbFor(route, method, watch);
    ctx.verb = verb;
    if (!route.info.verbs.includes(verb) && !route.subresource) throw methodNotAllowed();
    const injected = await this.faults.apply({
      verb,
      resource: route.info.resource,
      group: route.info.group,
      ...(route.name ? { name: route.name } : {}),
    });
    if (injected) throw injected;
    const { info, namespace, name, subresource } = route;
    const ref = this.ref(info);
    const store = this.store;
    switch (verb) {
      case 'list': {
        readListOptions(q);
        const limit = q.get('limit');
        const result = store.list(ref, namespace, {
          labelSelector: q.get('labelSelector') ?? undefined,
          fieldSelector: q.get('fieldSelector') ?? undefined,
          ...(limit ? { limit: Number(limit) } : {}),
          ...(q.get('continue') ? { continue: q.get('continue')! } : {}),
          shared: true,
        });
        if (this.wantsTable(ctx)) {
          return this.sendJson(
            ctx,
            200,
            this.tableOf(ctx, info, result.items, {
              resourceVersion: result.resourceVersion,
              ...(result.continue ? { continue: result.continue } : {}),
            }),
            {},
            TABLE_CONTENT_TYPE,
          );
        }
        return this.sendJson(ctx, 200, {
          kind: info.listKind,
          apiVersion: groupVersion(info),
          metadata: {
            resourceVersion: result.resourceVersion,
            ...(result.continue ? { continue: result.continue, remainingItemCount: result.remainingItemCount } : {}),
          },
          items: result.items,
        });
      }
      case 'watch':
        return this.serveWatch(ctx, info, namespace);
      case 'create': {
        if (subresource === 'eviction') return this.serveEviction(ctx, namespace!, name!);
        const body = await this.objectBody(ctx);
        // The review APIs answer and store nothing (authz.ts).
        if (info.resource === 'tokenreviews') return this.sendJson(ctx, 201, tokenReview(body as KubeObject));
        if (info.resource === 'subjectaccessreviews')
          return this.sendJson(ctx, 201, subjectAccessReview(store, body as KubeObject));
        const opts = this.writeOptions(ctx);
        const created = await this.admitted(
          ctx,
          route,
          'CREATE',
          (body as KubeObject)?.metadata?.name ?? '',
          opts,
          (o) => store.create(ref, namespace, body as KubeObject, o),
          (x) => x,
        );
        return this.sendJson(ctx, 201, created);
      }
      case 'get': {
        if (subresource === 'scale') return this.sendJson(ctx, 200, store.getScale(ref, namespace, name!));
        const obj = store.getOrThrow(ref, namespace, name!, { shared: true });
        if (this.wantsTable(ctx) && !subresource) {
          return this.sendJson(
            ctx,
            200,
            this.tableOf(ctx, info, [obj], { resourceVersion: obj.metadata.resourceVersion }),
            {},
            TABLE_CONTENT_TYPE,
          );
        }
        return this.sendJson(ctx, 200, obj);
      }
      case 'update': {
        const body = await this.objectBody(ctx);
        if (subresource === 'scale')
          return this.sendJson(ctx, 200, store.updateScale(ref, namespace, name!, body, this.writeOptions(ctx)));
        // PUT …/namespaces/{name}/finalize takes spec.finalizers only; the simulator treats it as an update.
        const opts = this.writeOptions(ctx, subresource === 'status' ? 'status' : undefined);
        return this.sendJson(
          ctx,
          200,
          await this.admitted(
            ctx,
            route,
            'UPDATE',
            name!,
            opts,
            (o) => store.update(ref, namespace, name!, body as KubeObject, o),
            (x) => x,
          ),
        );
      }
      case 'patch': {
        const ct = this.contentType(ctx);
        const type = PATCH_CONTENT_TYPES[ct];
        if (!type) {
          throw new ApiError(
            415,
            'UnsupportedMediaType',
            `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml${store.servedVersion(ref) ? '' : ', application/strategic-merge-patch+json'}`,
          );
        }
        if (type === 'strategic' && store.servedVersion(ref)) throw strategicUnsupported();
        if (type === 'apply' && !q.get('fieldManager')) {
          throw new ApiError(400, 'BadRequest', 'PATCH requests require fieldManager to be set for apply patches');
        }
        const raw = (await this.readBody(ctx)).toString('utf8');
        let body: unknown;
        try {
          body = type === 'apply' ? parseYaml(raw) : JSON.parse(raw);
        } catch (e) {
          throw new ApiError(400, 'BadRequest', `error decoding patch: ${(e as Error).message}`);
        }
        if (subresource === 'scale')
          return this.sendJson(ctx, 200, store.patchScale(ref, namespace, name!, type, body, this.writeOptions(ctx)));
        const opts = this.writeOptions(ctx, subresource === 'status' ? 'status' : undefined);
        const exists = store.peek(ref, namespace, name!) !== undefined;
        const r = await this.admitted(
          ctx,
          route,
          exists ? 'UPDATE' : 'CREATE',
          name!,
          opts,
          (o) => store.patchOrCreate(ref, namespace, name!, type, body, o),
          (x) => x.object,
        );
        return this.sendJson(ctx, r.created ? 201 : 200, r.object);
      }
      case 'delete': {
        const opts = await this.deleteOptions(ctx);
        const r = await this.admitted(
          ctx,
          route,
          'DELETE',
          name!,
          opts,
          (o) =>
            o.dryRun
              ? { object: store.getOrThrow(ref, namespace, name!), pending: false }
              : store.deleteWithResult(ref, namespace, name!, o),
          () => undefined,
        );
        if (r.pending || info.returnDeletedObject) return this.sendJson(ctx, 200, r.object);
        return this.sendJson(ctx, 200, {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Success',
          details: {
            name: r.object.metadata.name,
            ...(info.group ? { group: info.group } : {}),
            kind: info.resource,
            uid: r.object.metadata.uid,
          },
        });
      }
      case 'deletecollection': {
        const opts = await this.deleteOptions(ctx);
        const items = store.deleteCollection(
          ref,
          namespace,
          {
            labelSelector: q.get('labelSelector') ?? undefined,
            fieldSelector: q.get('fieldSelector') ?? undefined,
          },
          opts,
        );
        return this.sendJson(ctx, 200, {
          kind: info.listKind,
          apiVersion: groupVersion(info),
          metadata: { resourceVersion: String(store.currentResourceVersion()) },
          items,
        });
      }
    }
    throw methodNotAllowed();
  }

  /**
   * Runs `write` once the validating webhooks admitted what it would store (admission.ts): a dry
   * run gives the object they review; the write itself follows if nothing changed the stored object
   * while they answered (else the whole admission runs again, as a real server's retry loop does).
   * Without a matching webhook, `write` runs at once.
   */
  private async admitted<O extends { dryRun?: boolean; warnings?: string[] }, T>(
    ctx: RequestContext,
    route: Route,
    operation: Operation,
    name: string,
    opts: O,
    write: (opts: O) => T,
    objectOf: (result: T) => KubeObject | undefined,
  ): Promise<T> {
    const { info, namespace, subresource } = route;
    const ref = this.ref(info);
    for (let attempt = 0; ; attempt++) {
      const configs = this.store.list(REF.validatingwebhookconfigurations, undefined, { shared: true }).items;
      const webhooks = matchingWebhooks(configs, { info, operation, ...(subresource ? { subresource } : {}) });
      if (webhooks.length === 0) return write(opts);
      const old = operation === 'CREATE' ? undefined : this.store.get(ref, namespace, name);
      const preview = write({ ...opts, dryRun: true, warnings: [] });
      const object = objectOf(preview);
      const auth = ctx.req.headers.authorization;
      await validate(
        webhooks,
        {
          info,
          ...(subresource ? { subresource } : {}),
          operation,
          namespace,
          name: object?.metadata?.name ?? name,
          ...(object ? { object } : {}),
          ...(old ? { oldObject: old } : {}),
          dryRun: opts.dryRun === true,
          username: auth?.startsWith('Bearer ') ? auth.slice(7) : 'kubernetes-admin',
        },
        ctx.warnings,
      );
      if (opts.dryRun) return preview;
      const now = name === '' ? undefined : this.store.peek(ref, namespace, name);
      if (now?.metadata.resourceVersion === old?.metadata.resourceVersion) return write(opts);
      if (attempt >= 4) {
        throw new ApiError(
          409,
          'Conflict',
          `Operation cannot be fulfilled on ${info.resource}${info.group ? `.${info.group}` : ''} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
        );
      }
    }
  }

  private async serveEviction(ctx: RequestContext, namespace: string, name: string): Promise<void> {
    const body = await this.objectBody(ctx, true);
    if (this.evict) {
      const r = this.evict(this.store, namespace, name, body ?? {}, this.now());
      return this.sendJson(ctx, r.code, r.body);
    }
    // Without the control plane: evict without PDB checks.
    const b = (body ?? {}) as { deleteOptions?: DeleteOptions };
    this.store.delete({ group: '', version: 'v1', resource: 'pods' }, namespace, name, b.deleteOptions ?? {});
    return this.sendJson(ctx, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
  }

  // ---- watch ----------------------------------------------------------------------------------

  private serveWatch(ctx: RequestContext, info: ResourceInfo, namespace: string | undefined): void {
    const q = ctx.url.searchParams;
    const { res } = ctx;
    const table = this.wantsTable(ctx);
    const labelSelector = q.get('labelSelector') ?? undefined;
    const fieldSelector = q.get('fieldSelector') ?? undefined;
    // Selector errors are answered as a plain 400, before the stream starts.
    labelSelectorFn(labelSelector);
    fieldSelectorFor(info, fieldSelector, labelSelector ?? '');
    const { resourceVersion, sendInitialEvents, allowWatchBookmarks: bookmarks } = readListOptions(q);
    const timeoutSeconds = q.get('timeoutSeconds');
    const apiVersion = groupVersion(info);
    let started = false;
    let ended = false;
    let firstTable = true;
    const buffered: Array<string | Buffer> = [];
    const lineKeys: Record<WatchEventType, string> = {
      ADDED: `ADDED ${apiVersion}`,
      MODIFIED: `MODIFIED ${apiVersion}`,
      DELETED: `DELETED ${apiVersion}`,
    };
    const line = (type: WatchEventType, c: Change): string | Buffer => {
      if (table) {
        const t = this.tableOf(
          ctx,
          info,
          [c.object.apiVersion === apiVersion ? c.object : { ...c.object, apiVersion }],
          { noHeaders: !firstTable, resourceVersion: String(c.rv) },
        );
        firstTable = false;
        return `{"type":"${type}","object":${JSON.stringify(t)}}\n`;
      }
      // Serialised and encoded once per change, event type and version: every watcher of the
      // same type writes the same bytes.
      let cache = c.lines;
      if (!cache) c.lines = cache = new Map();
      const key = lineKeys[type];
      let bytes = cache.get(key);
      if (bytes === undefined) {
        const json = JSON.stringify(c.object.apiVersion === apiVersion ? c.object : { ...c.object, apiVersion });
        bytes = Buffer.from(`{"type":"${type}","object":${json}}\n`);
        cache.set(key, bytes);
      }
      return bytes;
    };
    const deliver = (type: WatchEventType, c: Change): void => {
      if (ended) return;
      const l = line(type, c);
      if (started) res.write(l);
      else buffered.push(l);
    };
    const timers: NodeJS.Timeout[] = [];
    let stop: () => void = () => {};
    const end = (): void => {
      if (ended) return;
      ended = true;
      for (const t of timers) clearTimeout(t);
      stop();
      this.openWatches.delete(end);
      if (!res.writableEnded) res.end();
    };
    const bookmarkLine = (initialEventsEnd: boolean): string => {
      const metadata = {
        resourceVersion: String(this.store.currentResourceVersion()),
        ...(initialEventsEnd ? { annotations: { 'k8s.io/initial-events-end': 'true' } } : {}),
      };
      return `${JSON.stringify({ type: 'BOOKMARK', object: { kind: info.kind, apiVersion, metadata } })}\n`;
    };
    const bookmark = (): void => {
      if (ended || !started) return;
      res.write(bookmarkLine(false));
    };
    try {
      stop = this.store.watchChanges(
        this.ref(info),
        namespace,
        {
          resourceVersion,
          sendInitialEvents,
          ...(labelSelector ? { labelSelector } : {}),
          ...(fieldSelector ? { fieldSelector } : {}),
        },
        deliver,
        end,
      );
    } catch (e) {
      if (e instanceof ApiError && e.code === 410) {
        // As the real watch cache does: 200 and one ERROR event, then the end of the stream.
        res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
        res.end(`${JSON.stringify({ type: 'ERROR', object: e.toStatus() })}\n`);
        return;
      }
      throw e;
    }
    // The initial state was delivered synchronously: a watch-list client learns that it has it all
    // from a bookmark at the state's resourceVersion (sent only to clients that allow bookmarks).
    if (sendInitialEvents && bookmarks) buffered.push(bookmarkLine(true));
    res.writeHead(200, {
      'Content-Type': table ? TABLE_CONTENT_TYPE : 'application/json',
      'Transfer-Encoding': 'chunked',
    });
    res.flushHeaders();
    // A watch is audited when its response starts (the real server's ResponseStarted stage), not
    // when it ends: open watches are visible in the log.
    ctx.audit?.();
    started = true;
    for (const l of buffered) res.write(l);
    buffered.length = 0;
    this.openWatches.add(end);
    res.on('close', end);
    if (timeoutSeconds && Number(timeoutSeconds) > 0) {
      timers.push(
        setTimeout(() => {
          if (bookmarks) bookmark();
          end();
        }, Number(timeoutSeconds) * 1000),
      );
    }
    if (bookmarks) {
      const every = (): void => {
        bookmark();
        timers.push(setTimeout(every, 60_000));
      };
      timers.push(setTimeout(every, 60_000));
    }
  }

  // ---- simulator control endpoints ------------------------------------------------------------

  private async simEndpoint(ctx: RequestContext, path: string, method: string): Promise<void> {
    if (path === '/sim/audit') {
      if (method === 'DELETE') {
        this.audit.clear();
        return this.sendJson(ctx, 200, { cleared: true });
      }
      if (method !== 'GET') throw methodNotAllowed();
      return this.sendJson(ctx, 200, { items: this.audit.entries() });
    }
    if (path === '/sim/faults') {
      if (method === 'GET') return this.sendJson(ctx, 200, { spec: this.faults.spec(), rules: this.faults.rules() });
      if (method === 'DELETE') {
        this.faults.clear();
        return this.sendJson(ctx, 200, { spec: '', rules: [] });
      }
      if (method !== 'POST') throw methodNotAllowed();
      const body = ((await this.objectBody(ctx, true)) ?? {}) as { spec?: string; action?: string };
      try {
        if (typeof body.spec === 'string') this.faults.set(body.spec);
      } catch (e) {
        throw new ApiError(400, 'BadRequest', (e as Error).message);
      }
      if (body.action === 'drop-watches') this.faults.dropWatches();
      else if (body.action === 'expire') this.faults.expireResourceVersions();
      else if (body.action !== undefined)
        throw new ApiError(400, 'BadRequest', `unknown action "${body.action}" (drop-watches, expire)`);
      return this.sendJson(ctx, 200, { spec: this.faults.spec(), rules: this.faults.rules() });
    }
    throw notFoundPath();
  }
}

/**
 * The one name a list or watch selects by `fieldSelector=metadata.name=NAME`, which the API server
 * takes as the request's name (RBAC's resourceNames then apply to it, and its audit log shows it).
 */
function nameSelected(ctx: RequestContext): string | undefined {
  if (ctx.verb !== 'list' && ctx.verb !== 'watch') return undefined;
  // A term requiring metadata.name exactly, among any others (fields.Selector's RequiresExactMatch).
  for (const term of (ctx.url.searchParams.get('fieldSelector') ?? '').split(',')) {
    const m = /^\s*metadata\.name\s*==?\s*([^\s]+)\s*$/.exec(term);
    if (m) return m[1];
  }
  return undefined;
}
