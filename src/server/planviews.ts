// Pacer's read-only HTTP views on the API address (--api-bind-address), computed at request time
// from the controller's caches:
// * Marathon's GET /v2/deployments and GET /v2/deployments/<id>: the deployment plans of
//   src/engine/marathon/deploymentplans.ts;
// * the DC/OS SDK's GET /v1/service/<namespace>/<name>/plans (the plan names) and
//   .../plans/<plan> (the plan's JSON: 200 when COMPLETE, 202 while not, 417 with errors; 404
//   text/plain "Service <name> not found" or "Plan <plan> not found"), from src/engine/dcos/;
// * the SDK's POST .../plans/<plan>/{start,stop,interrupt,continue,forceComplete,restart}
//   (?phase=&step=; start's body a JSON object of parameters): 200 {"message": ...}, 208, 400 and
//   404 text/plain, carried out by `views.operate`. The caller is authenticated (a bearer token,
//   TokenReview) and authorised (SubjectAccessReview: update on every object the operation may
//   change, delete pods for a step's restart) against the API server, as controller-runtime's
//   secure serving does: 401 Unauthorized or 403 with RBAC's message, nothing changed. Without
//   the two reviews (in-process use) POST is served to loopback callers only.
// With the reviews the views are read the same way: a caller RBAC lets list pacer.dev Deployments
// reads /v2/deployments, one that may get the service's Deployment reads its plans (viewAccess).

import type http from 'node:http';
import type { Deployment, PlanResource, Pod, ReplicaSet } from '../api/types.ts';
import { GROUP, PLAN_PLURAL, PLURAL } from '../api/types.ts';
import {
  activePlans,
  coordinate,
  planById,
  planJson,
  planStepNames,
  serviceMembers,
  servicePlans,
  unknownPlanMessage,
  viewPlan,
} from '../engine/index.ts';
import { review } from './auth.ts';
import type { Access, Caller, Reviews } from './auth.ts';

/** An operator command on a service's plan (the plugin's, carried out by src/planops/ in the controller). */
export interface PlanOperationRequest {
  op: 'start' | 'stop' | 'interrupt' | 'continue' | 'forceComplete' | 'restart';
  plan: string;
  phase?: string;
  step?: string;
  parameters?: Record<string, string>;
}

/** A plan operation as the audit log records it (start's parameters by name only: their values may be secrets). */
export interface AuditEntry extends Omit<PlanOperationRequest, 'parameters'> {
  parameterNames?: string[];
  /** The caller the API server named (absent: no token, or one it did not accept). */
  user?: string;
  groups?: string[];
  remote: string;
  namespace: string;
  service: string;
  /** The HTTP status answered. */
  code: number;
}

export interface ApiViews {
  /** TokenReview: the caller a bearer token belongs to, undefined when it is not accepted. */
  authenticate?: Reviews['authenticate'];
  /** SubjectAccessReview: may the caller do this. */
  authorize?: Reviews['authorize'];
  /**
   * Carries out a plan operation (POST .../plans/<plan>/<op>): the SDK's code and message. Without
   * it POST is not served; without `authenticate` and `authorize` it is served to loopback callers only.
   */
  operate?: (
    namespace: string,
    service: string,
    command: PlanOperationRequest,
  ) => Promise<{ code: number; message: string }>;
  /** Told of every plan operation once answered (refused ones too): the audit log's entry. */
  audit?: (entry: AuditEntry) => void;
  /** Every cached pacer.dev Deployment. */
  deployments: () => readonly Deployment[];
  /**
   * The ReplicaSets and pods of a namespace (the plans' steps): cached, or listed when this replica
   * does not cache that namespace (a sharded replica caches only its shards'); without them no plan
   * view is served.
   */
  replicaSets?: (namespace: string) => readonly ReplicaSet[] | Promise<readonly ReplicaSet[]>;
  pods?: (namespace: string) => readonly Pod[] | Promise<readonly Pod[]>;
  /** The cached Plan resources of a namespace (custom plans); absent: none. */
  plans?: (namespace: string) => readonly PlanResource[];
  /** False until the caches have synced: the views answer 503 rather than an empty list. */
  ready: () => boolean;
  now?: () => number;
}

function json(res: http.ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(code, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(body));
}

function text(res: http.ServerResponse, code: number, body: string): void {
  res.writeHead(code, { 'Content-Type': 'text/plain' }).end(body);
}

