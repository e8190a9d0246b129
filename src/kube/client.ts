// KubeClient: every request Pacer sends to the API server, built here (the path, the JSON body, the
// Content-Type of each patch, the User-Agent) and carried by a Connection (wire.ts): Node's
// http/https (httpconnection.ts: the controller and the kubectl plugin, connect.ts), or client-node's
// fetch for a KubeConfig of client-node's (clientnode.ts: tests, and the kubeconfigs that need it).
// This file loads neither: a KubeConfig's connection is
// imported on its first request. Every failure leaves here as a KubeError (errors.ts).

import type { KubeConfig } from '@kubernetes/client-node';
import type { Deployment, DeploymentStatus, ObjectMeta, Pod, ReplicaSet } from '../api/types.ts';
import { GROUP, PLAN_KIND, PLAN_PLURAL, PLURAL, VERSION } from '../api/types.ts';
import type { AnalysisRun } from '../api/analysis.ts';
import {
  ANALYSIS_RUN_KIND,
  ANALYSIS_RUN_PLURAL,
  ANALYSIS_TEMPLATE_KIND,
  ANALYSIS_TEMPLATE_PLURAL,
  CLUSTER_ANALYSIS_TEMPLATE_KIND,
  CLUSTER_ANALYSIS_TEMPLATE_PLURAL,
} from '../api/analysis.ts';
import { KubeError, fromResponse, toKubeError } from './errors.ts';
import type { Status } from './errors.ts';
import { TokenBucket } from './ratelimit.ts';
import type { Clock } from './clock.ts';
import type { Connection, WireResponse } from './wire.ts';
import { setTimeout as sleep } from 'node:timers/promises';

/** The HTTP methods KubeClient sends (client-node's HttpMethod names the same strings). */
export const HttpMethod = {
  GET: 'GET',
  POST: 'POST',
  PUT: 'PUT',
  PATCH: 'PATCH',
  DELETE: 'DELETE',
} as const;
export type HttpMethod = (typeof HttpMethod)[keyof typeof HttpMethod];

export const DEFAULT_USER_AGENT = 'pacer-controller/0.1.0';

/** A resource type as the URL names it. The core group is ''. */
export interface ResourceType {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
}

