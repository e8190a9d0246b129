// Validating admission webhooks, called as a real API server calls them: on create, update and
// delete of a resource that a stored ValidatingWebhookConfiguration's rules match, the server
// POSTs an AdmissionReview v1 (uid, kind, resource, subResource, name, namespace, operation,
// userInfo, object, oldObject, dryRun) to each matching webhook, in parallel, with the object as it
// would be stored; one denial refuses the write. A denial becomes the Status kubectl prints: the
// code of response.status.code (403 when absent or below 400), the reason given, and the message
// `admission webhook "<name>" denied the request: <message>`, and the details given. A call that fails (unreachable,
// timeout, a bad answer) refuses the write with 500 under failurePolicy Fail (the default) and is
// skipped under Ignore.
//
// What the simulator leaves out, on purpose:
//  * clientConfig.service cannot be resolved (there is no Service network): such a webhook counts
//    as a failed call (refused under Fail, skipped under Ignore); use clientConfig.url.
//  * HTTPS certificates are not verified (caBundle is ignored).
//  * namespaceSelector, objectSelector, matchConditions and matchPolicy are ignored: rules alone
//    decide. Mutating webhooks and the scale/eviction subresources are not called.
//  * dryRun requests call webhooks too, with request.dryRun true (a real server does when the
//    webhook's sideEffects allow it).

import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { ResourceInfo } from './resources.ts';
import { ApiError } from './types.ts';
import type { KubeObject } from './types.ts';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface WebhookRule {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: string;
}

export interface ValidatingWebhook {
  name: string;
  clientConfig?: {
    url?: string;
    service?: { namespace?: string; name?: string; path?: string; port?: number };
    caBundle?: string;
  };
  rules?: WebhookRule[];
  failurePolicy?: 'Fail' | 'Ignore';
  timeoutSeconds?: number;
}

export interface AdmissionAttributes {
  info: ResourceInfo;
  subresource?: string;
  operation: Operation;
  namespace?: string;
  name: string;
  object?: KubeObject;
  oldObject?: KubeObject;
  dryRun: boolean;
  username: string;
}

const matches = (list: readonly string[] | undefined, value: string): boolean =>
  (list ?? []).some((x) => x === '*' || x === value);

/** Does a rule's resources list name this resource (and subresource)? `*` is every resource, `*\/*` every subresource too. */
export function resourceMatches(
  patterns: readonly string[] | undefined,
  resource: string,
  subresource?: string,
): boolean {
  return (patterns ?? []).some((p) => {
    if (p === '*/*') return true;
    const [res, sub] = p.split('/');
    if (sub === undefined) return !subresource && (res === '*' || res === resource);
    return (res === '*' || res === resource) && (sub === '*' ? subresource !== undefined : sub === subresource);
  });
}

/** Does `rule` cover this request? */
export function ruleMatches(
  rule: WebhookRule,
  a: Pick<AdmissionAttributes, 'info' | 'subresource' | 'operation'>,
): boolean {
  if (!(rule.operations ?? []).some((o) => o === '*' || o === a.operation)) return false;
  if (!matches(rule.apiGroups, a.info.group) || !matches(rule.apiVersions, a.info.version)) return false;
  if (!resourceMatches(rule.resources, a.info.resource, a.subresource)) return false;
  const scope = rule.scope ?? '*';
  return scope === '*' || (scope === 'Namespaced') === a.info.namespaced;
}

/** The webhooks of `configurations` whose rules cover the request. */
export function matchingWebhooks(
  configurations: readonly KubeObject[],
  a: Pick<AdmissionAttributes, 'info' | 'subresource' | 'operation'>,
): ValidatingWebhook[] {
  const out: ValidatingWebhook[] = [];
  for (const c of configurations) {
    for (const w of (c.webhooks ?? []) as ValidatingWebhook[]) {
      if ((w.rules ?? []).some((r) => ruleMatches(r, a))) out.push(w);
    }
  }
  return out;
}

/** The AdmissionReview v1 the server sends. */
export function admissionReview(a: AdmissionAttributes, uid: string = randomUUID()): object {
  const { info } = a;
  const gvk = { group: info.group, version: info.version, kind: info.kind };
  const gvr = { group: info.group, version: info.version, resource: info.resource };
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: gvk,
      resource: gvr,
      ...(a.subresource ? { subResource: a.subresource } : {}),
      requestKind: gvk,
      requestResource: gvr,
      ...(a.subresource ? { requestSubResource: a.subresource } : {}),
      name: a.name,
      ...(a.namespace ? { namespace: a.namespace } : {}),
      operation: a.operation,
      userInfo: { username: a.username, groups: ['system:authenticated'] },
      object: a.object ?? null,
      oldObject: a.oldObject ?? null,
      dryRun: a.dryRun,
      options:
        a.operation === 'DELETE'
          ? { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' }
          : { kind: a.operation === 'CREATE' ? 'CreateOptions' : 'UpdateOptions', apiVersion: 'meta.k8s.io/v1' },
    },
  };
}

