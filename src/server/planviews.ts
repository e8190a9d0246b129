// Pacer's read-only HTTP views on the API address (--api-bind-address), computed at request time
// from the controller's caches:
// * Marathon's GET /v2/deployments and GET /v2/deployments/<id>: the deployment plans of
//   src/engine/plans.ts;
// * the DC/OS SDK's GET /v1/service/<namespace>/<name>/plans (the plan names) and
//   .../plans/<plan> (the plan's JSON: 200 when COMPLETE, 202 while not, 417 with errors; 404
//   text/plain "Service <name> not found" or "Plan <plan> not found"), from src/engine/plan/.

import type http from 'node:http';
import type { Deployment, Pod, ReplicaSet } from '../api/types.ts';
import { activePlans, coordinate, deployPlan, planById, planJson, recoveryPlan, serviceMembers, unknownPlanMessage, viewPlan } from '../engine/index.ts';

export interface ApiViews {
  /** Every cached pacer.dev Deployment. */
  deployments: () => readonly Deployment[];
  /** The cached ReplicaSets and pods of a namespace (the plans' steps); without them no plan view is served. */
  replicaSets?: (namespace: string) => readonly ReplicaSet[];
  pods?: (namespace: string) => readonly Pod[];
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
function planView(views: ApiViews, res: http.ServerResponse, namespace: string, name: string, plan: string | undefined): void {
  const members = serviceMembers(views.deployments(), namespace, name);
  if (members.length === 0) {
    text(res, 404, `Service ${name} not found`);
    return;
  }
  const objects = { deployments: members, replicaSets: views.replicaSets!(namespace), pods: views.pods!(namespace), now: (views.now ?? Date.now)() };
  const plans = [deployPlan(objects), recoveryPlan(objects)];
  if (plan === undefined) {
    json(res, 200, plans.map((p) => p.name));
    return;
  }
  const built = plans.find((p) => p.name === plan);
  if (!built) {
    text(res, 404, `Plan ${plan} not found`);
    return;
  }
  const body = planJson(viewPlan(built, coordinate(plans).find((x) => x.plan === plan)?.steps ?? []), `${namespace}/${name}`);
  const code = body.errors.length > 0 ? 417 : body.status === 'COMPLETE' ? 200 : 202;
  res.writeHead(code, { 'Content-Type': 'application/json' }).end(JSON.stringify(body, null, 2));
}

export function apiHandler(views: ApiViews): http.RequestListener {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0].replace(/\/+$/, '');
    const plans = /^\/v1\/service\/([^/]+)\/([^/]+)\/plans(?:\/([^/]+))?$/.exec(path);
    if (plans && views.replicaSets && views.pods) {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        json(res, 405, { message: `${req.method} is not supported here: plan operations go through kubectl pacer plan continue|interrupt` }, { Allow: 'GET, HEAD' });
        return;
      }
      if (!views.ready()) {
        json(res, 503, { message: 'caches not synced' });
        return;
      }
      planView(views, res, decodeURIComponent(plans[1]), decodeURIComponent(plans[2]), plans[3] === undefined ? undefined : decodeURIComponent(plans[3]));
      return;
    }
    const m = /^\/v2\/deployments(?:\/([^/]+))?$/.exec(path);
    if (!m) {
      json(res, 404, { message: `no view at ${path || '/'}` });
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      json(res, 405, { message: `${req.method} is not supported: the views are read-only (kubectl pacer deployment cancel changes deployments)` }, { Allow: 'GET, HEAD' });
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