export const DEPLOYMENTS: ResourceType = {
  group: GROUP,
  version: VERSION,
  plural: PLURAL,
  kind: 'Deployment',
  namespaced: true,
};
/** apps/v1 Deployments: Pacer is their controller in native mode (`pacer controller --deployments apps`). */
export const APPS_DEPLOYMENTS: ResourceType = {
  group: 'apps',
  version: 'v1',
  plural: 'deployments',
  kind: 'Deployment',
  namespaced: true,
};
export const REPLICASETS: ResourceType = {
  group: 'apps',
  version: 'v1',
  plural: 'replicasets',
  kind: 'ReplicaSet',
  namespaced: true,
};
export const PODS: ResourceType = { group: '', version: 'v1', plural: 'pods', kind: 'Pod', namespaced: true };
export const NODES: ResourceType = { group: '', version: 'v1', plural: 'nodes', kind: 'Node', namespaced: false };
/** Node rolls (crds/noderolls.pacer.dev.yaml). */
export const NODEROLLS: ResourceType = {
  group: GROUP,
  version: VERSION,
  plural: 'noderolls',
  kind: 'NodeRoll',
  namespaced: false,
};
/** The simulated cluster's node groups (src/sim/control/nodegroups.ts). */
export const SIM_NODEGROUPS: ResourceType = {
  group: 'sim.pacer.dev',
  version: 'v1',
  plural: 'nodegroups',
  kind: 'NodeGroup',
  namespaced: false,
};
/** Cluster API's MachineDeployments, MachineSets and Machines (cluster.x-k8s.io/v1beta2): node groups a NodeRoll may name. */
export const CAPI_MACHINEDEPLOYMENTS: ResourceType = {
  group: 'cluster.x-k8s.io',
  version: 'v1beta2',
  plural: 'machinedeployments',
  kind: 'MachineDeployment',
  namespaced: true,
};
export const CAPI_MACHINESETS: ResourceType = {
  group: 'cluster.x-k8s.io',
  version: 'v1beta2',
  plural: 'machinesets',
  kind: 'MachineSet',
  namespaced: true,
};
export const CAPI_MACHINES: ResourceType = {
  group: 'cluster.x-k8s.io',
  version: 'v1beta2',
  plural: 'machines',
  kind: 'Machine',
  namespaced: true,
};
/** Custom plans (crds/plans.pacer.dev.yaml). */
export const PLANS: ResourceType = {
  group: GROUP,
  version: VERSION,
  plural: PLAN_PLURAL,
  kind: PLAN_KIND,
  namespaced: true,
};
/** Analysis (crds/analysis*.pacer.dev.yaml, docs/semantics/analysis.md). */
export const ANALYSIS_TEMPLATES: ResourceType = {
  group: GROUP,
  version: VERSION,
  plural: ANALYSIS_TEMPLATE_PLURAL,
  kind: ANALYSIS_TEMPLATE_KIND,
  namespaced: true,
};
export const CLUSTER_ANALYSIS_TEMPLATES: ResourceType = {
  group: GROUP,
  version: VERSION,
  plural: CLUSTER_ANALYSIS_TEMPLATE_PLURAL,
  kind: CLUSTER_ANALYSIS_TEMPLATE_KIND,
  namespaced: false,
};
export const ANALYSIS_RUNS: ResourceType = {
  group: GROUP,
  version: VERSION,
  plural: ANALYSIS_RUN_PLURAL,
  kind: ANALYSIS_RUN_KIND,
  namespaced: true,
};
/** The freeze switch is one of these (engine/freeze.ts). */
export const CONFIGMAPS: ResourceType = {
  group: '',
  version: 'v1',
  plural: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
};
/** Leader election's Lease (manager/leaderelection.ts). */
export const LEASES: ResourceType = {
  group: 'coordination.k8s.io',
  version: 'v1',
  plural: 'leases',
  kind: 'Lease',
  namespaced: true,
};
export const EVENTS: ResourceType = { group: '', version: 'v1', plural: 'events', kind: 'Event', namespaced: true };
export const CRDS: ResourceType = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  plural: 'customresourcedefinitions',
  kind: 'CustomResourceDefinition',
  namespaced: false,
};
/** The name of Pacer's CRD. */
export const DEPLOYMENT_CRD_NAME = `${PLURAL}.${GROUP}`;

export type PatchType = 'merge' | 'json' | 'strategic';
const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
};

export interface KubeList<T> {
  items: T[];
  resourceVersion: string;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
export interface WatchEvent<T> {
  type: WatchEventType;
  /** The object; for ERROR a Status; for BOOKMARK only metadata.resourceVersion is set. */
  object: T;
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** Page size; pages are followed until the list is complete. */
  limit?: number;
}

/** A list whose items are transformed page by page (a cache's transform: only the slim items are kept). */
export interface TransformedListOptions<T> extends ListOptions {
  transform?: (item: T) => T;
}

export interface WatchOptions {
  resourceVersion: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Asks the server to end the watch cleanly after this long (client-go picks 300–600 s). */
  timeoutSeconds?: number;
  /**
   * Abort when no bytes arrived for this long (a half-open connection never errors on its own).
   * Default: timeoutSeconds + 30 s.
   */
  inactivityMs?: number;
  /** Called once the server has accepted the watch (200), before the first event. */
  onOpen?: () => void;
}

export interface DeleteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
}

/**
 * Sees every request (client-go's rest_client metrics): `code` is the HTTP status as a string, or
 * "<error>" when no response came back; `seconds` is the request's latency, left out for watches
 * (they are counted once their response starts, as client-go does, but a watch's length is no latency).
 */
export interface RequestObserver {
  observe(r: { method: string; host: string; code: string; seconds?: number }): void;
  /** A request waited `seconds` for the client-side rate limiter (client-go's rest_client_rate_limiter_duration_seconds). */
  throttled?(r: { method: string; host: string; seconds: number }): void;
  /** A request is sent again after the server's Retry-After (client-go's rest_client_request_retries_total). */
  retried?(r: { method: string; host: string; code: string }): void;
}

/** Attempts at a request the server answers with Retry-After (client-go's rest client: maxRetries 10). */
export const MAX_ATTEMPTS = 10;

/**
 * The seconds to wait before asking again, when the server said so: a 429 (priority and fairness
 * turned it away, or too many requests in flight) or a 5xx carrying Retry-After in whole seconds,
 * as client-go's checkWait reads it. Undefined for any other answer, which is final.
 */