/** GET /v1/service/<namespace>/<name>/plans[/<plan>]. */
async function planView(
  views: ApiViews,
  res: http.ServerResponse,
  namespace: string,
  name: string,
  plan: string | undefined,
): Promise<void> {
  const members = serviceMembers(views.deployments(), namespace, name);
  if (members.length === 0) {
    text(res, 404, `Service ${name} not found`);
    return;
  }
  const all = views.deployments().filter((d) => d.metadata.namespace === namespace);
  const [replicaSets, pods] = await Promise.all([views.replicaSets!(namespace), views.pods!(namespace)]);
  const plans = servicePlans({
    deployments: members,
    namespaceDeployments: all,
    replicaSets,
    pods,
    plans: views.plans?.(namespace) ?? [],
    now: (views.now ?? Date.now)(),
  });
  if (plan === undefined) {
    json(
      res,
      200,
      plans.map((p) => p.name),
    );
    return;
  }
  const built = plans.find((p) => p.name === plan);
  if (!built) {
    text(res, 404, `Plan ${plan} not found`);
    return;
  }
  const body = planJson(
    viewPlan(built, coordinate(plans).find((x) => x.plan === plan)?.steps ?? []),
    `${namespace}/${name}`,
  );
  const code = body.errors.length > 0 ? 417 : body.status === 'COMPLETE' ? 200 : 202;
  res.writeHead(code, { 'Content-Type': 'application/json' }).end(JSON.stringify(body, null, 2));
}

const OPERATIONS: ReadonlySet<string> = new Set(['start', 'stop', 'interrupt', 'continue', 'forceComplete', 'restart']);
const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/** Whether a caller's address is this host's loopback (the only callers plan operations are served to). */
export function isLoopback(address: string | undefined): boolean {
  return LOOPBACK.has(address ?? '');
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
      if (body.length > 64 * 1024) req.destroy(new Error('request body over 64 KiB'));
    });
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

/**
 * What an operation may change, as RBAC names it: the Deployments of the service (a custom plan:
 * the Plan and every Deployment it names), and pods for a step's restart on the service's own plans.
 */
export function operationAccess(
  views: Pick<ApiViews, 'deployments' | 'plans'>,
  namespace: string,
  service: string,
  c: PlanOperationRequest,
): Access[] {
  const deployment = (name: string): Access => ({ namespace, verb: 'update', group: GROUP, resource: PLURAL, name });
  const members = serviceMembers(views.deployments(), namespace, service).map((d) => d.metadata.name ?? '');
  const custom =
    c.plan !== 'deploy' && c.plan !== 'recovery'
      ? views.plans?.(namespace).find((p) => p.metadata.name === c.plan)
      : undefined;
  if (custom) {
    return [
      { namespace, verb: 'update', group: GROUP, resource: PLAN_PLURAL, name: c.plan },
      ...planStepNames(custom).map(deployment),
    ];
  }
  const out = (members.length > 0 ? members : [service]).map(deployment);
  if (c.op === 'restart' && c.step !== undefined) out.push({ namespace, verb: 'delete', group: '', resource: 'pods' });
  return out;
}

/** POST /v1/service/<namespace>/<name>/plans/<plan>/<op>[?phase=&step=] (start: a JSON object of parameters). */
async function planOperation(
  views: ApiViews,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  m: RegExpExecArray,
): Promise<void> {
  const [namespace, service, plan, op] = [m[1], m[2], m[3], m[4]].map((x) => decodeURIComponent(x));
  const query = new URL(req.url ?? '/', 'http://localhost').searchParams;
  const command: PlanOperationRequest = { op: op as PlanOperationRequest['op'], plan };
  if (query.get('phase') !== null) command.phase = query.get('phase')!;
  if (query.get('step') !== null) command.step = query.get('step')!;
  // Every call is audited once answered, refused ones too: who, what, on which service, the answer.
  let caller: Caller | undefined;
  res.once('finish', () =>
    views.audit?.({
      ...(caller ? { user: caller.username, groups: caller.groups ?? [] } : {}),
      remote: req.socket.remoteAddress ?? '',
      namespace,
      service,
      op: command.op,
      plan: command.plan,
      ...(command.phase !== undefined ? { phase: command.phase } : {}),
      ...(command.step !== undefined ? { step: command.step } : {}),
      ...(command.parameters ? { parameterNames: Object.keys(command.parameters).sort() } : {}),
      code: res.statusCode,
    }),
  );
  if (!views.authenticate || !views.authorize) {
    if (!isLoopback(req.socket.remoteAddress)) {
      text(
        res,
        403,
        'plan operations are served to loopback callers only (this server does not authenticate its callers): use kubectl pacer plan',
      );
      return;
    }
  } else {
    const verdict = await review(
      { authenticate: views.authenticate, authorize: views.authorize },
      req,
      operationAccess(views, namespace, service, command),
    );
    caller = verdict.caller;
    if (verdict.refused) {
      text(res, verdict.refused.code, verdict.refused.message);
      return;
    }
  }
  if (op === 'start') {
    const body = (await readBody(req)).trim();
    let parsed: unknown = {};
    try {
      if (body !== '') parsed = JSON.parse(body);
    } catch (e) {
      text(res, 400, `Couldn't parse parameters: ${(e as Error).message}`);
      return;
    }
    if (
      typeof parsed !== 'object' ||
      parsed === null ||
      Array.isArray(parsed) ||
      Object.values(parsed).some((v) => typeof v !== 'string')
    ) {
      text(res, 400, "Couldn't parse parameters: expected a JSON object of string values");
      return;
    }
    command.parameters = parsed as Record<string, string>;
  }
  let out: { code: number; message: string };
  try {
    out = await views.operate!(namespace, service, command);
  } catch (e) {
    const err = e as { kind?: string; code?: number; message?: string };
    if (err.kind === 'NotFound') text(res, 404, `Service ${service} not found`);
    else text(res, err.code === 409 ? 409 : 500, err.message ?? String(e));
    return;
  }
  if (out.code === 200)
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ message: out.message }, null, 2));
  else text(res, out.code, out.message);
}

