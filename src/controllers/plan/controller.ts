// The plan controller, the manager's second reconciler: it keeps each Plan's status (every element's
// status, src/engine/dcos/custom.ts) up to date from the Deployments its steps name. Plans and
// Deployments come from the manager's shared informers; a change to a Plan, or to a Deployment a
// Plan names, enqueues the Plan. The hold a Plan puts on a Deployment's rollout is the Deployment
// controller's (its snapshot carries the Plans): this one only reports.

import type { Deployment, PlanResource } from '../../api/types.ts';
import { DEPLOYMENTS, PLANS } from '../../kube/client.ts';
import { isKind } from '../../kube/errors.ts';
import type { Logger } from '../../observe/logger.ts';
import { register } from '../../manager/controller.ts';
import type { Controller } from '../../manager/controller.ts';
import type { Manager } from '../../manager/manager.ts';
import { planStatusUpdate, plansNaming } from '../../engine/index.ts';
import type { Informer } from '../../manager/informer.ts';
import { keyOf } from '../../manager/informer.ts';
import { watch } from '../../manager/watches.ts';
import type { ReconcileResult } from '../../manager/workqueue.ts';

export const PLAN_CONTROLLER_NAME = 'plan';

export class PlanController {
  readonly plans: Informer<PlanResource>;
  readonly controller: Controller;
  private readonly mgr: Manager;
  private readonly deployments: Informer<Deployment>;

  /** Registers the plan reconciler with `mgr`: the informers it reads, its watches, queue and worker. */
  constructor(mgr: Manager) {
    this.mgr = mgr;
    const plans = (this.plans = mgr.informer<PlanResource>(PLANS));
    this.deployments = mgr.informer<Deployment>(DEPLOYMENTS);
    this.controller = register(mgr, {
      name: PLAN_CONTROLLER_NAME,
      workers: 1,
      reconcile: (key, log, stats) => this.reconcile(key, log, stats),
      watches: [
        watch(plans, { on: ['add', 'update'], keys: ({ obj }) => [keyOf(obj)] }),
        watch(this.deployments, {
          keys: ({ obj: d }) => plansNaming(plans.list(d.metadata.namespace), d.metadata.name ?? '').map(keyOf),
        }),
      ],
    });
  }

  private async reconcile(key: string, log: Logger, stats: { writes: number }): Promise<ReconcileResult> {
    const p = this.plans.get(key);
    if (!p) return {};
    const ns = p.metadata.namespace ?? 'default';
    const status = planStatusUpdate(p, (name) => this.deployments.get(`${ns}/${name}`));
    if (!status) return {};
    try {
      const written = await this.mgr.client.replace<PlanResource>(
        PLANS,
        ns,
        p.metadata.name ?? '',
        { ...p, status },
        'status',
      );
      stats.writes++;
      this.plans.assume(written);
      log.info('updated plan status', { status: status.status });
    } catch (err) {
      if (isKind(err, 'Conflict')) return { requeue: true };
      if (isKind(err, 'NotFound')) return {};
      throw err;
    }
    return {};
  }
}