export function retryAfter(resp: Pick<WireResponse, 'status' | 'header'>): number | undefined {
  if (resp.status !== 429 && resp.status < 500) return undefined;
  const h = resp.header('Retry-After')?.trim();
  return h !== undefined && /^[0-9]{1,6}$/.test(h) ? Number(h) : undefined;
}

/**
 * The signal of one request: aborted by `outer`, or with a TimeoutError after `timeoutMs` (real
 * time: it bounds network I/O, see KubeClientOptions.clock), until `done()`, which the request
 * calls when it ends. Not AbortSignal.timeout and AbortSignal.any: their timer and signals outlive
 * the request by the whole timeout (30 s), so at hundreds of requests a second thousands of them
 * were alive at every young-generation collection, copied there, then moved to the old generation
 * for a full collection to free (bench/RESULTS.md, "A request's timer ends with the request").
 */
export function requestSignal(timeoutMs: number, outer?: AbortSignal): { signal: AbortSignal; done: () => void } {
  const controller = new AbortController();
  if (outer?.aborted) {
    controller.abort(outer.reason);
    return { signal: controller.signal, done: () => {} };
  }
  const onOuter = (): void => controller.abort(outer?.reason);
  outer?.addEventListener('abort', onOuter, { once: true });
  const timer = setTimeout(
    () => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
    timeoutMs,
  );
  timer.unref();
  return {
    signal: controller.signal,
    done: () => {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuter);
    },
  };
}

export interface KubeClientOptions {
  userAgent?: string;
  /** Timeout of a single non-watch request. */
  requestTimeoutMs?: number;
  metrics?: RequestObserver;
  /**
   * Client-side rate limit, as client-go's QPS and Burst: every request, watches included, takes a
   * token first. Unset: no limit (the plugin, tests); the controller sets 200/400 by default (docs/flow-control.md).
   */
  rateLimit?: { qps: number; burst: number };
  /**
   * Time for the rate limiter's waits (default: the real clock). The request timeout and the watch
   * inactivity timer stay on real time: they bound real network I/O, which a manual clock does not
   * see pass (a test that moves its clock ten minutes to reach a resync would abort the requests in
   * flight, and one that never moves it would never time out a hung connection).
   */
  clock?: Clock;
  /**
   * Asked before every write (POST, PUT, PATCH, DELETE): a reason to refuse it, or undefined to
   * send it. The manager refuses the writes of a replica that is not (or no longer) the leader.
   */
  writeGate?: () => string | undefined;
}

/** The path of a collection or an object: `/apis/apps/v1/namespaces/ns/replicasets/name/status`. */
export function resourcePath(t: ResourceType, namespace?: string, name?: string, subresource?: string): string {
  let p = t.group === '' ? `/api/${t.version}` : `/apis/${t.group}/${t.version}`;
  if (t.namespaced && namespace) p += `/namespaces/${encodeURIComponent(namespace)}`;
  p += `/${t.plural}`;
  if (name !== undefined) p += `/${encodeURIComponent(name)}`;
  if (subresource) p += `/${subresource}`;
  return p;
}

function qs(params: Record<string, string | number | boolean | undefined>): string {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') u.set(k, String(v));
  const s = u.toString();
  return s ? `?${s}` : '';
}

function describe(t: ResourceType, namespace: string | undefined, name?: string): string {
  const ns = t.namespaced && namespace ? `${namespace}/` : '';
  return name === undefined ? `${t.plural}${namespace ? ` in ${namespace}` : ''}` : `${t.kind} ${ns}${name}`;
}

/** A client-node KubeConfig (tests') or a Connection (connect.ts: the controller's and the plugin's). */
function isConnection(c: KubeConfig | Connection): c is Connection {
  return typeof (c as Connection).send === 'function';
}

export class KubeClient {
  /** The API server URL, for messages. */
  readonly server: string;
  /** The kubeconfig's name for the current cluster (simulated.ts tells a simulated cluster by it). */
  readonly clusterName: string | undefined;
  readonly userAgent: string;
  private readonly requestTimeoutMs: number;
  /** Where requests go: given, or made from a KubeConfig on the first request (clientnode.ts). */
  private connection?: Connection | Promise<Connection>;
  private readonly metrics?: RequestObserver;
  /** host[:port] of the API server, the `host` label. */
  private readonly host: string;
  private readonly limiter?: TokenBucket;
  private readonly writeGate?: () => string | undefined;
  /** The Deployment kind the Deployment methods read and write: pacer.dev's, or apps/v1's (forDeployments). */
  readonly deploymentType: ResourceType = DEPLOYMENTS;