/** POSTs `body` as JSON; resolves to the parsed answer. HTTPS certificates are not verified (module header). */
function post(url: string, body: object, timeoutMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      reject(new Error(`invalid url ${JSON.stringify(url)}`));
      return;
    }
    const text = JSON.stringify(body);
    const opts: https.RequestOptions = {
      method: 'POST',
      timeout: timeoutMs,
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json',
        'Content-Length': Buffer.byteLength(text),
      },
    };
    const onResponse = (res: http.IncomingMessage): void => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) {
          reject(new Error(`the server responded with ${res.statusCode}: ${raw.slice(0, 200)}`));
          return;
        }
        try {
          resolve(JSON.parse(raw));
        } catch (e) {
          reject(new Error(`bad AdmissionReview answer: ${(e as Error).message}`));
        }
      });
      res.on('error', reject);
    };
    let req: http.ClientRequest;
    if (u.protocol === 'https:') req = https.request(u, { ...opts, rejectUnauthorized: false }, onResponse);
    else if (u.protocol === 'http:') req = http.request(u, opts, onResponse);
    else {
      reject(new Error(`unsupported scheme ${u.protocol} in ${url}`));
      return;
    }
    req.on('timeout', () => req.destroy(new Error('context deadline exceeded')));
    req.on('error', reject);
    req.end(text);
  });
}

interface Verdict {
  allowed: boolean;
  status?: { code?: number; reason?: string; message?: string; details?: ApiError['details'] };
  warnings?: string[];
}

async function call(w: ValidatingWebhook, a: AdmissionAttributes): Promise<Verdict> {
  const url = w.clientConfig?.url;
  if (!url) throw new Error('clientConfig.service is not resolved by the simulated cluster (use clientConfig.url)');
  const uid = randomUUID();
  const answer = await post(url, admissionReview(a, uid), Math.max(1, Math.min(30, w.timeoutSeconds ?? 10)) * 1000);
  const r = (answer as { response?: Verdict & { uid?: string } } | null)?.response;
  if (!r || typeof r.allowed !== 'boolean') throw new Error('webhook response was absent');
  if (r.uid !== uid)
    throw new Error(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(r.uid ?? '')}`);
  return r;
}

/** The Status error of a denial, as the real server words it. */
export function denial(webhook: string, status: Verdict['status']): ApiError {
  const by = `admission webhook ${JSON.stringify(webhook)} denied the request`;
  const code = status?.code !== undefined && status.code >= 400 ? status.code : 403;
  const message = status?.message
    ? `${by}: ${status.message}`
    : status?.reason
      ? `${by}: ${status.reason}`
      : `${by} without explanation`;
  // The details go along as given (kube-apiserver keeps them): kubectl prints an Invalid denial
  // with causes as it prints the server's own validation errors, `The Deployment "web" is invalid: ...`.
  return new ApiError(code, status?.reason ?? '', message, status?.details);
}

/**
 * Calls every webhook of `webhooks` (in parallel); throws the first denial (in configuration order)
 * or the first failure under failurePolicy Fail. Warnings from the answers go to `warnings`.
 */
export async function validate(
  webhooks: readonly ValidatingWebhook[],
  a: AdmissionAttributes,
  warnings: string[],
): Promise<void> {
  const results = await Promise.all(
    webhooks.map((w) =>
      call(w, a).then(
        (v) => ({ v }),
        (e: unknown) => ({ e: e as Error }),
      ),
    ),
  );
  for (let i = 0; i < webhooks.length; i++) {
    const w = webhooks[i];
    const r = results[i];
    if ('e' in r) {
      if ((w.failurePolicy ?? 'Fail') === 'Ignore') continue;
      throw new ApiError(
        500,
        'InternalError',
        `Internal error occurred: failed calling webhook ${JSON.stringify(w.name)}: failed to call webhook: ${r.e.message}`,
      );
    }
    warnings.push(...(r.v.warnings ?? []));
    if (!r.v.allowed) throw denial(w.name, r.v.status);
  }
}
