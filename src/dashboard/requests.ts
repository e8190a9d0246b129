// Reading a request's body and answering in JSON: the size limit, the JSON object an action's body
// must be, and the parsers of each action's fields (each refusal names what is wrong and the value
// given). server.ts routes a request to them.

import type http from 'node:http';
import { parseParameters } from '../plugin/plan.ts';
import type { Action, ActionRequest, ActionResult, Operation } from './api.ts';
import { SECURITY_HEADERS } from './origin.ts';

/** The longest freeze reason taken (it is shown in every status the freeze holds). */
const MAX_REASON = 1024;
const MAX_BODY = 64 * 1024;

export function sendJson(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  extra: Record<string, string> = {},
): void {
  res
    .writeHead(status, {
      ...SECURITY_HEADERS,
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': 'no-store',
      ...extra,
    })
    .end(`${JSON.stringify(body)}\n`);
}

export function refuse(
  res: http.ServerResponse,
  status: number,
  message: string,
  extra: Record<string, string> = {},
): void {
  sendJson(res, status, { ok: false, message } satisfies ActionResult, extra);
}

export async function readBody(req: http.IncomingMessage): Promise<string> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new Error(`the request body is over ${MAX_BODY} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A request body that must be a JSON object (`{}` when empty). Throws naming what is wrong and the value given. */
export function jsonObject(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    throw new Error(`the request body is not JSON: ${(err as Error).message}`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new Error(`the request body must be a JSON object, not ${JSON.stringify(body)}`);
  return body as Record<string, unknown>;
}

/**
 * An action's body: `{}`, `{"toRevision": N}` for undo with N a whole number >= 0, or
 * `{"container": C, "image": I}` for setImage (both strings; the plugin judges them as `kubectl
 * pacer set image NAME C=I` does). Throws naming what is wrong.
 */
export function parseActionRequest(action: Action, text: string): ActionRequest {
  const { toRevision, ...rest } = jsonObject(text);
  if (action === 'setImage') {
    const { container, image, ...others } = rest;
    const extra = Object.keys(others);
    if (extra.length > 0 || toRevision !== undefined)
      throw new Error(
        `unknown field "${extra[0] ?? 'toRevision'}" in the setImage request (its fields: container, image)`,
      );
    for (const [k, v] of [
      ['container', container],
      ['image', image],
    ] as const)
      if (typeof v !== 'string') throw new Error(`${k} must be a string, not ${JSON.stringify(v ?? null)}`);
    return { container: container as string, image: image as string };
  }
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw new Error(`unknown field "${unknown[0]}" in the ${action} request`);
  if (toRevision === undefined) return {};
  if (action !== 'undo') throw new Error(`toRevision is for undo only, not ${action}`);
  if (typeof toRevision !== 'number' || !Number.isSafeInteger(toRevision) || toRevision < 0)
    throw new Error(
      `toRevision must be a whole number >= 0 (0: the previous revision), not ${JSON.stringify(toRevision)}`,
    );
  return { toRevision };
}

/** A body that must be a JSON object of the fields `allowed` (each a string): `{}` when empty. Throws naming what is wrong. */
export function stringFields(what: string, text: string, allowed: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(jsonObject(text))) {
    if (!allowed.includes(k))
      throw new Error(
        `unknown field "${k}" in the ${what} request${allowed.length > 0 ? ` (its fields: ${allowed.join(', ')})` : ' (it takes none)'}`,
      );
    if (typeof v !== 'string') throw new Error(`${k} must be a string, not ${JSON.stringify(v)}`);
    out[k] = v;
  }
  return out;
}

/**
 * The body of an action on a node roll, the freeze switch or a plan, as an Operation: skip needs
 * `node`; on takes `reason` (at most 1,024 characters); a plan's action `phase` and `step` (a step
 * only with its phase). Throws naming what is wrong and the value given.
 */
export function parseOperation(
  target:
    | { kind: 'nodeRoll'; name: string; action: string }
    | { kind: 'freeze'; action: string }
    | { kind: 'plan'; namespace: string; service: string; plan: string; action: string }
    | { kind: 'marathon'; id: string; action: string },
  text: string,
): Operation {
  const special = extraFields(target, text);
  if (special) return special;
  if (target.kind === 'marathon') throw new Error('unreachable');
  if (target.kind === 'nodeRoll') {
    const action = target.action as 'pause' | 'resume' | 'skip';
    const f = stringFields(`node roll ${action}`, text, action === 'skip' ? ['node'] : []);
    if (action !== 'skip') return { kind: 'nodeRoll', name: target.name, action };
    if (!f.node) throw new Error('skip needs the node to skip: {"node": "NODE"}');
    return { kind: 'nodeRoll', name: target.name, action, node: f.node };
  }
  if (target.kind === 'freeze') {
    const action = target.action as 'on' | 'off';
    const f = stringFields(`freeze ${action}`, text, action === 'on' ? ['reason'] : []);
    if (f.reason !== undefined && f.reason.length > MAX_REASON)
      throw new Error(`the reason is ${f.reason.length} characters long, over ${MAX_REASON}`);
    return { kind: 'freeze', action, ...(f.reason !== undefined ? { reason: f.reason } : {}) };
  }
  const action = target.action as 'continue' | 'interrupt' | 'forceComplete' | 'restart';
  const f = stringFields(`plan ${action}`, text, ['phase', 'step']);
  if (f.step !== undefined && f.phase === undefined)
    throw new Error(`a step needs its phase: {"phase": "PHASE", "step": ${JSON.stringify(f.step)}}`);
  return {
    kind: 'plan',
    namespace: target.namespace,
    service: target.service,
    plan: target.plan,
    action,
    ...(f.phase !== undefined ? { phase: f.phase } : {}),
    ...(f.step !== undefined ? { step: f.step } : {}),
  };
}

/**
 * The bodies whose fields are not all strings: a node roll's resume (`{"skipAnalysis": true}`:
 * `node-roll resume --skip-analysis`), a plan's start (`{"parameters": ["KEY=VALUE", ...]}`, each
 * read as `plan start -p` reads it, so a bad one is refused in its words) and a Marathon
 * deployment's cancel (`{"force": true}`: only stop). Undefined for the others.
 */
function extraFields(target: Parameters<typeof parseOperation>[0], text: string): Operation | undefined {
  const only = (what: string, body: Record<string, unknown>, allowed: string) => {
    const unknown = Object.keys(body).find((k) => k !== allowed);
    if (unknown !== undefined)
      throw new Error(`unknown field "${unknown}" in the ${what} request (its field: ${allowed})`);
  };
  const flag = (what: string, v: unknown): boolean => {
    if (v === undefined) return false;
    if (typeof v !== 'boolean') throw new Error(`${what} must be true or false, not ${JSON.stringify(v)}`);
    return v;
  };
  if (target.kind === 'nodeRoll' && target.action === 'resume') {
    const body = jsonObject(text);
    only('node roll resume', body, 'skipAnalysis');
    const skip = flag('skipAnalysis', body.skipAnalysis);
    return { kind: 'nodeRoll', name: target.name, action: 'resume', ...(skip ? { skipAnalysis: true } : {}) };
  }
  if (target.kind === 'marathon') {
    const body = jsonObject(text);
    only('deployment cancel', body, 'force');
    return { kind: 'marathon', id: target.id, action: 'cancel', force: flag('force', body.force) };
  }
  if (target.kind === 'plan' && target.action === 'start') {
    const { parameters, ...rest } = jsonObject(text);
    const f = stringFields('plan start', JSON.stringify(rest), ['phase', 'step']);
    if (f.phase !== undefined || f.step !== undefined)
      throw new Error('start is for a whole plan: it takes no phase or step');
    if (parameters !== undefined && (!Array.isArray(parameters) || parameters.some((p) => typeof p !== 'string')))
      throw new Error(`parameters must be a list of "KEY=VALUE" strings, not ${JSON.stringify(parameters)}`);
    const params = parseParameters((parameters as string[] | undefined) ?? []);
    return {
      kind: 'plan',
      namespace: target.namespace,
      service: target.service,
      plan: target.plan,
      action: 'start',
      ...(Object.keys(params).length > 0 ? { parameters: params } : {}),
    };
  }
  return undefined;
}
