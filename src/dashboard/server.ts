// The dashboard's HTTP server: the page's files, a JSON API and a Server-Sent Events stream, all
// fed by one Hub (hub.ts) whatever the number of pages open. Nothing changes on a GET: actions are
// POSTs, taken only from a page of this very server (its Origin, or Sec-Fetch-Site: same-origin),
// as JSON (which a cross-site form cannot send), and only when the Host header names this server
// (a DNS name pointed at 127.0.0.1 by another site is refused: DNS rebinding).
//
//   GET  /                                           the page (index.html) and its files
//   GET  /api/v1/config                              ConfigView
//   GET  /api/v1/deployments                         DeploymentView[]
//   GET  /api/v1/stream                              text/event-stream: [waiting], snapshot | resumed, then changes
//   POST /api/v1/namespaces/NS/deployments/NAME/ACTION   pause | resume | restart | undo ({"toRevision": N})
//                                                        | setImage ({"container": C, "image": I})
//   GET  /api/v1/namespaces/NS/deployments/NAME/revisions/N/diff[?against=M]   RevisionDiffView
//   GET  /api/v1/namespaces/NS/pods/NAME/log?container=C&follow=true&tailLines=N   text/plain (logs.ts)
//   GET  /api/v1/namespaces/NS/services/NAME/plans       ServicePlansView
//   POST /api/v1/namespaces/NS/services/NAME/plans/PLAN/ACTION  continue | interrupt | forceComplete | restart ({"phase", "step"}) | start ({"parameters": ["K=V"]}) | stop
//   POST /api/v1/noderolls/NAME/ACTION                   pause | resume ({"skipAnalysis": true}) | skip ({"node": NODE})
//   GET  /api/v1/marathon/deployments                    MarathonDeploymentView[]
//   POST /api/v1/marathon/deployments/ID/cancel          ({"force": true}: only stop)
//   POST /api/v1/promotions                              {"items": [{namespace, name}]}: canaries released in dependency order
//   POST /api/v1/freeze/ACTION                           on ({"reason": TEXT}) | off
//   POST /api/v1/session                                 in the cluster: sign in ({"token": TOKEN}), a session cookie
//   POST /api/v1/session/end                             in the cluster: sign out
//
// In the cluster (a Gate, incluster.ts), every /api/v1/ request but the sign-in and the OpenAPI
// document needs a bearer token the API server accepts (its header, or the session's): 401 without;
// each view is sent only to users RBAC lets list it there, and each action is done only once RBAC
// lets the user do what it writes (403 in RBAC's words otherwise), each one audited with who asked.

import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ROLLBACK_MESSAGES } from '../engine/index.ts';
import type { Action, ActionRequest, ActionResult, ConfigView, Kind, Operation, Snapshot, Waiting } from './api.ts';
import type { Act, Operate } from './actions.ts';
import type { Hub, Sequenced } from './hub.ts';
import { marathonDeploymentView, parsePromotionRequest, promotionOrder, runPromotion } from './promotion.ts';
import { activePlans } from '../engine/index.ts';
import { parseLogQuery, servePodLog } from './logs.ts';
import type { PodLog, PodLogQuery } from './logs.ts';
import type { StaticFile } from './static.ts';
import { PACER_NAMESPACE } from '../api/types.ts';
import type { Caller } from '../server/auth.ts';
import {
  actionWords,
  bearerOf,
  changeScope,
  deploymentActionAccess,
  operationAccess,
  operationWords,
  podLogAccess,
  sameOriginBehindAnyHost,
  sessionCookie,
  sessionOf,
  viewAccess,
} from './access.ts';
import type { Gate } from './incluster.ts';
import { SECURITY_HEADERS, hostAllowed, isWildcard, sameOrigin } from './origin.ts';
import {
  jsonObject,
  parseActionRequest,
  parseOperation,
  readBody,
  refuse,
  sendJson,
  stringFields,
} from './requests.ts';

