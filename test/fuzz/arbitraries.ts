// What the fuzz tests generate: Deployments valid and not (replicas out of range, strategies of any
// shape, garbage in the annotations Pacer reads), and ReplicaSets edited behind Pacer's back.

import fc from 'fast-check';
import type { Deployment, ReplicaSet } from '../../src/api/types.ts';

export const UID = 'uid-web';

/** Anything a hand-edited field may hold. */
export const junk = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.integer({ min: -5, max: 50 }).map(String),
  fc.constantFrom('', '-1', '1e9', 'NaN', '{', '3.5', ' 2'),
);
export const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const intOrPercent = fc.oneof(
  fc.integer({ min: -2, max: 12 }),
  fc.integer({ min: -10, max: 150 }).map((n) => `${n}%`),
  fc.constantFrom('abc', '', '25', '1.5%'),
);

const strategy = fc.oneof(
  fc.record({
    type: fc.constant('RollingUpdate'),
    rollingUpdate: maybe(fc.record({ maxSurge: maybe(intOrPercent), maxUnavailable: maybe(intOrPercent) })),
  }),
  fc.record({ type: fc.constant('Recreate') }),
  fc.record({
    type: fc.constant('MinimumHealth'),
    minimumHealth: maybe(
      fc.record({
        minimumHealthCapacity: maybe(fc.double({ min: -0.5, max: 1.5, noNaN: true })),
        maximumOverCapacity: maybe(fc.double({ min: -0.5, max: 1.5, noNaN: true })),
      }),
    ),
  }),
  fc.record({ type: fc.constantFrom('Surge', '', 'rollingupdate') }),
);

const template = (image: string) => ({
  metadata: { labels: { app: 'web' } },
  spec: { containers: [{ name: 'web', image }] },
});

const annotations = fc.dictionary(
  fc.constantFrom(
    'pacer.dev/revision',
    'pacer.dev/desired-replicas',
    'pacer.dev/max-replicas',
    'pacer.dev/revision-history',
    'pacer.dev/plan-state',
    'pacer.dev/plan-interrupted',
    'pacer.dev/rollback-to',
    'pacer.dev/force',
    'pacer.dev/cancel',
    'pacer.dev/cancel-request',
    'kubernetes.io/change-cause',
  ),
  junk,
  { maxKeys: 4 },
);

export const deployment: fc.Arbitrary<Deployment> = fc
  .record({
    replicas: maybe(fc.integer({ min: -3, max: 30 })),
    strategy: maybe(strategy),
    image: fc.constantFrom('app:1', 'app:2', 'app:3'),
    paused: maybe(fc.boolean()),
    minReadySeconds: maybe(fc.integer({ min: -5, max: 30 })),
    progressDeadlineSeconds: maybe(fc.integer({ min: -5, max: 900 })),
    revisionHistoryLimit: maybe(fc.integer({ min: -2, max: 12 })),
    generation: fc.integer({ min: 1, max: 9 }),
    observed: fc.integer({ min: 0, max: 9 }),
    annotations,
    dependencies: maybe(fc.array(fc.constantFrom('db', 'other/x', '', 'web', 'a/b/c'), { maxLength: 2 })),
  })
  .map(
    (o) =>
      ({
        apiVersion: 'pacer.dev/v1alpha1',
        kind: 'Deployment',
        metadata: {
          name: 'web',
          namespace: 'default',
          uid: UID,
          generation: o.generation,
          annotations: o.annotations,
          creationTimestamp: '2026-11-24T09:00:00Z',
        },
        spec: {
          selector: { matchLabels: { app: 'web' } },
          template: template(o.image),
          ...(o.replicas !== undefined ? { replicas: o.replicas } : {}),
          ...(o.strategy ? { strategy: o.strategy as Deployment['spec']['strategy'] } : {}),
          ...(o.paused !== undefined ? { paused: o.paused } : {}),
          ...(o.minReadySeconds !== undefined ? { minReadySeconds: o.minReadySeconds } : {}),
          ...(o.progressDeadlineSeconds !== undefined ? { progressDeadlineSeconds: o.progressDeadlineSeconds } : {}),
          ...(o.revisionHistoryLimit !== undefined ? { revisionHistoryLimit: o.revisionHistoryLimit } : {}),
          ...(o.dependencies ? { dependencies: o.dependencies } : {}),
        },
        status: { observedGeneration: o.observed },
      }) as Deployment,
  );

export const replicaSet = (i: number): fc.Arbitrary<ReplicaSet> =>
  fc
    .record({
      replicas: fc.integer({ min: -2, max: 40 }),
      available: fc.integer({ min: 0, max: 40 }),
      image: fc.constantFrom('app:1', 'app:2', 'app:3', 'other'),
      owner: fc.constantFrom('mine', 'mine', 'mine', 'orphan', 'another'),
      hashLabel: fc.boolean(),
      annotations,
    })
    .map(
      (o) =>
        ({
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          metadata: {
            name: `web-${i}`,
            namespace: 'default',
            uid: `rs-${i}`,
            generation: 1,
            annotations: o.annotations,
            creationTimestamp: `2026-11-24T0${i}:00:00Z`,
            labels: { app: 'web', ...(o.hashLabel ? { 'pod-template-hash': `h${i}` } : {}) },
            ...(o.owner === 'orphan'
              ? {}
              : {
                  ownerReferences: [
                    {
                      apiVersion: 'pacer.dev/v1alpha1',
                      kind: 'Deployment',
                      name: 'web',
                      uid: o.owner === 'mine' ? UID : 'someone-else',
                      controller: true,
                    },
                  ],
                }),
          },
          spec: {
            replicas: o.replicas,
            selector: { matchLabels: { app: 'web' } },
            template: {
              metadata: { labels: { app: 'web', ...(o.hashLabel ? { 'pod-template-hash': `h${i}` } : {}) } },
              spec: template(o.image).spec,
            },
          },
          status: {
            replicas: Math.max(0, o.replicas),
            availableReplicas: o.available,
            readyReplicas: o.available,
            observedGeneration: 1,
          },
        }) as ReplicaSet,
    );