/**
 * What reading a view takes, as RBAC names it: listing pacer.dev Deployments (every namespace) for
 * Marathon's deployments view, getting the service's Deployment for its plans.
 */
export function viewAccess(path: string): Access | undefined {
  if (/^\/v2\/deployments(?:\/[^/]+)?$/.test(path)) return { verb: 'list', group: GROUP, resource: PLURAL };
  const m = /^\/v1\/service\/([^/]+)\/([^/]+)\/plans(?:\/[^/]+)?$/.exec(path);
  if (m)
    return {
      namespace: decodeURIComponent(m[1]),
      verb: 'get',
      group: GROUP,
      resource: PLURAL,
      name: decodeURIComponent(m[2]),
    };
  return undefined;
}

export function apiHandler(views: ApiViews): http.RequestListener {
  const serve = viewsHandler(views);
  if (!views.authenticate || !views.authorize) return serve;
  const reviews = { authenticate: views.authenticate, authorize: views.authorize };
  // Behind the reviews: a view is read by whom RBAC lets read what it shows; the operations check their own access.
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0].replace(/\/+$/, '');
    const access = req.method === 'GET' || req.method === 'HEAD' ? viewAccess(path) : undefined;
    if (!access) {
      serve(req, res);
      return;
    }
    review(reviews, req, [access]).then(
      ({ refused }) => {
        if (refused) text(res, refused.code, refused.message);
        else serve(req, res);
      },
      (e: unknown) => text(res, 500, (e as Error).message),
    );
  };
}

function viewsHandler(views: ApiViews): http.RequestListener {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0].replace(/\/+$/, '');
    const op = /^\/v1\/service\/([^/]+)\/([^/]+)\/plans\/([^/]+)\/([^/]+)$/.exec(path);
    if (op && OPERATIONS.has(decodeURIComponent(op[4])) && views.operate) {
      if (req.method !== 'POST') {
        json(res, 405, { message: `${req.method} is not supported: plan operations are POST` }, { Allow: 'POST' });
        return;
      }
      planOperation(views, req, res, op).catch((e: unknown) => text(res, 500, (e as Error).message));
      return;
    }
    const plans = /^\/v1\/service\/([^/]+)\/([^/]+)\/plans(?:\/([^/]+))?$/.exec(path);
    if (plans && views.replicaSets && views.pods) {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        json(
          res,
          405,
          { message: `${req.method} is not supported here: operations are POST .../plans/<plan>/<operation>` },
          { Allow: 'GET, HEAD' },
        );
        return;
      }
      if (!views.ready()) {
        json(res, 503, { message: 'caches not synced' });
        return;
      }
      planView(
        views,
        res,
        decodeURIComponent(plans[1]),
        decodeURIComponent(plans[2]),
        plans[3] === undefined ? undefined : decodeURIComponent(plans[3]),
      ).catch((e: unknown) => text(res, 500, (e as Error).message));
      return;
    }
    const m = /^\/v2\/deployments(?:\/([^/]+))?$/.exec(path);
    if (!m) {
      json(res, 404, { message: `no view at ${path || '/'}` });
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      json(
        res,
        405,
        {
          message: `${req.method} is not supported: the views are read-only (kubectl pacer deployment cancel changes deployments)`,
        },
        { Allow: 'GET, HEAD' },
      );
      return;
    }
    if (!views.ready()) {
      json(res, 503, { message: 'caches not synced' });
      return;
    }
    const active = activePlans(views.deployments(), (views.now ?? Date.now)());
    if (m[1] === undefined) {
      json(res, 200, active);
      return;
    }
    const id = decodeURIComponent(m[1]);
    const one = planById(active, id);
    if (one) json(res, 200, one);
    else json(res, 404, { message: unknownPlanMessage(id) });
  };
}