export interface DashboardServerOptions {
  hub: Hub;
  /** What the page is told (its user is added per request). */
  config: Omit<ConfigView, 'user'>;
  files: Map<string, StaticFile>;
  act: Act;
  /** The actions on node rolls, the freeze switch and plans (absent: not served, 404). */
  operate?: Operate;
  /** A pod's log (absent: not served, 404). */
  podLog?: PodLog;
  /** The address to listen on (an IP address or "localhost"). */
  address: string;
  /** 0: any free port. */
  port: number;
  /** A comment line on every stream this often, so that proxies and the page see it alive (default 15 s). */
  heartbeatMs?: number;
  /** How long changes are gathered into one event (default 25 ms). */
  batchMs?: number;
  /**
   * In the cluster: who may see and do what, by TokenReview and SubjectAccessReview (absent: the
   * local mode, where the server's own credentials are the user's).
   */
  gate?: Gate;
  /** In the cluster: one line per action, with who asked and the answer (refusals included). */
  audit?: (entry: { user: string; groups: string[]; action: string; status: number; answer: string }) => void;
  /** Where the freeze switch lives (default pacer-system): what freeze on and off are checked against. */
  pacerNamespace?: string;
}

export interface RunningDashboard {
  port: number;
  url: string;
  close(): Promise<void>;
}

export const ACTIONS: ReadonlySet<string> = new Set(['pause', 'resume', 'undo', 'restart', 'setImage']);
export const NODE_ROLL_ACTIONS: ReadonlySet<string> = new Set(['pause', 'resume', 'skip']);
export const FREEZE_ACTIONS: ReadonlySet<string> = new Set(['on', 'off']);
export const PLAN_ACTIONS: ReadonlySet<string> = new Set([
  'continue',
  'interrupt',
  'forceComplete',
  'restart',
  'start',
  'stop',
]);
export const MARATHON_ACTIONS: ReadonlySet<string> = new Set(['cancel']);
/** Bytes of a stream a page may leave unread before it is disconnected (it resumes from its last id). */
const MAX_UNREAD = 8 * 1024 * 1024;

/** The API's OpenAPI document (openapi.yaml beside this file), served at /api/v1/openapi.yaml. */
export const OPENAPI_FILE = new URL('./openapi.yaml', import.meta.url);

