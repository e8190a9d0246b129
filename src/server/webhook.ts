// The validating admission webhook (--webhook-bind-address, default ":9443"): answers
// AdmissionReview v1 at /validate-pacer-dev-v1alpha1-deployment with the lock rule of
// src/engine/marathon/locks.ts, evaluated over the controller's Deployment cache, after the shape of a newly
// written cancel request or stamp (src/engine/marathon/cancel.ts) and plan-state (src/engine/dcos/gate.ts):
// 422 Invalid with the field path. At /validate-pacer-dev-v1alpha1-analysis it validates the analysis
// resources (AnalysisTemplate, ClusterAnalysisTemplate, AnalysisRun) on create and update with
// src/api/analysisvalidation.ts: 422 Invalid with every field error, as the API server words its own.
// At /validate-apps-v1-deployment (native mode) it checks the pacer.dev annotations of apps/v1
// Deployments (src/api/native.ts), and nothing else of them: 422 Invalid on the annotation.
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
import { APPS_API_VERSION, GROUP } from '../api/types.ts';
import { NATIVE_ANNOTATIONS, hasNativeAnnotations, nativeAnnotationErrors } from '../api/native.ts';
import type { AnalysisRun, AnalysisTemplate } from '../api/analysis.ts';
import { ANALYSIS_RUN_KIND, ANALYSIS_TEMPLATE_KIND, CLUSTER_ANALYSIS_TEMPLATE_KIND } from '../api/analysis.ts';
import {
  validateAnalysisRun,
  validateAnalysisTemplate,
  validateClusterAnalysisTemplate,
} from '../api/analysisvalidation.ts';
import type { FieldError } from '../api/fielderrors.ts';
import { formatFieldError } from '../api/validation.ts';
import { checkLock, invalidCancelAnnotation, invalidPlanStateAnnotation } from '../engine/index.ts';
import type { AdmissionOperation } from '../engine/index.ts';
import type { BindAddress } from './http.ts';

export const WEBHOOK_PATH = '/validate-pacer-dev-v1alpha1-deployment';
export const ANALYSIS_WEBHOOK_PATH = '/validate-pacer-dev-v1alpha1-analysis';
export const NATIVE_WEBHOOK_PATH = '/validate-apps-v1-deployment';
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
    status?: {
      code: number;
      reason?: string;
      message?: string;
      details?: {
        name?: string;
        group?: string;
        kind?: string;
        causes?: Array<{ reason: string; message: string; field: string }>;
      };
    };
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

/** Each analysis kind and its validation. */
const ANALYSIS_VALIDATORS: Record<string, (o: never) => FieldError[]> = {
  [ANALYSIS_TEMPLATE_KIND]: (t: AnalysisTemplate) => validateAnalysisTemplate(t),
  [CLUSTER_ANALYSIS_TEMPLATE_KIND]: (t: AnalysisTemplate) => validateClusterAnalysisTemplate(t),
  [ANALYSIS_RUN_KIND]: (r: AnalysisRun) => validateAnalysisRun(r),
};

/** apimachinery's cause reason for each kind of field error. */
const CAUSE_REASON: Record<FieldError['type'], string> = {
  Required: 'FieldValueRequired',
  Invalid: 'FieldValueInvalid',
  NotSupported: 'FieldValueNotSupported',
  Forbidden: 'FieldValueForbidden',
  Duplicate: 'FieldValueDuplicate',
};

/**
 * The answer to one AdmissionReview of an analysis resource: every field error of a created or
 * updated AnalysisTemplate, ClusterAnalysisTemplate or AnalysisRun, refused as 422 Invalid in the
 * API server's words (`AnalysisTemplate.pacer.dev "success-rate" is invalid: [...]`). On update only
 * errors the stored object did not have refuse it, so an object stored before the webhook existed
 * can still be labelled, terminated or deleted (Kubernetes' validation ratcheting).
 */
