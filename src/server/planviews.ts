// Pacer's read-only HTTP views on the API address (--api-bind-address): Marathon's
// GET /v2/deployments and GET /v2/deployments/<id>, computed at request time from the controller's
// Deployment cache: the deployment plans of src/engine/plans.ts.

import type http from 'node:http';
import type { Deployment } from '../api/types.ts';
import { activePlans, planById, unknownPlanMessage } from '../engine/index.ts';

export interface ApiViews {
  /** Every cached pacer.dev Deployment. */
  deployments: () => readonly Deployment[];
  /** False until the caches have synced: the views answer 503 rather than an empty list. */
  ready: () => boolean;
  now?: () => number;
}

function json(res: http.ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(code, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(body));
}

export function apiHandler(views: ApiViews): http.RequestListener {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0].replace(/\/+$/, '');
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