/** One SSE event. */
function event(name: string, data: unknown, id?: string): string {
  return `${id !== undefined ? `id: ${id}\n` : ''}event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

export async function startDashboardServer(o: DashboardServerOptions): Promise<RunningDashboard> {
  const heartbeatMs = o.heartbeatMs ?? 15_000;
  const batchMs = o.batchMs ?? 25;
  const openapi = readFileSync(OPENAPI_FILE, 'utf8');
  let port = o.port;
  const streams = new Set<() => void>();

  const pacerNamespace = o.pacerNamespace ?? PACER_NAMESPACE;
  const fromPage = (headers: http.IncomingHttpHeaders): boolean =>
    o.gate ? sameOriginBehindAnyHost(headers) : sameOrigin(headers);
  /** The config as `user` is told it. */
  const configFor = (user: Caller | undefined): ConfigView => ({ ...o.config, user: user?.username ?? null });
  /**
   * What `user` may receive of these items (everything in the local mode); each verdict used is
   * kept in `used` (`kind|namespace`), for the stream's later re-check.
   */
  const visibleOf = async <T>(
    user: Caller | undefined,
    items: T[],
    scope: (t: T) => { kind: Kind; namespace: string },
    used?: Map<string, boolean>,
  ) => {
    if (!o.gate || !user) return items;
    const may = await o.gate.visible(user, items.map(scope));
    return items.filter((t) => {
      const { kind, namespace } = scope(t);
      const yes = may(kind, namespace);
      used?.set(`${kind}|${namespace}`, yes);
      return yes;
    });
  };
  /** In the cluster, a refusal unless `user` may read views of `kinds` in `namespace`. */
  const mayRead = async (user: Caller | undefined, namespace: string, kinds: Kind[]) => {
    if (!o.gate || !user) return undefined;
    return o.gate.check(
      user,
      kinds.map((k) => viewAccess(k, namespace)).filter((a) => a !== undefined),
    );
  };

  const stream = async (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    url: URL,
    user: Caller | undefined,
  ): Promise<void> => {
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
    });
    // How long the browser waits before it reconnects by itself.
    res.write('retry: 1000\n\n');
    let closed = false;
    // Until every type is listed, the page is told why it waits, when a list fails.
    const tell = (): void => {
      const problems = o.hub.problems();
      if (problems.length > 0) res.write(event('waiting', { problems } satisfies Waiting));
    };
    const offProblems = o.hub.onProblems(tell);
    const end = () => {
      closed = true;
      offProblems();
    };
    res.on('close', end);
    tell();
    await o.hub.waitForSync();
    offProblems();
    if (closed) return;
    const queue: Sequenced[] = [];
    let flush: NodeJS.Timeout | undefined;
    let heartbeat: NodeJS.Timeout | undefined;
    let recheck: NodeJS.Timeout | undefined;
    let unsubscribe = (): void => {};
    const stop = (): void => {
      unsubscribe();
      clearInterval(heartbeat);
      clearInterval(recheck);
      clearTimeout(flush);
      streams.delete(stop);
      res.end();
    };
    // In the cluster each batch is filtered to what the user may list before it is written; the
    // batches are written in order, one after the other.
    let writing: Promise<void> = Promise.resolve();
    /** In the cluster, the verdicts this page's stream was filtered with, by `kind|namespace`. */
    const used = new Map<string, boolean>();
    /** Every view now, as `user` may see it, and the id it is current to. */
    const snapshotNow = (): { id: string; body: Promise<Snapshot> } => {
      const snap = o.hub.snapshot();
      const of = <V extends { namespace: string }>(kind: Kind, views: V[]) =>
        visibleOf(user, views, (v) => ({ kind, namespace: v.namespace }), used);
      const body = (async (): Promise<Snapshot> => ({
        config: configFor(user),
        deployments: await of('deployment', snap.deployments),
        replicaSets: await of('replicaSet', snap.replicaSets),
        pods: await of('pod', snap.pods),
        nodeRolls: await of('nodeRoll', snap.nodeRolls),
        freeze: await of('freeze', snap.freeze),
        sources: snap.sources,
        planResources: await of('planResource', snap.planResources),
        analysisRuns: await of('analysisRun', snap.analysisRuns),
        events: await of('event', snap.events),
      }))();
      return { id: snap.id, body };
    };
    const send = (): void => {
      flush = undefined;
      if (queue.length === 0) return;
      // A page that does not read its stream is let go rather than buffered for without end: it
      // reconnects, and resumes from the last id it did read.
      if (res.writableLength > MAX_UNREAD) {
        queue.length = 0;
        stop();
        return;
      }
      const batch = queue.splice(0);
      writing = writing.then(async () => {
        const shown = await visibleOf(user, batch, (s) => changeScope(s.change), used);
        if (res.writableEnded || shown.length === 0) return;
        res.write(
          event(
            'changes',
            shown.map((s) => s.change),
            batch[batch.length - 1].id,
          ),
        );
      });
    };
    // Subscribed and served in one turn of the event loop: no change falls between the two.
    unsubscribe = o.hub.subscribe((s) => {
      queue.push(s);
      flush ??= setTimeout(send, batchMs);
    });
    const last = req.headers['last-event-id'] ?? url.searchParams.get('lastEventId') ?? undefined;
    const replay = typeof last === 'string' && last !== '' ? o.hub.since(last) : undefined;
    if (replay !== undefined && typeof last === 'string') {
      res.write(event('resumed', { after: last, changes: replay.length }));
      queue.push(...replay);
      send();
    } else {
      // Taken now, written before any change that follows it (the changes wait on `writing`).
      const snap = snapshotNow();
      writing = writing.then(async () => {
        const body = await snap.body;
        if (!res.writableEnded) res.write(event('snapshot', body, snap.id));
      });
    }
    // In the cluster, the verdicts are asked again once the gate's answers have aged: when one has
    // changed (a RoleBinding added or removed), the page gets everything again as it may see it now
    // (`access`), so that what it may no longer see goes and what it now may comes.
    const gate = o.gate;
    if (gate && user)
      recheck = setInterval(() => {
        writing = writing.then(async () => {
          if (used.size === 0 || res.writableEnded) return;
          const scopes = [...used.keys()].map((k) => {
            const [kind, namespace] = k.split('|');
            return { kind: kind as Kind, namespace };
          });
          const may = await gate.visible(user, scopes);
          if (scopes.every((s) => may(s.kind, s.namespace) === used.get(`${s.kind}|${s.namespace}`))) return;
          used.clear();
          const snap = snapshotNow();
          const body = await snap.body;
          if (!res.writableEnded) res.write(event('access', body, snap.id));
        });
      }, gate.reviewTtlMs);
    if (res.writableEnded) return; // let go while replaying
    heartbeat = setInterval(() => res.write(': keep-alive\n\n'), heartbeatMs);
    streams.add(stop);
    res.off('close', end);
    res.on('close', stop);
    if (closed) stop();
  };

  /**
   * The checks every action passes before it is carried out, whatever it acts on: the same origin,
   * a JSON body, not read-only, and (for a namespaced object) the namespace served. Undefined when
   * the request was refused (and answered).
   */
  const admitted = async (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    verb: string,
    namespace: string | undefined,
    evenReadOnly = false,
  ): Promise<string | undefined> => {
    if (!fromPage(req.headers)) {
      refuse(
        res,
        403,
        `cross-origin request refused: an action must come from this dashboard's page (Origin http://${req.headers.host ?? ''}); got Origin ${JSON.stringify(req.headers.origin ?? null)}, Sec-Fetch-Site ${JSON.stringify(req.headers['sec-fetch-site'] ?? null)}`,
      );
      return undefined;
    }
    const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (type !== 'application/json') {
      refuse(res, 415, `an action's body must be application/json, not ${JSON.stringify(type)}`);
      return undefined;
    }
    if (o.config.readOnly && !evenReadOnly) {
      refuse(res, 403, `the dashboard is read-only (--read-only): ${verb} is not allowed`);
      return undefined;
    }
    if (namespace !== undefined && o.config.namespace !== null && namespace !== o.config.namespace) {
      refuse(
        res,
        404,
        `namespace "${namespace}" is not served by this dashboard (it serves "${o.config.namespace}"; -A serves all)`,
      );
      return undefined;
    }
    try {
      return await readBody(req);
    } catch (err) {
      refuse(res, 400, (err as Error).message);
      return undefined;
    }
  };

  /** An action on a node roll, the freeze switch or a plan. */
  /**
   * In the cluster: an action's reviews (403 in RBAC's words, nothing done), then the action with
   * the server's own credentials, each audited with who asked.
   */
  const asUser = async (
    user: Caller | undefined,
    what: string,
    accesses: Parameters<Gate['check']>[1],
    run: () => Promise<{ status: number; result: ActionResult }>,
  ): Promise<{ status: number; result: ActionResult }> => {
    if (!o.gate || !user) return run();
    const refused = await o.gate.check(user, accesses);
    const outcome = refused ? { status: refused.code, result: { ok: false, message: refused.message } } : await run();
    o.audit?.({
      user: user.username,
      groups: user.groups ?? [],
      action: what,
      status: outcome.status,
      answer: outcome.result.message.split('\n')[0],
    });
    return outcome;
  };

  const operation = async (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    target: Parameters<typeof parseOperation>[0],
    user: Caller | undefined,
  ): Promise<void> => {
    if (!o.operate) return refuse(res, 404, `${target.kind} actions are not served by this dashboard`);
    const text = await admitted(req, res, target.action, target.kind === 'plan' ? target.namespace : undefined);
    if (text === undefined) return;
    let op: Operation;
    try {
      op = parseOperation(target, text);
    } catch (err) {
      return refuse(res, 400, (err as Error).message);
    }
    const operate = o.operate;
    const targets =
      op.kind === 'plan'
        ? o.hub.planTargets(op.namespace, op.service, op.plan)
        : op.kind === 'marathon'
          ? { apps: marathonApps(op.id) }
          : undefined;
    const outcome = await asUser(user, operationWords(op), operationAccess(op, pacerNamespace, targets), () =>
      operate(op),
    );
    sendJson(res, outcome.status, outcome.result);
  };

  /** The Deployments (namespace and name) of Marathon's active deployment `id`: what its cancel patches. */
  const marathonApps = (id: string): Array<{ namespace: string; name: string }> => {
    const plan = activePlans(o.hub.deploymentObjects(o.config.namespace ?? undefined), Date.now())
      .map(marathonDeploymentView)
      .find((p) => p.id === id);
    return (plan?.affectedApps ?? []).flatMap((app) => {
      const m = /^\/([^/]+)\/([^/]+)$/.exec(app);
      return m ? [{ namespace: m[1], name: m[2] }] : [];
    });
  };

  /** One of the routes of the node roll, freeze and plan actions: the target and its verb, or a refusal's words. */
  const operationRoute = (
    path: string,
  ): { target: Parameters<typeof parseOperation>[0] } | { status: number; message: string } | undefined => {
    const verbs = (set: ReadonlySet<string>, verb: string, what: string) =>
      set.has(verb)
        ? undefined
        : { status: 404, message: `no ${what} action "${verb}" (the actions: ${[...set].join(', ')})` };
    let m = /^\/api\/v1\/noderolls\/([^/]+)\/([^/]+)$/.exec(path);
    if (m)
      return (
        verbs(NODE_ROLL_ACTIONS, m[2], 'node roll') ?? {
          target: { kind: 'nodeRoll', name: decodeURIComponent(m[1]), action: m[2] },
        }
      );
    m = /^\/api\/v1\/marathon\/deployments\/([^/]+)\/([^/]+)$/.exec(path);
    if (m)
      return (
        verbs(MARATHON_ACTIONS, m[2], 'deployment') ?? {
          target: { kind: 'marathon', id: decodeURIComponent(m[1]), action: m[2] },
        }
      );
    m = /^\/api\/v1\/freeze\/([^/]+)$/.exec(path);
    if (m) return verbs(FREEZE_ACTIONS, m[1], 'freeze') ?? { target: { kind: 'freeze', action: m[1] } };
    m = /^\/api\/v1\/namespaces\/([^/]+)\/services\/([^/]+)\/plans\/([^/]+)\/([^/]+)$/.exec(path);
    if (m)
      return (
        verbs(PLAN_ACTIONS, m[4], 'plan') ?? {
          target: {
            kind: 'plan',
            namespace: decodeURIComponent(m[1]),
            service: decodeURIComponent(m[2]),
            plan: decodeURIComponent(m[3]),
            action: m[4],
          },
        }
      );
    return undefined;
  };

  /**
   * A bulk promotion: each canary's release is the continue of its phase of its service's deploy
   * plan, through `operate` (carried out as the user, audited), one after the other in dependency
   * order (promotion.ts); the answer lists each release in that order.
   */
  const promote = async (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    user: Caller | undefined,
  ): Promise<void> => {
    if (!o.operate) return refuse(res, 404, 'plan actions are not served by this dashboard');
    const text = await admitted(req, res, 'promote', undefined);
    if (text === undefined) return;
    let items: ReturnType<typeof parsePromotionRequest>['items'];
    try {
      items = parsePromotionRequest(jsonObject(text)).items;
    } catch (err) {
      return refuse(res, 400, (err as Error).message);
    }
    const foreign = items.find((i) => o.config.namespace !== null && i.namespace !== o.config.namespace);
    if (foreign)
      return refuse(
        res,
        404,
        `namespace "${foreign.namespace}" is not served by this dashboard (it serves "${o.config.namespace}"; -A serves all)`,
      );
    if (!o.hub.hasSynced()) return sendJson(res, 503, { ok: false, message: 'the cache is not filled yet' });
    // In the cluster, every canary's release must be allowed (a plan continue each) before any is
    // tried: refused, nothing is released, in RBAC's words.
    const what = `promote ${items.map((i) => `${i.namespace}/${i.name}`).join(' ')}`;
    if (o.gate && user) {
      for (const i of items) {
        const refused = await o.gate.check(
          user,
          operationAccess(
            { kind: 'plan', namespace: i.namespace, service: i.name, plan: 'deploy', action: 'continue' },
            pacerNamespace,
            o.hub.planTargets(i.namespace, i.name, 'deploy'),
          ),
        );
        if (refused) {
          o.audit?.({
            user: user.username,
            groups: user.groups ?? [],
            action: what,
            status: refused.code,
            answer: refused.message,
          });
          return refuse(res, refused.code, refused.message);
        }
      }
    }
    const operate = o.operate;
    const results = await runPromotion(promotionOrder(items, o.hub.deploymentObjects()), (c) =>
      operate({
        kind: 'plan',
        namespace: c.namespace,
        service: c.name,
        plan: 'deploy',
        action: 'continue',
        phase: c.name,
      }),
    );
    if (o.gate && user)
      o.audit?.({
        user: user.username,
        groups: user.groups ?? [],
        action: what,
        status: 200,
        answer: results.map((r) => `${r.namespace}/${r.name} ${r.status}`).join(', '),
      });
    sendJson(res, 200, { ok: results.every((r) => r.ok), items: results });
  };

  const action = async (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    namespace: string,
    name: string,
    verb: Action,
    user: Caller | undefined,
  ): Promise<void> => {
    if (!fromPage(req.headers))
      return refuse(
        res,
        403,
        `cross-origin request refused: an action must come from this dashboard's page (Origin http://${req.headers.host ?? ''}); got Origin ${JSON.stringify(req.headers.origin ?? null)}, Sec-Fetch-Site ${JSON.stringify(req.headers['sec-fetch-site'] ?? null)}`,
      );
    const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (type !== 'application/json')
      return refuse(res, 415, `an action's body must be application/json, not ${JSON.stringify(type)}`);
    if (o.config.readOnly) return refuse(res, 403, `the dashboard is read-only (--read-only): ${verb} is not allowed`);
    if (o.config.namespace !== null && namespace !== o.config.namespace)
      return refuse(
        res,
        404,
        `namespace "${namespace}" is not served by this dashboard (it serves "${o.config.namespace}"; -A serves all)`,
      );
    let body: ActionRequest;
    try {
      body = parseActionRequest(verb, await readBody(req));
    } catch (err) {
      return refuse(res, 400, (err as Error).message);
    }
    const outcome = await asUser(
      user,
      actionWords(namespace, name, verb, body.toRevision),
      deploymentActionAccess(namespace, name, verb),
      () => o.act(namespace, name, verb, body),
    );
    sendJson(res, outcome.status, outcome.result);
  };

  /** POST /api/v1/session ({"token": TOKEN}): a session for the token's user, in an HttpOnly SameSite=Strict cookie. */
  const signIn = async (req: http.IncomingMessage, res: http.ServerResponse, gate: Gate): Promise<void> => {
    const text = await admitted(req, res, 'sign-in', undefined, true);
    if (text === undefined) return;
    let token: string;
    try {
      const f = stringFields('sign-in', text, ['token']);
      if (!f.token?.trim()) throw new Error('the sign-in needs a token: {"token": "TOKEN"}');
      token = f.token.trim();
    } catch (err) {
      return refuse(res, 400, (err as Error).message);
    }
    let signed: Awaited<ReturnType<Gate['signIn']>>;
    try {
      signed = await gate.signIn(token);
    } catch (err) {
      return refuse(res, 503, `cannot authenticate the caller: ${(err as Error).message}`);
    }
    if (!signed)
      return refuse(res, 401, 'Unauthorized: the API server does not accept this token (TokenReview)', {
        'WWW-Authenticate': 'Bearer',
      });
    o.audit?.({
      user: signed.caller.username,
      groups: signed.caller.groups ?? [],
      action: 'sign-in',
      status: 200,
      answer: 'signed in',
    });
    const secure = (req.headers.origin ?? '').startsWith('https://');
    sendJson(res, 200, { ok: true, message: `signed in as ${signed.caller.username}` } satisfies ActionResult, {
      'Set-Cookie': sessionCookie(signed.session, signed.maxAgeSeconds, secure),
    });
  };

  const handler = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    // In the cluster the page is reached through a Service, an Ingress or a port-forward under any
    // name; a rebinding page would come without the session cookie (it is the browser's per site).
    if (!o.gate && !hostAllowed(req.headers.host, o.address, port))
      return refuse(
        res,
        421,
        `this dashboard answers to ${o.address}:${port} (or localhost:${port}), not Host ${JSON.stringify(req.headers.host ?? null)}`,
      );
    const url = new URL(req.url ?? '/', 'http://dashboard');
    const path = url.pathname;
    const method = req.method ?? 'GET';
    let user: Caller | undefined;
    if (path === '/api/v1/session' || path === '/api/v1/session/end') {
      if (!o.gate)
        return refuse(res, 404, 'no sign-in here: this dashboard acts with its kubeconfig (kubectl pacer dashboard)');
      if (method !== 'POST')
        return refuse(res, 405, `${method} ${path}: sign-in and sign-out are POSTs`, { Allow: 'POST' });
      if (path === '/api/v1/session') return signIn(req, res, o.gate);
      if (!fromPage(req.headers)) return refuse(res, 403, 'cross-origin request refused: sign out from the page');
      const session = sessionOf(req.headers.cookie);
      if (session !== undefined) o.gate.signOut(session);
      return sendJson(res, 200, { ok: true, message: 'signed out' } satisfies ActionResult, {
        'Set-Cookie': sessionCookie('', 0, (req.headers.origin ?? '').startsWith('https://')),
      });
    }
    if (o.gate && path.startsWith('/api/') && path !== '/api/v1/openapi.yaml') {
      const who = await o.gate.identify(bearerOf(req.headers.authorization), sessionOf(req.headers.cookie));
      if ('code' in who)
        return refuse(res, who.code, who.message, who.code === 401 ? { 'WWW-Authenticate': 'Bearer' } : {});
      user = who;
    }
    const m = /^\/api\/v1\/namespaces\/([^/]+)\/deployments\/([^/]+)\/([^/]+)$/.exec(path);
    if (m) {
      const [ns, name, verb] = [decodeURIComponent(m[1]), decodeURIComponent(m[2]), m[3]];
      if (!ACTIONS.has(verb)) return refuse(res, 404, `no action "${verb}" (the actions: ${[...ACTIONS].join(', ')})`);
      if (method !== 'POST')
        return refuse(res, 405, `${verb} is a POST: no action is taken on a ${method}`, { Allow: 'POST' });
      return action(req, res, ns, name, verb as Action, user);
    }
    if (path === '/api/v1/promotions') {
      if (method !== 'POST')
        return refuse(res, 405, `a promotion is a POST: no action is taken on a ${method}`, { Allow: 'POST' });
      return promote(req, res, user);
    }
    const op = operationRoute(path);
    if (op) {
      if ('status' in op) return refuse(res, op.status, op.message);
      if (method !== 'POST')
        return refuse(res, 405, `${op.target.action} is a POST: no action is taken on a ${method}`, { Allow: 'POST' });
      return operation(req, res, op.target, user);
    }
    if (method !== 'GET' && method !== 'HEAD')
      return refuse(res, 405, `${method} ${path}: only GET here`, { Allow: 'GET, HEAD' });
    if (path === '/api/v1/config') return sendJson(res, 200, configFor(user));
    if (path === '/api/v1/openapi.yaml') {
      res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'application/yaml; charset=utf-8' }).end(openapi);
      return;
    }
    if (path === '/api/v1/deployments') {
      if (!o.hub.hasSynced())
        return sendJson(res, 503, { ok: false, message: 'the cache is not filled yet', problems: o.hub.problems() });
      const rows = o.hub.snapshot().deployments;
      return sendJson(res, 200, await visibleOf(user, rows, (d) => ({ kind: 'deployment', namespace: d.namespace })));
    }
    if (path === '/api/v1/stream') return stream(req, res, url, user);
    if (path === '/api/v1/marathon/deployments') {
      if (!o.hub.hasSynced()) return sendJson(res, 503, { ok: false, message: 'the cache is not filled yet' });
      // In the cluster, Marathon's deployments of the Deployments the user may list.
      const all = await visibleOf(user, o.hub.deploymentObjects(o.config.namespace ?? undefined), (d) => ({
        kind: 'deployment',
        namespace: d.metadata.namespace ?? '',
      }));
      return sendJson(res, 200, activePlans(all, Date.now()).map(marathonDeploymentView));
    }
    const diff = /^\/api\/v1\/namespaces\/([^/]+)\/deployments\/([^/]+)\/revisions\/([^/]+)\/diff$/.exec(path);
    if (diff) {
      const [ns, name, rev] = [decodeURIComponent(diff[1]), decodeURIComponent(diff[2]), decodeURIComponent(diff[3])];
      if (o.config.namespace !== null && ns !== o.config.namespace)
        return refuse(
          res,
          404,
          `namespace "${ns}" is not served by this dashboard (it serves "${o.config.namespace}")`,
        );
      if (!/^[0-9]{1,15}$/.test(rev))
        return refuse(res, 400, `a revision is a whole number, not ${JSON.stringify(rev)}`);
      const against = url.searchParams.get('against');
      if (against !== null && !/^[0-9]{1,15}$/.test(against))
        return refuse(res, 400, `against is a revision, a whole number, not ${JSON.stringify(against)}`);
      const refused = await mayRead(user, ns, ['deployment', 'replicaSet']);
      if (refused) return refuse(res, refused.code, refused.message);
      if (!o.hub.hasSynced()) return sendJson(res, 503, { ok: false, message: 'the cache is not filled yet' });
      const view = o.hub.revisionDiff(ns, name, Number(rev), against === null ? undefined : Number(against));
      if (view === 'no deployment') return refuse(res, 404, `deployments.pacer.dev "${name}" not found`);
      if ('missing' in view) return refuse(res, 404, ROLLBACK_MESSAGES.revisionNotFound(String(view.missing)));
      return sendJson(res, 200, view);
    }
    const log = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/log$/.exec(path);
    if (log) {
      const [ns, pod] = [decodeURIComponent(log[1]), decodeURIComponent(log[2])];
      if (!o.podLog) return refuse(res, 404, 'pod logs are not served by this dashboard');
      if (o.config.namespace !== null && ns !== o.config.namespace)
        return refuse(
          res,
          404,
          `namespace "${ns}" is not served by this dashboard (it serves "${o.config.namespace}")`,
        );
      let query: PodLogQuery;
      try {
        query = parseLogQuery(url.searchParams);
      } catch (err) {
        return refuse(res, 400, (err as Error).message);
      }
      if (o.gate && user) {
        const refused = await o.gate.check(user, [podLogAccess(ns, pod)]);
        if (refused) return refuse(res, refused.code, refused.message);
      }
      return servePodLog(res, o.podLog, { namespace: ns, name: pod, query, server: o.config.server }, SECURITY_HEADERS);
    }
    const plans = /^\/api\/v1\/namespaces\/([^/]+)\/services\/([^/]+)\/plans$/.exec(path);
    if (plans) {
      const [ns, service] = [decodeURIComponent(plans[1]), decodeURIComponent(plans[2])];
      if (o.config.namespace !== null && ns !== o.config.namespace)
        return refuse(
          res,
          404,
          `namespace "${ns}" is not served by this dashboard (it serves "${o.config.namespace}")`,
        );
      const refused = await mayRead(user, ns, ['deployment', 'replicaSet', 'pod', 'planResource']);
      if (refused) return refuse(res, refused.code, refused.message);
      if (!o.hub.hasSynced()) return sendJson(res, 503, { ok: false, message: 'the cache is not filled yet' });
      const view = o.hub.servicePlans(ns, service);
      if (!view) return refuse(res, 404, `Service ${service} not found: no Deployment ${ns}/${service}`);
      return sendJson(res, 200, view);
    }
    const file = o.files.get(path === '/' ? '/index.html' : path);
    if (!file) return refuse(res, 404, `not found: ${path}`);
    if (req.headers['if-none-match'] === file.etag) {
      res.writeHead(304, { ...SECURITY_HEADERS, ETag: file.etag }).end();
      return;
    }
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'Content-Type': file.type,
      'Cache-Control': 'no-cache',
      ETag: file.etag,
    });
    res.end(method === 'HEAD' ? undefined : file.body);
  };

  const server = http.createServer((req, res) => {
    handler(req, res).catch((err: unknown) => {
      if (!res.headersSent) refuse(res, 500, err instanceof Error ? err.message : String(err));
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.address, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  const hostInUrl = isWildcard(o.address) ? '127.0.0.1' : o.address.includes(':') ? `[${o.address}]` : o.address;
  return {
    port,
    url: `http://${hostInUrl}:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const stop of [...streams]) stop();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
