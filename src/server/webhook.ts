// The validating admission webhook (--webhook-bind-address, default ":9443"): answers
// AdmissionReview v1 at /validate-pacer-dev-v1alpha1-deployment with the lock rule of
// src/engine/marathon/locks.ts, evaluated over the controller's Deployment cache, after the shape of a newly
// written cancel request or stamp (src/engine/marathon/cancel.ts) and plan-state (src/engine/dcos/gate.ts):
// 422 Invalid with the field path.
//
// TLS: served over HTTPS with tls.crt/tls.key from --webhook-cert-dir when both are present, plain
// HTTP otherwise. A real API server calls webhooks over HTTPS only (plain HTTP suits the simulated
// cluster and `pacer up`); manifests/webhook/ ships the ValidatingWebhookConfiguration with
// failurePolicy Ignore (a controller that is down must not block users) and a cert-manager
// Certificate for the serving certificate.

import http from 'node:http';
import https from 'node:https';
import { readCertDir } from './certs.ts';
import type { AddressInfo } from 'node:net';
import type { Deployment } from '../api/types.ts';
import { GROUP } from '../api/types.ts';
import { checkLock, invalidCancelAnnotation, invalidPlanStateAnnotation } from '../engine/index.ts';
import type { AdmissionOperation } from '../engine/index.ts';
import type { BindAddress } from './http.ts';

export const WEBHOOK_PATH = '/validate-pacer-dev-v1alpha1-deployment';
const MAX_BODY = 3 * 1024 * 1024;

export interface AdmissionRequest {
  uid: string;
  kind?: { group: string; version: string; kind: string };
  resource?: { group: string; version: string; resource: string };
  subResource?: string;
  name?: string;
  namespace?: string;
  operation: AdmissionOperation;
  object?: unknown;
  oldObject?: unknown;
  dryRun?: boolean;
}

export interface AdmissionReview {
  apiVersion: string;
  kind: 'AdmissionReview';
  request?: AdmissionRequest;
  response?: {
    uid: string;
    allowed: boolean;
    status?: { code: number; reason?: string; message?: string };
    warnings?: string[];
  };
}

export interface WebhookSource {
  /** Every cached pacer.dev Deployment. */
  deployments: () => readonly Deployment[];
  now?: () => number;
}

/** The answer to one AdmissionReview (pure but for reading the cache through `source`). */
export function review(body: AdmissionReview, source: WebhookSource): AdmissionReview {
  const req = body.request;
  if (!req || typeof req.uid !== 'string') throw new Error('AdmissionReview without request.uid');
  const apiVersion = body.apiVersion || 'admission.k8s.io/v1';
  const allow: AdmissionReview = { apiVersion, kind: 'AdmissionReview', response: { uid: req.uid, allowed: true } };
  // Only the main resource of pacer.dev Deployments is locked; anything else routed here passes.
  if (req.kind?.group !== GROUP || req.kind.kind !== 'Deployment' || (req.subResource ?? '') !== '') return allow;
  const object = req.object as Deployment | undefined;
  const oldObject = req.oldObject as Deployment | undefined;
  const invalid = object
    ? (invalidCancelAnnotation(oldObject, object) ?? invalidPlanStateAnnotation(oldObject, object))
    : undefined;
  if (invalid) {
    return {
      apiVersion,
      kind: 'AdmissionReview',
      response: { uid: req.uid, allowed: false, status: { code: 422, reason: 'Invalid', message: invalid } },
    };
  }
  const verdict = checkLock({
    operation: req.operation,
    object,
    oldObject,
    deployments: source.deployments(),
    now: (source.now ?? Date.now)(),
  });
  if (verdict.allowed) return allow;
  return {
    apiVersion,
    kind: 'AdmissionReview',
    response: {
      uid: req.uid,
      allowed: false,
      status: { code: verdict.code, reason: verdict.reason, message: verdict.message },
    },
  };
}

function reply(res: http.ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

export function webhookHandler(source: WebhookSource): http.RequestListener {
  return (req, res) => {
    const p = (req.url ?? '/').split('?')[0];
    if (p !== WEBHOOK_PATH) return reply(res, 404, { message: `no webhook at ${p}` });
    if (req.method !== 'POST')
      return reply(res, 405, { message: `${req.method} is not supported: POST an AdmissionReview` });
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', () => {
      if (size > MAX_BODY) return reply(res, 413, { message: 'request body too large' });
      let body: AdmissionReview;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as AdmissionReview;
        reply(res, 200, review(body, source));
      } catch (err) {
        reply(res, 400, { message: `bad AdmissionReview: ${(err as Error).message}` });
      }
    });
  };
}

export interface RunningWebhook {
  port: number;
  tls: boolean;
  close(): Promise<void>;
}

/** Starts the webhook server on `addr` (HTTPS when `certDir` holds tls.crt and tls.key). */
export function startWebhookServer(
  addr: BindAddress,
  source: WebhookSource,
  certDir?: string,
): Promise<RunningWebhook> {
  const certs = readCertDir(certDir);
  const handler = webhookHandler(source);
  const server = certs ? https.createServer({ ...certs, minVersion: 'TLSv1.2' }, handler) : http.createServer(handler);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(addr.port, addr.host, () => {
      server.off('error', reject);
      resolve({
        port: (server.address() as AddressInfo).port,
        tls: certs !== undefined,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

export const WEBHOOK_NAME = 'locks.pacer.dev';

/**
 * The ValidatingWebhookConfiguration that sends UPDATEs of pacer.dev Deployments to `url` (what
 * `pacer up` registers in the simulated cluster; manifests/webhook/ holds the in-cluster one).
 * failurePolicy Ignore: a controller that is down must not block users.
 */
export function webhookConfiguration(url: string): {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  webhooks: object[];
} {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'pacer-locks' },
    webhooks: [
      {
        name: WEBHOOK_NAME,
        clientConfig: { url },
        rules: [
          {
            operations: ['UPDATE'],
            apiGroups: [GROUP],
            apiVersions: ['v1alpha1'],
            resources: ['deployments'],
            scope: 'Namespaced',
          },
        ],
        failurePolicy: 'Ignore',
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        timeoutSeconds: 5,
      },
    ],
  };
}