export function reviewAnalysis(body: AdmissionReview): AdmissionReview {
  const req = body.request;
  if (!req || typeof req.uid !== 'string') throw new Error('AdmissionReview without request.uid');
  const apiVersion = body.apiVersion || 'admission.k8s.io/v1';
  const allow: AdmissionReview = { apiVersion, kind: 'AdmissionReview', response: { uid: req.uid, allowed: true } };
  const kind = req.kind?.kind ?? '';
  const validate = ANALYSIS_VALIDATORS[kind];
  if (req.kind?.group !== GROUP || !validate || (req.subResource ?? '') !== '') return allow;
  if ((req.operation !== 'CREATE' && req.operation !== 'UPDATE') || !req.object) return allow;
  const object = req.object as { metadata?: { name?: string; generateName?: string } };
  let errors = validate(object as never);
  if (req.operation === 'UPDATE' && req.oldObject) {
    const before = new Set(validate(req.oldObject as never).map(formatFieldError));
    errors = errors.filter((e) => !before.has(formatFieldError(e)));
  }
  if (errors.length === 0) return allow;
  return invalid(
    apiVersion,
    req.uid,
    GROUP,
    kind,
    req.name || object.metadata?.name || object.metadata?.generateName || '',
    errors,
  );
}

/**
 * A refusal with every field error, in the API server's words: 422 Invalid, the message
 * `<Kind>.<group> "<name>" is invalid: <error>` (several in brackets), one cause per error.
 */
function invalid(
  apiVersion: string,
  uid: string,
  group: string,
  kind: string,
  name: string,
  errors: readonly FieldError[],
): AdmissionReview {
  const lines = errors.map(formatFieldError);
  return {
    apiVersion,
    kind: 'AdmissionReview',
    response: {
      uid,
      allowed: false,
      status: {
        code: 422,
        reason: 'Invalid',
        message: `${kind}.${group} ${JSON.stringify(name)} is invalid: ${lines.length === 1 ? lines[0] : `[${lines.join(', ')}]`}`,
        details: {
          name,
          group,
          kind,
          causes: errors.map((e, i) => ({
            reason: CAUSE_REASON[e.type],
            message: lines[i].slice(e.field.length + 2),
            field: e.field,
          })),
        },
      },
    },
  };
}

/**
 * The answer to one AdmissionReview of an apps/v1 Deployment (native mode, docs/native.md): its
 * pacer.dev annotations checked as the controller would read them (nativeAnnotationErrors), refused
 * as 422 Invalid with every error on the annotation and the value given. Everything else about the
 * Deployment is apps/v1's and the API server's: allowed untouched, as is a Deployment without
 * Pacer's annotations, a delete, or a subresource. On update only errors the stored object did not
 * have refuse it, so a Deployment stored with a bad value before the webhook existed can still be
 * changed (its bad value stays the InvalidSpec condition until fixed).
 */
export function reviewNative(body: AdmissionReview): AdmissionReview {
  const req = body.request;
  if (!req || typeof req.uid !== 'string') throw new Error('AdmissionReview without request.uid');
  const apiVersion = body.apiVersion || 'admission.k8s.io/v1';
  const allow: AdmissionReview = { apiVersion, kind: 'AdmissionReview', response: { uid: req.uid, allowed: true } };
  if (req.kind?.group !== 'apps' || req.kind.kind !== 'Deployment' || (req.subResource ?? '') !== '') return allow;
  if ((req.operation !== 'CREATE' && req.operation !== 'UPDATE') || !req.object) return allow;
  // The review names the version it sends; the object is apps/v1's whichever the client wrote.
  const asApps = (o: unknown): Deployment => ({ ...(o as Deployment), apiVersion: APPS_API_VERSION });
  const object = asApps(req.object);
  if (!hasNativeAnnotations(object)) return allow;
  let errors = nativeAnnotationErrors(object);
  if (req.operation === 'UPDATE' && req.oldObject) {
    const before = new Set(nativeAnnotationErrors(asApps(req.oldObject)).map(formatFieldError));
    errors = errors.filter((e) => !before.has(formatFieldError(e)));
  }
  if (errors.length === 0) return allow;
  return invalid(apiVersion, req.uid, 'apps', 'Deployment', req.name || object.metadata?.name || '', errors);
}