  constructor(kc: KubeConfig | Connection, opts: KubeClientOptions = {}) {
    if (isConnection(kc)) {
      this.connection = kc;
      this.server = kc.server.replace(/\/+$/, '');
      this.clusterName = kc.clusterName;
    } else {
      const cluster = kc.getCurrentCluster();
      if (!cluster) throw new Error('the kubeconfig has no current cluster');
      this.server = cluster.server.replace(/\/+$/, '');
      this.clusterName = cluster.name;
      // Imported only here, so that a client built on a Connection never loads client-node.
      this.connection = import('./clientnode.ts').then((m) => {
        const c = new m.FetchConnection(kc);
        this.connection = c;
        return c;
      });
    }
    this.userAgent = opts.userAgent ?? DEFAULT_USER_AGENT;
    this.requestTimeoutMs = opts.requestTimeoutMs ?? 30_000;
    this.metrics = opts.metrics;
    this.writeGate = opts.writeGate;
    if (opts.rateLimit) this.limiter = new TokenBucket(opts.rateLimit.qps, opts.rateLimit.burst, opts.clock);
    let host = '';
    try {
      host = new URL(this.server).host;
    } catch {
      // an unparseable server fails on the first request anyway
    }
    this.host = host;
  }

  private observe(method: HttpMethod, code: number | undefined, started?: number): void {
    if (!this.metrics) return;
    this.metrics.observe({
      method: String(method),
      host: this.host,
      code: code === undefined ? '<error>' : String(code),
      ...(started !== undefined ? { seconds: (performance.now() - started) / 1000 } : {}),
    });
  }

  /** Waits for the rate limiter's token (when there is a limiter); a background request for a spare one. */
  private async throttle(method: HttpMethod, signal: AbortSignal | undefined, background: boolean): Promise<void> {
    if (!this.limiter) return;
    const waited = await (background ? this.limiter.takeSpare(signal) : this.limiter.take(signal));
    this.metrics?.throttled?.({ method: String(method), host: this.host, seconds: waited / 1000 });
  }

  /** Sends one request through the connection, with the headers every request carries. */
  private async send(
    method: HttpMethod,
    path: string,
    signal: AbortSignal,
    body?: { text: string; contentType: string },
    accept = 'application/json',
  ): Promise<WireResponse> {
    const connection = await this.connection!;
    const headers: Record<string, string> = { Accept: accept, 'User-Agent': this.userAgent };
    if (body) headers['Content-Type'] = body.contentType;
    return connection.send({ method, path, headers, body: body?.text, signal });
  }

  /**
   * Opens a streaming GET (a watch, a followed log), the rate limiter's token already taken: sent,
   * and sent again after the seconds a 429 or 5xx answer's Retry-After asks for, each time through
   * the rate limiter, up to MAX_ATTEMPTS, as client-go's Watch and Stream retry like any request.
   * Returns the answer that is final (a 2xx, or one without Retry-After, or the last attempt's);
   * `beforeEach` runs before every send (the watch re-arms its inactivity timer there), and
   * `sendFailed` when one fails, before its error rejects as the connection's, for the caller to word.
   */
  private async openStream(
    path: string,
    signal: AbortSignal,
    opts: { accept?: string; beforeEach?: () => void; sendFailed?: () => void } = {},
  ): Promise<WireResponse> {
    for (let attempt = 1; ; attempt++) {
      opts.beforeEach?.();
      let resp: WireResponse;
      try {
        resp = await this.send(HttpMethod.GET, path, signal, undefined, opts.accept);
      } catch (err) {
        opts.sendFailed?.();
        throw err;
      }
      this.observe(HttpMethod.GET, resp.status);
      const wait = resp.status >= 200 && resp.status <= 299 ? undefined : retryAfter(resp);
      if (wait === undefined || attempt >= MAX_ATTEMPTS) return resp;
      await resp.text(); // read to its end, so that the connection can carry the next attempt
      this.metrics?.retried?.({ method: String(HttpMethod.GET), host: this.host, code: String(resp.status) });
      await sleep(wait * 1000, undefined, { signal });
      await this.throttle(HttpMethod.GET, signal, false);
    }
  }

