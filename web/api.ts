// The page's calls of the server's actions (POST, JSON, same origin).

import type { Action, ActionRequest, ActionResult } from '../src/dashboard/api.ts';

export async function act(
  namespace: string,
  name: string,
  action: Action,
  body: ActionRequest = {},
): Promise<ActionResult & { status: number }> {
  const url = `/api/v1/namespaces/${encodeURIComponent(namespace)}/deployments/${encodeURIComponent(name)}/${action}`;
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      credentials: 'same-origin',
    });
    const result = (await res.json()) as ActionResult;
    return { ...result, status: res.status };
  } catch (err) {
    return { ok: false, status: 0, message: `error: the dashboard could not be reached: ${(err as Error).message}` };
  }
}
