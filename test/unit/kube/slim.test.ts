// What the controller's caches keep (src/kube/slim.ts): managedFields dropped from everything, pods
// reduced to the fields Pacer reads from a cached pod.

import { expect } from 'chai';
import { cacheTransform, dropManagedFields, slimPod } from '../../../src/kube/slim.ts';

const managedFields = [{ manager: 'kubectl', operation: 'Update', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }];

/** A pod as a real API server returns it (trimmed to one of each kind of field). */
const fullPod = () => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'web-1',
    generateName: 'web-',
    namespace: 'shop',
    uid: 'u1',
    resourceVersion: '7',
    creationTimestamp: '2026-11-24T10:00:00Z',
    deletionTimestamp: '2026-11-24T10:05:00Z',
    deletionGracePeriodSeconds: 30,
    labels: { app: 'web' },
    annotations: { a: 'b' },
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'rs1', controller: true }],
    finalizers: ['f'],
    managedFields,
  },
  spec: {
    nodeName: 'n1',
    serviceAccountName: 'default',
    volumes: [{ name: 'v', emptyDir: {} }],
    tolerations: [{ key: 'k', operator: 'Exists' }],
    containers: [
      {
        name: 'web',
        image: 'nginx:1',
        env: [{ name: 'A', value: '1' }],
        command: ['nginx'],
        resources: { requests: { cpu: '100m' }, limits: { cpu: '1' } },
        readinessProbe: { httpGet: { port: 80 } },
      },
    ],
    initContainers: [{ name: 'init', image: 'busybox' }],
  },
  status: {
    phase: 'Running',
    reason: 'Evicted',
    startTime: '2026-11-24T10:00:01Z',
    hostIP: '10.0.0.1',
    podIP: '10.1.0.1',
    podIPs: [{ ip: '10.1.0.1' }],
    qosClass: 'Burstable',
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        lastTransitionTime: '2026-11-24T10:00:05Z',
        lastProbeTime: null,
        reason: 'r',
        message: 'long words',
      },
    ],
    containerStatuses: [
      {
        name: 'web',
        ready: true,
        started: true,
        restartCount: 2,
        image: 'nginx:1',
        imageID: 'sha256:x',
        containerID: 'containerd://y',
        state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off' } },
        lastState: { terminated: { exitCode: 1, reason: 'Error' } },
      },
    ],
  },
});

describe("kube/slim: what the controller's caches keep", () => {
  it('a pod: identity, owners, deletion, node, container names, images and requests, phase, conditions and container states; nothing else', () => {
    expect(slimPod(fullPod())).to.deep.equal({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'web-1',
        generateName: 'web-',
        namespace: 'shop',
        uid: 'u1',
        resourceVersion: '7',
        creationTimestamp: '2026-11-24T10:00:00Z',
        deletionTimestamp: '2026-11-24T10:05:00Z',
        deletionGracePeriodSeconds: 30,
        labels: { app: 'web' },
        annotations: { a: 'b' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'rs1', controller: true }],
        finalizers: ['f'],
      },
      spec: {
        nodeName: 'n1',
        containers: [{ name: 'web', image: 'nginx:1', resources: { requests: { cpu: '100m' } } }],
      },
      status: {
        phase: 'Running',
        reason: 'Evicted',
        startTime: '2026-11-24T10:00:01Z',
        conditions: [{ type: 'Ready', status: 'True', reason: 'r', lastTransitionTime: '2026-11-24T10:00:05Z' }],
        containerStatuses: [
          {
            name: 'web',
            ready: true,
            started: true,
            restartCount: 2,
            state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off' } },
            lastState: { terminated: { exitCode: 1, reason: 'Error' } },
          },
        ],
      },
    });
  });

  it('a pod without spec or status (as a watch DELETED may carry it) stays readable', () => {
    expect(slimPod({ metadata: { name: 'p', namespace: 'n' } })).to.deep.equal({
      metadata: { name: 'p', namespace: 'n' },
    });
  });

  it('everything else keeps all but managedFields; an object without them is passed through untouched', () => {
    const rs = {
      metadata: { name: 'web', managedFields },
      spec: { replicas: 3, template: { spec: { containers: [{ name: 'web', env: [] }] } } },
    };
    expect(dropManagedFields(rs)).to.deep.equal({ metadata: { name: 'web' }, spec: rs.spec });
    const plain = { metadata: { name: 'x' }, spec: {} };
    expect(dropManagedFields(plain)).to.equal(plain);
  });

  it('the transform of each cache: pods slimmed, ReplicaSets and Deployments only lose managedFields', () => {
    expect(cacheTransform({ group: '', plural: 'pods' })).to.equal(slimPod);
    expect(cacheTransform({ group: 'apps', plural: 'replicasets' })).to.equal(dropManagedFields);
    expect(cacheTransform({ group: 'pacer.dev', plural: 'deployments' })).to.equal(dropManagedFields);
  });
});
