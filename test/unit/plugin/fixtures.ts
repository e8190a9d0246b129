// Small builders for the plugin's tests: a Deployment with a status, its ReplicaSets and pods.

import type { Deployment, DeploymentStatus, Pod, ReplicaSet } from '../../../src/api/types.ts';
import type { Session } from '../../../src/plugin/options.ts';

export const T0 = Date.parse('2026-03-01T10:00:00Z');

export function deployment(
  name: string,
  opts: {
    replicas?: number;
    generation?: number;
    paused?: boolean;
    status?: DeploymentStatus;
    annotations?: Record<string, string>;
    image?: string;
    uid?: string;
  } = {},
): Deployment {
  return {
    apiVersion: 'pacer.dev/v1alpha1',
    kind: 'Deployment',
    metadata: {
      name,
      namespace: 'default',
      uid: opts.uid ?? `uid-${name}`,
      resourceVersion: '42',
      generation: opts.generation ?? 1,
      creationTimestamp: new Date(T0).toISOString(),
      ...(opts.annotations ? { annotations: opts.annotations } : {}),
    },
    spec: {
      replicas: opts.replicas ?? 3,
      selector: { matchLabels: { app: name } },
      ...(opts.paused !== undefined ? { paused: opts.paused } : {}),
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'nginx', image: opts.image ?? 'nginx:1.27' }] },
      },
    },
    status: opts.status ?? { observedGeneration: opts.generation ?? 1 },
  };
}

export function replicaSet(
  owner: Deployment,
  hash: string,
  opts: {
    revision?: number | string;
    replicas?: number;
    ready?: number;
    available?: number;
    statusReplicas?: number;
    image?: string;
    changeCause?: string;
    ageSeconds?: number;
  } = {},
): ReplicaSet {
  const annotations: Record<string, string> = {};
  if (opts.revision !== undefined) annotations['pacer.dev/revision'] = String(opts.revision);
  if (opts.changeCause !== undefined) annotations['kubernetes.io/change-cause'] = opts.changeCause;
  const replicas = opts.replicas ?? 0;
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${owner.metadata.name}-${hash}`,
      namespace: 'default',
      uid: `uid-rs-${hash}`,
      annotations,
      labels: { app: owner.metadata.name!, 'pod-template-hash': hash },
      creationTimestamp: new Date(T0 + 1000 * (opts.ageSeconds ?? 0)).toISOString(),
      ownerReferences: [
        {
          apiVersion: 'pacer.dev/v1alpha1',
          kind: 'Deployment',
          name: owner.metadata.name!,
          uid: owner.metadata.uid!,
          controller: true,
        },
      ],
    },
    spec: {
      replicas,
      selector: { matchLabels: { app: owner.metadata.name!, 'pod-template-hash': hash } },
      template: {
        metadata: { labels: { app: owner.metadata.name!, 'pod-template-hash': hash } },
        spec: { containers: [{ name: 'nginx', image: opts.image ?? 'nginx:1.27', imagePullPolicy: 'IfNotPresent' }] },
      },
    },
    status: {
      replicas: opts.statusReplicas ?? replicas,
      readyReplicas: opts.ready ?? replicas,
      availableReplicas: opts.available ?? replicas,
    },
  };
}

export function pod(
  rs: ReplicaSet,
  suffix: string,
  opts: {
    phase?: string;
    ready?: boolean;
    restarts?: number;
    node?: string;
    waiting?: string;
    deleting?: boolean;
  } = {},
): Pod {
  const ready = opts.ready ?? true;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${rs.metadata.name}-${suffix}`,
      namespace: 'default',
      uid: `uid-pod-${suffix}`,
      creationTimestamp: rs.metadata.creationTimestamp,
      ...(opts.deleting ? { deletionTimestamp: new Date(T0).toISOString() } : {}),
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs.metadata.name!, uid: rs.metadata.uid!, controller: true },
      ],
    },
    spec: { containers: [{ name: 'nginx' }], ...(opts.node ? { nodeName: opts.node } : {}) },
    status: {
      phase: opts.phase ?? 'Running',
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
      containerStatuses: [
        {
          name: 'nginx',
          ready,
          restartCount: opts.restarts ?? 0,
          state: opts.waiting ? { waiting: { reason: opts.waiting } } : { running: {} },
        },
      ],
    },
  };
}

/**
 * A session over Deployment `name` that the controller keeps writing: every read gives it a new
 * resourceVersion (41, 42, ...) and goes through the next of `reads` (as it is when none is left);
 * every write (a merge patch through patchDeployment, a JSON patch through request) is kept in
 * `sent` and fails as the next of `answers` says (succeeds when none is left). stdout is kept.
 */
export function racingSession(
  name: string,
  answers: Array<() => Error>,
  reads: Array<(d: Deployment) => Deployment> = [],
) {
  const sent: unknown[] = [];
  let out = '';
  let rv = 40;
  const write = async (body: unknown) => {
    sent.push(body);
    const fail = answers.shift();
    if (fail) throw fail();
    return {};
  };
  const client = {
    getDeployment: async () => {
      const d = deployment(name);
      d.metadata.resourceVersion = String(++rv);
      return (reads.shift() ?? ((x: Deployment) => x))(d);
    },
    patchDeployment: (_ns: string, _name: string, patch: unknown) => write(patch),
    request: (_method: unknown, _path: string, o: { body: unknown }) => write(o.body),
  };
  const s = {
    client,
    namespace: 'default',
    io: { stdout: { write: (t: string) => (out += t) }, stderr: process.stderr },
  } as unknown as Session;
  return { s, sent, out: () => out };
}
