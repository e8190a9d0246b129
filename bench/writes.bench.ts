// API writes per completed rollout, on the simulated cluster, against the minimum. For a Deployment
// of N replicas the controller's write requests (create/update/patch/delete, by resource and
// subresource, from the sim's audit log) are counted from an image change until the rollout is
// complete and the controller is quiet, and compared with what the rollout needed at least:
//   * one ReplicaSet create;
//   * one ReplicaSet update per change of a ReplicaSet's size (one per batch on each ReplicaSet);
//   * one status write per change of the stored status (a write that changes nothing, or meets a
//     409, is waste);
//   * one Deployment write for the revision annotation;
//   * one Event per scaling (Scaled up/down), as upstream records them.
// Prints one JSON line per case: {name, writes, minimum, ratio, requests, durationMs}.
//   npx node bench/writes.bench.ts

import { DEPLOYMENTS } from '../src/kube/client.ts';
import type { AuditEntry } from '../src/sim/audit.ts';
import type { DeploymentSpec } from '../src/api/types.ts';
import {
  CONTROLLER_AGENT_PREFIX,
  Timeline,
  createNamespace,
  deploymentManifest,
  sleep,
  startCluster,
  waitComplete,
} from '../test/integration/fixtures/cluster.ts';
import type { Cluster } from '../test/integration/fixtures/cluster.ts';

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

interface Case {
  name: string;
  replicas: number;
  strategy: DeploymentSpec['strategy'];
}

const CASES: Case[] = [
  {
    name: 'rolling-update-10-replicas-surge-25%-unavailable-25%',
    replicas: 10,
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
  },
  { name: 'recreate-10-replicas', replicas: 10, strategy: { type: 'Recreate' } },
];

const keyOf = (e: AuditEntry) => `${e.verb} ${e.resource}${e.subresource ? `/${e.subresource}` : ''}`;

function controllerWrites(c: Cluster, from: number, namespace: string): AuditEntry[] {
  return c.sim.audit
    .entries()
    .slice(from)
    .filter(
      (e) => e.userAgent.startsWith(CONTROLLER_AGENT_PREFIX) && WRITE_VERBS.has(e.verb) && e.namespace === namespace,
    );
}

/** Waits until the controller has written nothing in the namespace for `quietMs`. */
async function quiet(c: Cluster, namespace: string, quietMs = 600): Promise<void> {
  for (;;) {
    const n = controllerWrites(c, 0, namespace).length;
    await sleep(quietMs);
    await c.ctl.controller.recorder.flush();
    if (controllerWrites(c, 0, namespace).length === n) return;
  }
}

function count(entries: AuditEntry[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of entries) out[keyOf(e)] = (out[keyOf(e)] ?? 0) + 1;
  return Object.fromEntries(Object.entries(out).sort());
}

const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);

async function run(c: Cluster, k: Case): Promise<void> {
  const ns = k.name
    .slice(0, 40)
    .replace(/[^a-z0-9-]/g, '')
    .replace(/-+$/, '');
  createNamespace(c.sim, ns);
  await c.client.create(DEPLOYMENTS, ns, deploymentManifest(ns, 'web', { replicas: k.replicas, strategy: k.strategy }));
  await waitComplete(c.client, ns, 'web', '1', 60_000);
  await quiet(c, ns);

  const t = new Timeline(c.sim, ns);
  let statusChanges = 0;
  let lastStatus = JSON.stringify(t.deployment?.status ?? (await c.client.getDeployment(ns, 'web')).status);
  t.check('count status changes', (tl, step) => {
    if (step.resource !== 'deployments') return undefined;
    const s = JSON.stringify(tl.deployment?.status);
    if (s !== lastStatus) statusChanges++;
    lastStatus = s;
    return undefined;
  });
  const from = c.sim.audit.entries().length;
  const started = Date.now();
  await c.client.patch(
    DEPLOYMENTS,
    ns,
    'web',
    { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:2' }] } } } },
    'merge',
  );
  await waitComplete(c.client, ns, 'web', '2', 60_000);
  const durationMs = Date.now() - started;
  await quiet(c, ns);
  t.stop();

  const writes = count(controllerWrites(c, from, ns));
  const created = t.steps.filter((s) => s.resource === 'replicasets' && s.type === 'ADDED').length;
  // A creation is a scaling from 0 (no Event when created with 0 replicas).
  const scalingEvents = t.scalings.filter((s) => s.from !== s.to).length;
  const minimum: Record<string, number> = {
    'create events': scalingEvents,
    'create replicasets': created,
    'patch deployments': 1,
    'update deployments/status': statusChanges,
    'update replicasets': t.scalings.length - created,
  };
  const requests = c.sim.audit
    .entries()
    .slice(from)
    .filter((e) => e.userAgent.startsWith(CONTROLLER_AGENT_PREFIX) && e.namespace === ns).length;
  process.stdout.write(
    `${JSON.stringify({
      name: k.name,
      writes,
      minimum,
      ratio: Math.round((sum(writes) / sum(minimum)) * 100) / 100,
      requests,
      durationMs,
    })}\n`,
  );
}

const c = await startCluster({ podStartMs: 20, podReadyMs: 30 });
try {
  for (const k of CASES) await run(c, k);
} finally {
  await c.stop();
}
