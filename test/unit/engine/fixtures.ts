// Builders for engine tests: Deployments and ReplicaSets written the way the upstream examples
// describe them ("old 10 with 8 available"), and a tiny world that lets ReplicaSets catch up.

import type { Deployment, DeploymentSpec, ReplicaSet } from '../../../src/api/types.ts';
import {
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  REVISION_ANNOTATION,
} from '../../../src/engine/kubernetes/annotations.ts';
import { POD_TEMPLATE_HASH_LABEL } from '../../../src/engine/kubernetes/hash.ts';
import type { Decision, Snapshot } from '../../../src/engine/types.ts';

export const NOW = Date.parse('2025-03-01T10:00:00.000Z');
export const DEPLOYMENT_UID = 'd-uid-1';

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export function template(image: string): NonNullable<DeploymentSpec['template']> {
  return {
    metadata: { labels: { app: 'web' } },
    spec: { containers: [{ name: 'web', image }] },
  };
}

export interface DeploymentOptions {
  replicas?: number;
  image?: string;
  maxSurge?: number | string;
  maxUnavailable?: number | string;
  type?: 'RollingUpdate' | 'Recreate';
  paused?: boolean;
  revisionHistoryLimit?: number;
  progressDeadlineSeconds?: number;
  minReadySeconds?: number;
  generation?: number;
  annotations?: Record<string, string>;
  status?: Deployment['status'];
}

export function deployment(o: DeploymentOptions = {}): Deployment {
  const type = o.type ?? 'RollingUpdate';
  return {
    apiVersion: 'pacer.dev/v1alpha1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      namespace: 'default',
      uid: DEPLOYMENT_UID,
      generation: o.generation ?? 1,
      creationTimestamp: iso(NOW - 3600_000),
      ...(o.annotations ? { annotations: o.annotations } : {}),
    },
    spec: {
      replicas: o.replicas ?? 3,
      selector: { matchLabels: { app: 'web' } },
      template: template(o.image ?? 'nginx:1'),
      strategy:
        type === 'Recreate'
          ? { type }
          : { type, rollingUpdate: { maxSurge: o.maxSurge ?? '25%', maxUnavailable: o.maxUnavailable ?? '25%' } },
      revisionHistoryLimit: o.revisionHistoryLimit ?? 10,
      progressDeadlineSeconds: o.progressDeadlineSeconds ?? 600,
      minReadySeconds: o.minReadySeconds ?? 0,
      paused: o.paused ?? false,
    },
    ...(o.status ? { status: o.status } : {}),
  };
}

export interface ReplicaSetOptions {
  replicas: number;
  available?: number;
  /** status.replicas; defaults to spec.replicas */
  current?: number;
  ready?: number;
  image?: string;
  revision?: number | string;
  /** minutes before NOW */
  age?: number;
  desired?: number;
  max?: number;
  owned?: boolean;
  uid?: string;
}

export function replicaSet(name: string, o: ReplicaSetOptions): ReplicaSet {
  const hash = name.split('-').pop() ?? name;
  const t = template(o.image ?? 'nginx:1');
  const annotations: Record<string, string> = {};
  if (o.revision !== undefined) annotations[REVISION_ANNOTATION] = String(o.revision);
  if (o.desired !== undefined) annotations[DESIRED_REPLICAS_ANNOTATION] = String(o.desired);
  if (o.max !== undefined) annotations[MAX_REPLICAS_ANNOTATION] = String(o.max);
  const available = o.available ?? o.replicas;
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name,
      namespace: 'default',
      uid: o.uid ?? `uid-${name}`,
      generation: 1,
      creationTimestamp: iso(NOW - (o.age ?? 10) * 60_000),
      labels: { app: 'web', [POD_TEMPLATE_HASH_LABEL]: hash },
      annotations,
      ...(o.owned === false
        ? {}
        : {
            ownerReferences: [
              {
                apiVersion: 'pacer.dev/v1alpha1',
                kind: 'Deployment',
                name: 'web',
                uid: DEPLOYMENT_UID,
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
          }),
    },
    spec: {
      replicas: o.replicas,
      minReadySeconds: 0,
      selector: { matchLabels: { app: 'web', [POD_TEMPLATE_HASH_LABEL]: hash } },
      template: { ...t, metadata: { labels: { ...t.metadata!.labels, [POD_TEMPLATE_HASH_LABEL]: hash } } },
    },
    status: {
      replicas: o.current ?? o.replicas,
      readyReplicas: o.ready ?? available,
      availableReplicas: available,
      observedGeneration: 1,
    },
  };
}

export function snapshot(d: Deployment, rss: ReplicaSet[], now = NOW): Snapshot {
  return { deployment: d, replicaSets: rss, pods: [], now };
}

/** Every ReplicaSet catches up: all its replicas exist and are available, its spec observed. */
export function settle(rss: readonly ReplicaSet[]): ReplicaSet[] {
  return rss.map((rs) => {
    const n = rs.spec.replicas ?? 1;
    return {
      ...rs,
      status: {
        ...rs.status,
        replicas: n,
        readyReplicas: n,
        availableReplicas: n,
        observedGeneration: rs.metadata.generation ?? 1,
      },
    };
  });
}

/** The next snapshot after a decision, with the world settled and the clock moved on. */
export function next(
  decision: Decision,
  now: number,
  world: (rss: readonly ReplicaSet[]) => ReplicaSet[] = settle,
): Snapshot {
  return { deployment: decision.objects.deployment, replicaSets: world(decision.objects.replicaSets), pods: [], now };
}

/** A compact view of the actions: "scale web-abc 0->2". */
export function summary(decision: Decision): string[] {
  return decision.actions.map((a) => {
    switch (a.verb) {
      case 'scale':
        return `scale ${a.name} ${a.from}->${a.replicas}`;
      case 'create':
        return `create ${a.name} ${a.replicas}`;
      default:
        return `${a.verb} ${a.kind} ${a.name}`;
    }
  });
}

/** `v` and everything it holds frozen: the engine must never change its input (a mutation throws). */
export function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v as object)) deepFreeze(x);
  }
  return v;
}
