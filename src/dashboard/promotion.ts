// Marathon's active deployments as the dashboard shows them, and the bulk promotion: several
// services' canaries released one after the other in Pacer's dependency order (Marathon's levels,
// src/engine/marathon/dependencies.ts: what a Deployment depends on goes first). Pure functions, but
// for runPromotion, which awaits each release (a plan continue, carried out and audited as any other
// action) before it starts the next.

import { dependencyKeys, deploymentKey } from '../api/dependencies.ts';
import type { Deployment } from '../api/types.ts';
import { dependencyLevels } from '../engine/index.ts';
import type { DeploymentPlan } from '../engine/index.ts';
import type { ActionResult, MarathonDeploymentView, PromotionItemResult, PromotionRequest } from './api.ts';

/** The fields of GET /v2/deployments the page draws (the readiness results and pods are always empty in Pacer). */
export function marathonDeploymentView(p: DeploymentPlan): MarathonDeploymentView {
  return {
    id: p.id,
    version: p.version,
    affectedApps: [...p.affectedApps],
    steps: p.steps.map((s) => ({ actions: s.actions.map((a) => ({ action: a.action, app: a.app })) })),
    currentActions: p.currentActions.map((a) => ({ action: a.action, app: a.app })),
    currentStep: p.currentStep,
    totalSteps: p.totalSteps,
  };
}

/** The most canaries one request may release. */
export const MAX_PROMOTIONS = 100;

/**
 * A promotion's body: `{"items": [{"namespace": NS, "name": NAME}, ...]}`, at least one item, no
 * item twice. Throws naming what is wrong and the value given.
 */
export function parsePromotionRequest(body: Record<string, unknown>): PromotionRequest {
  const { items, ...rest } = body;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw new Error(`unknown field "${unknown[0]}" in the promotion request (its field: items)`);
  if (!Array.isArray(items) || items.length === 0)
    throw new Error(
      `items must be a list of at least one {"namespace": NS, "name": NAME}, not ${JSON.stringify(items ?? null)}`,
    );
  if (items.length > MAX_PROMOTIONS)
    throw new Error(`items has ${items.length} canaries, over ${MAX_PROMOTIONS} in one request`);
  const seen = new Set<string>();
  return {
    items: items.map((item, i) => {
      const o = item as Record<string, unknown>;
      const ok =
        typeof item === 'object' &&
        item !== null &&
        !Array.isArray(item) &&
        Object.keys(o).every((k) => k === 'namespace' || k === 'name') &&
        typeof o.namespace === 'string' &&
        o.namespace !== '' &&
        typeof o.name === 'string' &&
        o.name !== '';
      if (!ok) throw new Error(`items[${i}] must be {"namespace": NS, "name": NAME}, not ${JSON.stringify(item)}`);
      const key = `${o.namespace}/${o.name}`;
      if (seen.has(key)) throw new Error(`items[${i}]: ${key} is listed twice`);
      seen.add(key);
      return { namespace: o.namespace as string, name: o.name as string };
    }),
  };
}

export interface OrderedCanary {
  namespace: string;
  name: string;
  /** Dependency level among every Deployment known (1: depends on none of them); null on a cycle or when not known. */
  level: number | null;
  /** The selected canaries it depends on, directly or through others ("namespace/name"). */
  after: string[];
}

/**
 * The order in which `items` are released: by dependency level over `deployments` (every Deployment
 * the dashboard knows), lowest first, so that a Deployment is released after what it depends on;
 * within a level by namespace and name; Deployments on a cycle (or unknown) last. Each item names
 * the selected items it depends on, through any chain of dependencies.
 */
export function promotionOrder(items: PromotionRequest['items'], deployments: readonly Deployment[]): OrderedCanary[] {
  const { levels } = dependencyLevels(deployments.filter((d) => !d.metadata.deletionTimestamp));
  const deps = new Map(
    deployments.map((d) => [deploymentKey(d.metadata.namespace, d.metadata.name), dependencyKeys(d)]),
  );
  const selected = new Set(items.map((i) => `${i.namespace}/${i.name}`));
  const below = (key: string): string[] => {
    const seen = new Set<string>();
    const walk = (k: string) => {
      for (const x of deps.get(k) ?? [])
        if (!seen.has(x)) {
          seen.add(x);
          walk(x);
        }
    };
    walk(key);
    seen.delete(key);
    return [...seen].filter((k) => selected.has(k)).sort();
  };
  const rank = (l: number | null) => l ?? Number.POSITIVE_INFINITY;
  return items
    .map((i) => {
      const key = `${i.namespace}/${i.name}`;
      return { namespace: i.namespace, name: i.name, level: levels.get(key) ?? null, after: below(key) };
    })
    .sort(
      (a, b) => rank(a.level) - rank(b.level) || a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name),
    );
}

/** One release: the HTTP status and answer of the canary's continue. */
export type Release = (c: OrderedCanary) => Promise<{ status: number; result: ActionResult }>;

/**
 * Releases `ordered` one after the other, each awaited. A canary that depends on one whose release
 * failed is not tried (status 0), so that nothing goes ahead of what it depends on.
 */
export async function runPromotion(
  ordered: readonly OrderedCanary[],
  release: Release,
): Promise<PromotionItemResult[]> {
  const failed = new Set<string>();
  const out: PromotionItemResult[] = [];
  for (const c of ordered) {
    const key = `${c.namespace}/${c.name}`;
    const base = { namespace: c.namespace, name: c.name, level: c.level };
    const blocker = c.after.find((k) => failed.has(k));
    if (blocker !== undefined) {
      failed.add(key);
      out.push({
        ...base,
        status: 0,
        ok: false,
        message: `not released: it depends on ${blocker}, which was not released`,
      });
      continue;
    }
    const { status, result } = await release(c);
    if (!result.ok) failed.add(key);
    out.push({
      ...base,
      status,
      ok: result.ok,
      message: result.message,
      ...(result.warnings?.length ? { warnings: result.warnings } : {}),
    });
  }
  return out;
}