  /**
   * One attempt at a request: through the rate limiter and the write gate, then sent; its status,
   * its body, and the seconds a 429 or 5xx answer's Retry-After asks to wait (client-go's checkWait).
   */
  private async attempt(
    method: HttpMethod,
    path: string,
    what: string,
    opts: { body?: unknown; contentType?: string; signal?: AbortSignal; background?: boolean },
  ): Promise<{ code: number; text: string; wait?: number }> {
    try {
      await this.throttle(method, opts.signal, opts.background ?? false);
    } catch (err) {
      throw toKubeError(err, what, this.server);
    }
    // After the rate limiter's wait, right before sending: leadership may have been lost meanwhile.
    if (method !== HttpMethod.GET && this.writeGate) {
      const refused = this.writeGate();
      if (refused !== undefined) throw new KubeError('NotLeader', `${what}: not sent: ${refused}`);
    }
    const { signal, done } = requestSignal(this.requestTimeoutMs, opts.signal);
    let code: number | undefined;
    const started = performance.now(); // real time: rest_client_request_duration_seconds measures the request's actual latency
    try {
      const body =
        opts.body === undefined
          ? undefined
          : { text: JSON.stringify(opts.body), contentType: opts.contentType ?? 'application/json' };
      const resp = await this.send(method, path, signal, body);
      code = resp.status;
      const text = await resp.text();
      return { code, text, wait: retryAfter(resp) };
    } catch (err) {
      throw toKubeError(err, what, this.server);
    } finally {
      done();
      this.observe(method, code, started);
    }
  }

  /** One request; JSON in and out. `what` names the call in error messages. */
  async request<T>(
    method: HttpMethod,
    path: string,
    opts: { body?: unknown; contentType?: string; signal?: AbortSignal; what?: string; background?: boolean } = {},
  ): Promise<T> {
    const what = opts.what ?? `${method} ${path}`;
    let code: number;
    let text: string;
    for (let attempt = 1; ; attempt++) {
      let wait: number | undefined;
      ({ code, text, wait } = await this.attempt(method, path, what, opts));
      // The server asked to be asked again later (429 from priority and fairness, or a 5xx with
      // Retry-After), as client-go's rest client honours it: the same request after that many
      // seconds, up to its default of 10 attempts, each through the rate limiter and the write gate.
      if (wait === undefined || attempt >= MAX_ATTEMPTS) break;
      this.metrics?.retried?.({ method: String(method), host: this.host, code: String(code) });
      try {
        await sleep(wait * 1000, undefined, { signal: opts.signal });
      } catch (err) {
        throw toKubeError(err, what, this.server);
      }
    }
    if (code < 200 || code > 299) throw fromResponse(code, text, what);
    if (text === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch (err) {
      throw new KubeError('Other', `${what}: the server's answer is not JSON`, { code, cause: err });
    }
  }

  // ---- generic verbs ----------------------------------------------------------------------------

  async get<T>(t: ResourceType, namespace: string | undefined, name: string, subresource?: string): Promise<T> {
    return this.request<T>(HttpMethod.GET, resourcePath(t, namespace, name, subresource), {
      what: `get ${describe(t, namespace, name)}`,
    });
  }

  /**
   * Lists every page; the resourceVersion is the list's, to start a watch from: its first page's
   * (the API server serves every page of a list at that resourceVersion; were a later page newer,
   * a watch from it would miss the changes to the earlier pages' objects in between).
   */
  async list<T>(
    t: ResourceType,
    namespace?: string,
    opts: TransformedListOptions<T> = {},
    signal?: AbortSignal,
  ): Promise<KubeList<T>> {
    const items: T[] = [];
    let cont: string | undefined;
    let rv = '';
    do {
      const page = await this.request<{ items?: T[]; metadata?: { resourceVersion?: string; continue?: string } }>(
        HttpMethod.GET,
        resourcePath(t, namespace) +
          qs({
            labelSelector: opts.labelSelector,
            fieldSelector: opts.fieldSelector,
            limit: opts.limit ?? 500,
            continue: cont,
          }),
        { signal, what: `list ${describe(t, namespace)}` },
      );
      for (const item of page.items ?? []) items.push(opts.transform ? opts.transform(item) : item);
      rv ||= page.metadata?.resourceVersion ?? '';
      cont = page.metadata?.continue || undefined;
    } while (cont);
    return { items, resourceVersion: rv };
  }

  /** `background`: the request takes only a spare rate-limit token (TokenBucket.takeSpare). */
  async create<T>(
    t: ResourceType,
    namespace: string | undefined,
    obj: T,
    opts: { background?: boolean } = {},
  ): Promise<T> {
    const name = (obj as { metadata?: ObjectMeta }).metadata?.name;
    return this.request<T>(HttpMethod.POST, resourcePath(t, namespace), {
      body: obj,
      background: opts.background,
      what: `create ${describe(t, namespace, name ?? '')}`,
    });
  }

  /** PUT: the object's metadata.resourceVersion is a precondition (409 Conflict when stale). */
  async replace<T>(
    t: ResourceType,
    namespace: string | undefined,
    name: string,
    obj: T,
    subresource?: string,
  ): Promise<T> {
    return this.request<T>(HttpMethod.PUT, resourcePath(t, namespace, name, subresource), {
      body: obj,
      what: `${subresource ? `update ${subresource} of` : 'update'} ${describe(t, namespace, name)}`,
    });
  }

  async patch<T>(
    t: ResourceType,
    namespace: string | undefined,
    name: string,
    patch: unknown,
    type: PatchType,
    subresource?: string,
    opts: { background?: boolean } = {},
  ): Promise<T> {
    return this.request<T>(HttpMethod.PATCH, resourcePath(t, namespace, name, subresource), {
      body: patch,
      contentType: PATCH_CONTENT_TYPES[type],
      background: opts.background,
      what: `patch ${subresource ? `${subresource} of ` : ''}${describe(t, namespace, name)}`,
    });
  }

  async delete(t: ResourceType, namespace: string | undefined, name: string, opts: DeleteOptions = {}): Promise<void> {
    const body: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'v1' };
    if (opts.preconditions) body.preconditions = opts.preconditions;
    if (opts.propagationPolicy) body.propagationPolicy = opts.propagationPolicy;
    await this.request<unknown>(HttpMethod.DELETE, resourcePath(t, namespace, name), {
      body,
      what: `delete ${describe(t, namespace, name)}`,
    });
  }

