// Prometheus metrics with controller-runtime's names, so existing dashboards work unchanged.
// This is the minimal set; the full one (reconcile_time_seconds, workqueue_adds_total,
// rest_client_requests_total, pacer_* object metrics) hangs off the hooks below in a later issue.

import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';

export interface ControllerMetrics {
  registry: Registry;
  reconcileTotal: Counter<'controller' | 'result'>;
  workqueueDepth: Gauge<'name' | 'controller'>;
  /** Makes workqueue_depth read the queue's length at scrape time. */
  trackQueue(name: string, controller: string, len: () => number): void;
}

export function createMetrics(opts: { defaultMetrics?: boolean } = {}): ControllerMetrics {
  const registry = new Registry();
  if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  const reconcileTotal = new Counter({
    name: 'controller_runtime_reconcile_total',
    help: 'Total number of reconciliations per controller',
    labelNames: ['controller', 'result'] as const,
    registers: [registry],
  });
  const queues: Array<{ name: string; controller: string; len: () => number }> = [];
  const workqueueDepth = new Gauge({
    name: 'workqueue_depth',
    help: 'Current depth of workqueue',
    labelNames: ['name', 'controller'] as const,
    registers: [registry],
    collect() {
      for (const q of queues) this.set({ name: q.name, controller: q.controller }, q.len());
    },
  });
  return {
    registry,
    reconcileTotal,
    workqueueDepth,
    trackQueue(name, controller, len) {
      queues.push({ name, controller, len });
    },
  };
}
