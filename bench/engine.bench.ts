// Engine throughput: decide() decisions per second for a Deployment with three ReplicaSets in the
// middle of a rolling update (one core, one snapshot decided over and over). Prints one JSON line.
//   npx node bench/engine.bench.ts [seconds]

import type { Deployment, ReplicaSet } from '../src/api/types.ts';
import { decide } from '../src/engine/decide.ts';

const NOW = Date.parse('2025-03-01T10:00:00.000Z');
const OWNER = {
  apiVersion: 'pacer.dev/v1alpha1',
  kind: 'Deployment',
  name: 'web',
  uid: 'd-uid',
  controller: true,
  blockOwnerDeletion: true,
};

function podTemplate(image: string, hash?: string) {
  return {
    metadata: {
      labels: { app: 'web', tier: 'frontend', ...(hash ? { 'pod-template-hash': hash } : {}) },
      annotations: { 'prometheus.io/scrape': 'true' },
    },
    spec: {
      containers: [
        {
          name: 'web',
          image,
          ports: [{ containerPort: 8080, protocol: 'TCP' }],
          env: [
            { name: 'MODE', value: 'production' },
            { name: 'LOG_LEVEL', value: 'info' },
          ],
          resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
          readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 5 },
        },
      ],
      terminationGracePeriodSeconds: 30,
    },
  };
}

function rs(
  hash: string,
  image: string,
  revision: number,
  spec: number,
  available: number,
  ageMin: number,
): ReplicaSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `web-${hash}`,
      namespace: 'default',
      uid: `uid-${hash}`,
      generation: 3,
      resourceVersion: '100',
      creationTimestamp: new Date(NOW - ageMin * 60_000).toISOString(),
      labels: { app: 'web', tier: 'frontend', 'pod-template-hash': hash },
      annotations: {
        'pacer.dev/revision': String(revision),
        'pacer.dev/desired-replicas': '10',
        'pacer.dev/max-replicas': '13',
      },
      ownerReferences: [OWNER],
    },
    spec: {
      replicas: spec,
      minReadySeconds: 0,
      selector: { matchLabels: { app: 'web', 'pod-template-hash': hash } },
      template: podTemplate(image, hash),
    },
    status: { replicas: spec, readyReplicas: available, availableReplicas: available, observedGeneration: 3 },
  };
}

const deployment: Deployment = {
  apiVersion: 'pacer.dev/v1alpha1',
  kind: 'Deployment',
  metadata: {
    name: 'web',
    namespace: 'default',
    uid: 'd-uid',
    generation: 3,
    resourceVersion: '99',
    annotations: { 'pacer.dev/revision': '3' },
    creationTimestamp: new Date(NOW - 3600_000).toISOString(),
  },
  spec: {
    replicas: 10,
    selector: { matchLabels: { app: 'web' } },
    template: podTemplate('web:3'),
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
    revisionHistoryLimit: 10,
    progressDeadlineSeconds: 600,
    minReadySeconds: 0,
    paused: false,
  },
  status: {
    observedGeneration: 3,
    replicas: 13,
    updatedReplicas: 5,
    readyReplicas: 10,
    availableReplicas: 10,
    unavailableReplicas: 3,
    conditions: [
      {
        type: 'Available',
        status: 'True',
        lastUpdateTime: new Date(NOW - 60_000).toISOString(),
        lastTransitionTime: new Date(NOW - 60_000).toISOString(),
        reason: 'MinimumReplicasAvailable',
        message: 'Deployment has minimum availability.',
      },
      {
        type: 'Progressing',
        status: 'True',
        lastUpdateTime: new Date(NOW - 10_000).toISOString(),
        lastTransitionTime: new Date(NOW - 60_000).toISOString(),
        reason: 'ReplicaSetUpdated',
        message: 'ReplicaSet "web-c3" is progressing.',
      },
    ],
    selector: 'app=web',
    ready: '10/10',
  },
};

// Mid-rollout: v3 (new) 5 with 2 available, v2 6 all available, v1 2 all available.
const replicaSets = [rs('a1', 'web:1', 1, 2, 2, 30), rs('b2', 'web:2', 2, 6, 6, 20), rs('c3', 'web:3', 3, 5, 2, 1)];
const snapshot = { deployment, replicaSets, pods: [], now: NOW };

const seconds = Number(process.argv[2] ?? 3);
const first = decide(snapshot);
for (let i = 0; i < 20_000; i++) decide(snapshot); // warm up
let ops = 0;
const start = process.hrtime.bigint();
const until = start + BigInt(Math.round(seconds * 1e9));
let t = start;
while (t < until) {
  for (let i = 0; i < 1000; i++) decide(snapshot);
  ops += 1000;
  t = process.hrtime.bigint();
}
const elapsed = Number(t - start) / 1e9;

// The same decision on never-seen objects (every identity-keyed memo misses: validation, template
// comparison): the cost of the first pass after each change.
const fresh = Array.from({ length: 2000 }, () => structuredClone(snapshot));
const freshStart = process.hrtime.bigint();
for (const s of fresh) decide(s);
const freshElapsed = Number(process.hrtime.bigint() - freshStart) / 1e9;

console.log(
  JSON.stringify({
    name: 'engine.decide.rolling-3rs',
    opsPerSec: Math.round(ops / elapsed),
    freshObjectsOpsPerSec: Math.round(fresh.length / freshElapsed),
    ops,
    seconds: Number(elapsed.toFixed(3)),
    actions: first.actions.map((a) => a.verb),
    node: process.version,
  }),
);