  /**
   * A watch: resolves when the server ends the stream cleanly (or `signal` aborts it), rejects with
   * a KubeError on any failure (HTTP status, reset, inactivity). ERROR events (410 Expired inside
   * the stream) are handed to `onEvent` like any other: the caller decides what they mean.
   */
  async watch<T>(
    t: ResourceType,
    namespace: string | undefined,
    opts: WatchOptions,
    onEvent: (e: WatchEvent<T>) => void,
    signal?: AbortSignal,
  ): Promise<void> {
    const path =
      resourcePath(t, namespace) +
      qs({
        watch: 'true',
        resourceVersion: opts.resourceVersion,
        allowWatchBookmarks: 'true',
        labelSelector: opts.labelSelector,
        fieldSelector: opts.fieldSelector,
        timeoutSeconds: opts.timeoutSeconds,
      });
    const what = `watch ${describe(t, namespace)}`;
    try {
      await this.throttle(HttpMethod.GET, signal, false);
    } catch (err) {
      if (signal?.aborted) return;
      throw toKubeError(err, what, this.server);
    }
    const inactivityMs = opts.inactivityMs ?? ((opts.timeoutSeconds ?? 300) + 30) * 1000;
    const local = new AbortController();
    let inactive = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = (): void => {
      if (timer) clearTimeout(timer);
      // Real time: bytes on a socket arrive in real time (see KubeClientOptions.clock).
      timer = setTimeout(() => {
        inactive = true;
        local.abort();
      }, inactivityMs);
      timer.unref?.();
    };
    const onOuterAbort = (): void => local.abort();
    signal?.addEventListener('abort', onOuterAbort, { once: true });
    try {
      const resp = await this.openStream(path, local.signal, {
        beforeEach: arm,
        sendFailed: () => signal?.aborted || this.observe(HttpMethod.GET, undefined),
      });
      if (resp.status !== 200) throw fromResponse(resp.status, await resp.text(), what);
      opts.onOpen?.();
      const stream = resp.stream();
      const decoder = new TextDecoder();
      let buffered = '';
      for await (const chunk of stream) {
        arm();
        buffered += decoder.decode(chunk, { stream: true });
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, nl).trim();
          buffered = buffered.slice(nl + 1);
          if (line === '') continue;
          let event: WatchEvent<T>;
          try {
            event = JSON.parse(line) as WatchEvent<T>;
          } catch {
            continue; // a torn line: the resourceVersion resume will bring the change again
          }
          onEvent(event);
        }
      }
    } catch (err) {
      if (signal?.aborted) return;
      if (inactive)
        throw new KubeError('Transient', `${what}: no data for ${Math.round(inactivityMs / 1000)}s`, {
          reason: 'WatchInactive',
        });
      throw toKubeError(err, what, this.server);
    } finally {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onOuterAbort);
      local.abort();
    }
  }

  /**
   * A GET whose answer is text read as it comes (a pod's log with follow=true): `onText` gets each
   * piece; resolves when the server ends the answer or `signal` aborts. A status other than 2xx
   * throws the API server's error before any text (`pods "web-1" not found`, a container that is
   * not the pod's, a kubelet the API server cannot reach); `onOpen` is called once the answer is a 2xx.
   */
  async streamText(
    path: string,
    what: string,
    onText: (text: string) => void,
    signal: AbortSignal,
    onOpen?: () => void,
  ): Promise<void> {
    try {
      await this.throttle(HttpMethod.GET, signal, false);
    } catch (err) {
      if (signal.aborted) return;
      throw toKubeError(err, what, this.server);
    }
    try {
      const resp = await this.openStream(path, signal, { accept: '*/*' });
      if (resp.status < 200 || resp.status > 299) throw fromResponse(resp.status, await resp.text(), what);
      onOpen?.();
      const decoder = new TextDecoder();
      for await (const chunk of resp.stream()) {
        const text = decoder.decode(chunk, { stream: true });
        if (text !== '') onText(text);
      }
      const rest = decoder.decode();
      if (rest !== '') onText(rest);
    } catch (err) {
      if (signal.aborted) return;
      if (err instanceof KubeError) throw err;
      throw toKubeError(err, what, this.server);
    }
  }

  // ---- what Pacer does ------------------------------------------------------------------------

  /**
   * POST .../pods/NAME/eviction (policy/v1): true once evicted; false when a PodDisruptionBudget
   * refuses it for now (429) or the pod is gone (404).
   */
  async evictPod(namespace: string, name: string): Promise<boolean> {
    try {
      await this.request(HttpMethod.POST, resourcePath(PODS, namespace, name, 'eviction'), {
        body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace } },
        what: `evict pod ${namespace}/${name}`,
      });
      return true;
    } catch (err) {
      if (err instanceof KubeError && (err.code === 429 || err.kind === 'NotFound')) return false;
      throw err;
    }
  }

  /**
   * This client with its Deployment methods on `type` (APPS_DEPLOYMENTS for native mode): the same
   * connection, rate limit and metrics, as a view whose every other property is this client's.
   */
  forDeployments(type: ResourceType): KubeClient {
    if (type === this.deploymentType) return this;
    const view = Object.create(this) as KubeClient;
    Object.defineProperty(view, 'deploymentType', { value: type, enumerable: true });
    return view;
  }

  /** A fresh read, bypassing every cache (adoption must not trust a cache). */
  getDeployment(namespace: string, name: string): Promise<Deployment> {
    return this.get<Deployment>(this.deploymentType, namespace, name);
  }

  /** Merge-patches labels/annotations/ownerReferences..., guarded by the resourceVersion the change was computed on. */
  patchDeploymentMetadata(
    namespace: string,
    name: string,
    resourceVersion: string | undefined,
    metadata: Partial<ObjectMeta>,
  ): Promise<Deployment> {
    return this.patch<Deployment>(
      this.deploymentType,
      namespace,
      name,
      { metadata: { ...metadata, resourceVersion } },
      'merge',
    );
  }

  /** A merge patch of the Deployment (only what changed), guarded by a metadata.resourceVersion inside `patch`. */
  patchDeployment(namespace: string, name: string, patch: unknown): Promise<Deployment> {
    return this.patch<Deployment>(this.deploymentType, namespace, name, patch, 'merge');
  }

  getReplicaSet(namespace: string, name: string): Promise<ReplicaSet> {
    return this.get<ReplicaSet>(REPLICASETS, namespace, name);
  }

  /** PUT of the whole Deployment (spec changes such as a rollback); 409 when stale. */
  replaceDeployment(d: Deployment): Promise<Deployment> {
    return this.replace<Deployment>(this.deploymentType, d.metadata.namespace, d.metadata.name!, d);
  }

  /**
   * Writes status through /status with a merge patch guarded by `resourceVersion`. Conditions are
   * a list, which a merge patch replaces whole: exactly what the engine computed.
   */
  patchDeploymentStatus(
    namespace: string,
    name: string,
    resourceVersion: string | undefined,
    status: DeploymentStatus,
  ): Promise<Deployment> {
    // Fields the engine dropped must be removed, not left as they were: null deletes in a merge patch.
    const body: Record<string, unknown> = { ...status };
    for (const k of [
      'observedGeneration',
      'replicas',
      'updatedReplicas',
      'readyReplicas',
      'availableReplicas',
      'unavailableReplicas',
      'collisionCount',
      'conditions',
      ...(this.deploymentType.group === 'apps' ? [] : ['selector', 'ready', 'stableRS', 'abortedRS']),
    ]) {
      if (!(k in body)) body[k] = null;
    }
    return this.patch<Deployment>(
      this.deploymentType,
      namespace,
      name,
      { metadata: { resourceVersion }, status: body },
      'merge',
      'status',
    );
  }

  /** PUT /status of the Deployment as read (its resourceVersion is the precondition) with `status`. */
  replaceDeploymentStatus(d: Deployment, status: DeploymentStatus): Promise<Deployment> {
    return this.replace<Deployment>(
      this.deploymentType,
      d.metadata.namespace,
      d.metadata.name!,
      { ...d, status },
      'status',
    );
  }

  createReplicaSet(rs: ReplicaSet): Promise<ReplicaSet> {
    return this.create<ReplicaSet>(REPLICASETS, rs.metadata.namespace, rs);
  }

  /** The run that judges a new revision (engine/analysis/rollout.ts). */
  createAnalysisRun(run: AnalysisRun): Promise<AnalysisRun> {
    return this.create<AnalysisRun>(ANALYSIS_RUNS, run.metadata.namespace, run);
  }

  /** spec.terminate on a run (its open metrics end Successful), guarded by `resourceVersion` when given. */
  terminateAnalysisRun(namespace: string, name: string, resourceVersion?: string): Promise<AnalysisRun> {
    const metadata = resourceVersion !== undefined ? { resourceVersion } : {};
    return this.patch<AnalysisRun>(ANALYSIS_RUNS, namespace, name, { metadata, spec: { terminate: true } }, 'merge');
  }

  /** PUT with the ReplicaSet's resourceVersion: a concurrent change gives Conflict, never a lost update. */
  replaceReplicaSet(rs: ReplicaSet): Promise<ReplicaSet> {
    return this.replace<ReplicaSet>(REPLICASETS, rs.metadata.namespace, rs.metadata.name!, rs);
  }

  deleteReplicaSet(
    namespace: string,
    name: string,
    preconditions?: { uid?: string; resourceVersion?: string },
  ): Promise<void> {
    return this.delete(REPLICASETS, namespace, name, { preconditions, propagationPolicy: 'Background' });
  }

  listPods(namespace?: string, opts?: ListOptions): Promise<KubeList<Pod>> {
    return this.list<Pod>(PODS, namespace, opts);
  }

  /** An Event write yields to every other request waiting for the rate limiter (TokenBucket.takeSpare). */
  createEvent<T>(namespace: string, event: T): Promise<T> {
    return this.create<T>(EVENTS, namespace, event, { background: true });
  }

  patchEvent<T>(namespace: string, name: string, patch: unknown): Promise<T> {
    return this.patch<T>(EVENTS, namespace, name, patch, 'merge', undefined, { background: true });
  }

  /** GET /version: answers whether an API server is there at all. */
  version(): Promise<{ gitVersion?: string }> {
    return this.request<{ gitVersion?: string }>(HttpMethod.GET, '/version', { what: `GET ${this.server}/version` });
  }
}

export type { Status };
