// A pod's log for the page: GET /api/v1/namespaces/NS/pods/NAME/log?container=C&follow=true&tailLines=N,
// passed on to the API server's own pods/log endpoint with the dashboard's credentials (so RBAC's
// `pods/log` decides) and streamed back as text as it comes. A refusal before any text is the API
// server's status and its words as kubectl prints them: `Error from server (NotFound): pods "web-1"
// not found`, `Error from server (BadRequest): container nope is not valid for pod web-1`, or the
// kubelet the API server could not reach. Nothing here makes up a line: what the API server sends is
// what the page shows.

import type http from 'node:http';
import { resourcePath, PODS } from '../kube/client.ts';
import type { KubeClient } from '../kube/client.ts';
import { describeError } from '../plugin/errors.ts';
import { statusOf } from './actions.ts';

/** The options of a log request the dashboard passes on (kubectl logs' -c, -f and --tail). */
export interface PodLogQuery {
  container?: string;
  follow: boolean;
  /** The last N lines only (absent: the whole log). */
  tailLines?: number;
}

/** The most lines asked for at once: a page shows a tail, not a whole day of logs. */
export const MAX_TAIL_LINES = 10_000;
const QUERY_KEYS = ['container', 'follow', 'tailLines'];
/** A DNS-1123 label: what a container's name may be. */
const CONTAINER_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** The query of a log request; throws naming the parameter that is wrong and the value given. */
export function parseLogQuery(params: URLSearchParams): PodLogQuery {
  for (const k of params.keys())
    if (!QUERY_KEYS.includes(k))
      throw new Error(`unknown parameter "${k}" of a pod's log (its parameters: ${QUERY_KEYS.join(', ')})`);
  const q: PodLogQuery = { follow: false };
  const container = params.get('container');
  if (container !== null) {
    if (!CONTAINER_NAME.test(container))
      throw new Error(`container must be a container's name (a DNS-1123 label), not ${JSON.stringify(container)}`);
    q.container = container;
  }
  const follow = params.get('follow');
  if (follow !== null) {
    if (follow !== 'true' && follow !== 'false')
      throw new Error(`follow must be true or false, not ${JSON.stringify(follow)}`);
    q.follow = follow === 'true';
  }
  const tail = params.get('tailLines');
  if (tail !== null) {
    const n = /^[0-9]{1,6}$/.test(tail) ? Number(tail) : Number.NaN;
    if (!(n >= 0 && n <= MAX_TAIL_LINES))
      throw new Error(`tailLines must be a whole number from 0 to ${MAX_TAIL_LINES}, not ${JSON.stringify(tail)}`);
    q.tailLines = n;
  }
  return q;
}

/** The API server's path for the log of pod `namespace`/`name`. Pure. */
export function podLogPath(namespace: string, name: string, q: PodLogQuery): string {
  const p = new URLSearchParams();
  if (q.container !== undefined) p.set('container', q.container);
  if (q.follow) p.set('follow', 'true');
  if (q.tailLines !== undefined) p.set('tailLines', String(q.tailLines));
  const s = p.toString();
  return `${resourcePath(PODS, namespace, name, 'log')}${s ? `?${s}` : ''}`;
}

/** Reads a pod's log: `onOpen` once the API server answered 2xx, then `onText` for each piece. */
export type PodLog = (
  namespace: string,
  name: string,
  q: PodLogQuery,
  onText: (text: string) => void,
  signal: AbortSignal,
  onOpen: () => void,
) => Promise<void>;

/** A pod's log through `client` (the dashboard's credentials). */
export function kubePodLog(client: KubeClient): PodLog {
  return (namespace, name, q, onText, signal, onOpen) =>
    client.streamText(podLogPath(namespace, name, q), `get pods/log ${namespace}/${name}`, onText, signal, onOpen);
}

/**
 * Serves one log request: text/plain as it comes (follow: until the API server or the page ends
 * it), or, refused before any text, the status and kubectl's line as `{ok: false, message}`.
 */
export async function servePodLog(
  res: http.ServerResponse,
  podLog: PodLog,
  target: { namespace: string; name: string; query: PodLogQuery; server: string },
  headers: Record<string, string>,
): Promise<void> {
  const abort = new AbortController();
  res.on('close', () => abort.abort());
  const open = (): void => {
    if (res.headersSent) return;
    res.writeHead(200, {
      ...headers,
      'Content-Type': 'text/plain; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
    });
    // The headers now, so that a followed log with nothing to say yet is already open in the page.
    res.flushHeaders();
  };
  try {
    await podLog(target.namespace, target.name, target.query, (t) => res.write(t), abort.signal, open);
    open();
    res.end();
  } catch (err) {
    if (res.headersSent) {
      res.end();
      return;
    }
    res
      .writeHead(statusOf(err), {
        ...headers,
        'Content-Type': 'application/json; charset=utf-8',
        'Cache-Control': 'no-store',
      })
      .end(`${JSON.stringify({ ok: false, message: describeError(err, { server: target.server }) })}\n`);
  }
}
