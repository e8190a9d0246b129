// The page's calls of the server's actions (POST, JSON, same origin).

import type {
  Action,
  ActionRequest,
  ActionResult,
  MarathonDeploymentView,
  Operation,
  PromotionRequest,
  PromotionResult,
  RevisionDiffView,
  ServicePlansView,
} from '../src/dashboard/api.ts';

export async function act(
  namespace: string,
  name: string,
  action: Action,
  body: ActionRequest = {},
): Promise<ActionResult & { status: number }> {
  return post(
    `/api/v1/namespaces/${encodeURIComponent(namespace)}/deployments/${encodeURIComponent(name)}/${action}`,
    body,
  );
}

/** Where each operation is POSTed. */
export function operationUrl(op: Operation): string {
  const e = encodeURIComponent;
  if (op.kind === 'nodeRoll') return `/api/v1/noderolls/${e(op.name)}/${op.action}`;
  if (op.kind === 'freeze') return `/api/v1/freeze/${op.action}`;
  if (op.kind === 'marathon') return `/api/v1/marathon/deployments/${e(op.id)}/${op.action}`;
  return `/api/v1/namespaces/${e(op.namespace)}/services/${e(op.service)}/plans/${e(op.plan)}/${op.action}`;
}

/** What each operation's body carries. */
function operationBody(op: Operation): Record<string, unknown> {
  if (op.kind === 'nodeRoll')
    return op.node !== undefined ? { node: op.node } : op.skipAnalysis ? { skipAnalysis: true } : {};
  if (op.kind === 'freeze') return op.reason !== undefined ? { reason: op.reason } : {};
  if (op.kind === 'marathon') return op.force ? { force: true } : {};
  if (op.parameters !== undefined) return { parameters: Object.entries(op.parameters).map(([k, v]) => `${k}=${v}`) };
  return {
    ...(op.phase !== undefined ? { phase: op.phase } : {}),
    ...(op.step !== undefined ? { step: op.step } : {}),
  };
}

/**
 * An action on a node roll, the freeze switch, a plan or a Marathon deployment. `parameters`: a
 * plan start's `KEY=VALUE` words as typed (the server reads them as `plan start -p` does, and
 * refuses a bad one in its words).
 */
export async function operate(op: Operation, parameters?: string[]): Promise<ActionResult & { status: number }> {
  return post(operationUrl(op), parameters !== undefined ? { parameters } : operationBody(op));
}

/** A service's plans; an error's message when they cannot be had. */
export async function fetchPlans(namespace: string, service: string): Promise<ServicePlansView | { error: string }> {
  const e = encodeURIComponent;
  try {
    const res = await fetch(`/api/v1/namespaces/${e(namespace)}/services/${e(service)}/plans`);
    const body = (await res.json()) as ServicePlansView | ActionResult;
    if (!res.ok) return { error: `${res.status} ${(body as ActionResult).message}` };
    return body as ServicePlansView;
  } catch (err) {
    return { error: `the dashboard could not be reached: ${(err as Error).message}` };
  }
}

/**
 * What an undo of a Deployment to `revision` would change, or (with `against`) what changed from
 * revision `against` to `revision`; an error's message when it cannot be had.
 */
export async function fetchDiff(
  namespace: string,
  name: string,
  revision: number,
  against?: number,
): Promise<RevisionDiffView | { error: string }> {
  const e = encodeURIComponent;
  const url = `/api/v1/namespaces/${e(namespace)}/deployments/${e(name)}/revisions/${revision}/diff`;
  try {
    const res = await fetch(against === undefined ? url : `${url}?against=${against}`);
    const body = (await res.json()) as RevisionDiffView | ActionResult;
    if (!res.ok) return { error: `${res.status} ${(body as ActionResult).message}` };
    return body as RevisionDiffView;
  } catch (err) {
    return { error: `the dashboard could not be reached: ${(err as Error).message}` };
  }
}

/** Whether the server wants a sign-in (in the cluster, without a session): GET /api/v1/config answers 401. */
export async function needsSignIn(): Promise<boolean> {
  try {
    return (await fetch('/api/v1/config', { credentials: 'same-origin' })).status === 401;
  } catch {
    return false;
  }
}

/** Signs in (in the cluster) with a token: the server answers with a session cookie. */
export async function signIn(token: string): Promise<ActionResult & { status: number }> {
  return post('/api/v1/session', { token });
}

/** Ends the session. */
export async function signOut(): Promise<ActionResult & { status: number }> {
  return post('/api/v1/session/end', {});
}

/** A POST of `body` as JSON from this page: the answer with its status, or status 0 when the dashboard cannot be reached. */
async function post<R = ActionResult>(url: string, body: unknown): Promise<(R | ActionResult) & { status: number }> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      credentials: 'same-origin',
    });
    const result = (await res.json()) as R;
    return { ...result, status: res.status };
  } catch (err) {
    return { ok: false, status: 0, message: `error: the dashboard could not be reached: ${(err as Error).message}` };
  }
}

/** Marathon's active deployments; an error's message when they cannot be had. */
export async function fetchMarathon(): Promise<MarathonDeploymentView[] | { error: string }> {
  try {
    const res = await fetch('/api/v1/marathon/deployments');
    const body = (await res.json()) as MarathonDeploymentView[] | ActionResult;
    if (!res.ok) return { error: `${res.status} ${(body as ActionResult).message}` };
    return body as MarathonDeploymentView[];
  } catch (err) {
    return { error: `the dashboard could not be reached: ${(err as Error).message}` };
  }
}

/** Releases the canaries together, in dependency order: each one's answer, or the refusal of the whole. */
export async function promote(req: PromotionRequest): Promise<(PromotionResult | ActionResult) & { status: number }> {
  return post<PromotionResult | ActionResult>('/api/v1/promotions', req);
}

/**
 * A pod's log from the API server (passed on by the dashboard), `onText` with each piece as it
 * comes; with `follow`, until `signal` aborts or the server ends it. Resolves with the refusal in
 * the API server's words (`404 Error from server (NotFound): ...`), or undefined when it ended.
 */
export async function streamLog(
  namespace: string,
  pod: string,
  o: { container?: string; follow: boolean; tailLines: number },
  onText: (text: string) => void,
  signal: AbortSignal,
): Promise<{ error: string } | undefined> {
  const e = encodeURIComponent;
  const query = new URLSearchParams({ tailLines: String(o.tailLines) });
  if (o.follow) query.set('follow', 'true');
  if (o.container) query.set('container', o.container);
  try {
    const res = await fetch(`/api/v1/namespaces/${e(namespace)}/pods/${e(pod)}/log?${query}`, { signal });
    if (!res.ok) {
      const body = (await res.json()) as ActionResult;
      return { error: `${res.status} ${body.message}` };
    }
    if (!res.body) return undefined;
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return undefined;
      onText(value);
    }
  } catch (err) {
    if (signal.aborted) return undefined;
    return { error: `the dashboard could not be reached: ${(err as Error).message}` };
  }
}