function reply(res: http.ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

export function webhookHandler(source: WebhookSource): http.RequestListener {
  return (req, res) => {
    const p = (req.url ?? '/').split('?')[0];
    const answer =
      p === WEBHOOK_PATH
        ? (b: AdmissionReview) => review(b, source)
        : p === ANALYSIS_WEBHOOK_PATH
          ? reviewAnalysis
          : p === NATIVE_WEBHOOK_PATH
            ? reviewNative
            : undefined;
    if (!answer) return reply(res, 404, { message: `no webhook at ${p}` });
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
        reply(res, 200, answer(body));
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
export const ANALYSIS_WEBHOOK_NAME = 'analysis.pacer.dev';

type WebhookConfiguration = {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  webhooks: object[];
};

/** A ValidatingWebhookConfiguration named `name` holding `webhooks`. */
function configuration(name: string, webhooks: object[]): WebhookConfiguration {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name },
    webhooks,
  };
}

/**
 * One of Pacer's validating webhooks: requests matching `rule` (and `more`'s match conditions) go
 * to `url`. Every one is failurePolicy Ignore (a controller that is down must not block users),
 * free of side effects, and answers within 5 s.
 */
function webhook(name: string, url: string, rule: object, more: object = {}): object {
  return {
    name,
    clientConfig: { url },
    rules: [rule],
    ...more,
    failurePolicy: 'Ignore',
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    timeoutSeconds: 5,
  };
}

/**
 * The ValidatingWebhookConfiguration that sends UPDATEs of pacer.dev Deployments, and creates and
 * updates of the analysis resources, to the webhook server at `base` (scheme://host:port; what
 * `pacer up` registers in the simulated cluster; manifests/webhook/ holds the in-cluster one, with
 * the same rules). failurePolicy Ignore: a controller that is down must not block users.
 */
export function webhookConfiguration(base: string): WebhookConfiguration {
  return configuration('pacer-locks', [
    webhook(WEBHOOK_NAME, `${base}${WEBHOOK_PATH}`, {
      operations: ['UPDATE'],
      apiGroups: [GROUP],
      apiVersions: ['v1alpha1'],
      resources: ['deployments'],
      scope: 'Namespaced',
    }),
    webhook(ANALYSIS_WEBHOOK_NAME, `${base}${ANALYSIS_WEBHOOK_PATH}`, {
      operations: ['CREATE', 'UPDATE'],
      apiGroups: [GROUP],
      apiVersions: ['v1alpha1'],
      resources: ['analysistemplates', 'clusteranalysistemplates', 'analysisruns'],
      scope: '*',
    }),
  ]);
}

export const NATIVE_WEBHOOK_NAME = 'native.pacer.dev';

/**
 * Only apps/v1 Deployments that carry one of Pacer's annotations reach the native webhook: an
 * objectSelector sees labels only, a match condition (CEL, GA since Kubernetes 1.30) sees the
 * object. A plain Deployment is never sent, so no fault of the webhook can block it.
 */
export const NATIVE_MATCH_CONDITION = {
  name: 'pacer-annotations',
  expression: `has(object.metadata.annotations) && [${NATIVE_ANNOTATIONS.map((k) => `'${k}'`).join(', ')}].exists(k, k in object.metadata.annotations)`,
};

/**
 * The ValidatingWebhookConfiguration of native mode: creates and updates of apps/v1 Deployments
 * with Pacer's annotations go to the webhook server at `base` (manifests/native/webhook/ holds the
 * in-cluster one, with the same rules). failurePolicy Ignore: a controller that is down must not
 * block changes to the cluster's Deployments; a bad value that gets in meanwhile is the
 * InvalidSpec condition once it is back, and nothing rolls out on it.
 */
export function nativeWebhookConfiguration(base: string): WebhookConfiguration {
  return configuration('pacer-native', [
    webhook(
      NATIVE_WEBHOOK_NAME,
      `${base}${NATIVE_WEBHOOK_PATH}`,
      {
        operations: ['CREATE', 'UPDATE'],
        apiGroups: ['apps'],
        apiVersions: ['v1'],
        resources: ['deployments'],
        scope: 'Namespaced',
      },
      { matchConditions: [NATIVE_MATCH_CONDITION] },
    ),
  ]);
}
