import { expect } from 'chai';
import { withDefaults } from '../../../src/api/defaults.ts';
import type { Deployment, DeploymentSpec } from '../../../src/api/types.ts';

function deployment(spec: DeploymentSpec): Deployment {
  return { metadata: { name: 'web' }, spec };
}

// SetDefaults_Deployment (apps/v1): what a Deployment looks like after the API server stored it.
describe('api/defaults: withDefaults (apps/v1 SetDefaults_Deployment)', () => {
  const rows: Array<{ name: string; spec: DeploymentSpec; want: DeploymentSpec }> = [
    {
      name: 'an empty spec gets every default',
      spec: {},
      want: {
        replicas: 1,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
        revisionHistoryLimit: 10,
        progressDeadlineSeconds: 600,
        minReadySeconds: 0,
        paused: false,
      },
    },
    {
      name: 'set values are kept, including zeros',
      spec: { replicas: 0, revisionHistoryLimit: 0, progressDeadlineSeconds: 30, minReadySeconds: 5, paused: true },
      want: {
        replicas: 0,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
        revisionHistoryLimit: 0,
        progressDeadlineSeconds: 30,
        minReadySeconds: 5,
        paused: true,
      },
    },
    {
      name: 'a partial rollingUpdate is completed field by field',
      spec: { strategy: { rollingUpdate: { maxSurge: 0 } } },
      want: {
        replicas: 1,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: 0 } },
        revisionHistoryLimit: 10,
        progressDeadlineSeconds: 600,
        minReadySeconds: 0,
        paused: false,
      },
    },
    {
      name: 'an empty type string is defaulted like a missing one',
      spec: { strategy: { type: '' } },
      want: {
        replicas: 1,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
        revisionHistoryLimit: 10,
        progressDeadlineSeconds: 600,
        minReadySeconds: 0,
        paused: false,
      },
    },
    {
      name: 'Recreate gets no rollingUpdate',
      spec: { strategy: { type: 'Recreate' } },
      want: {
        replicas: 1,
        strategy: { type: 'Recreate' },
        revisionHistoryLimit: 10,
        progressDeadlineSeconds: 600,
        minReadySeconds: 0,
        paused: false,
      },
    },
    {
      name: "MinimumHealth without minimumHealth gets Marathon's minimumHealthCapacity 1.0 and no rollingUpdate",
      spec: { strategy: { type: 'MinimumHealth' } },
      want: {
        replicas: 1,
        strategy: { type: 'MinimumHealth', minimumHealth: { minimumHealthCapacity: 1 } },
        revisionHistoryLimit: 10,
        progressDeadlineSeconds: 600,
        minReadySeconds: 0,
        paused: false,
      },
    },
    {
      name: 'MinimumHealth keeps a given capacity and leaves maximumOverCapacity absent (the side-by-side rule)',
      spec: { strategy: { type: 'MinimumHealth', minimumHealth: { minimumHealthCapacity: 0.6 } } },
      want: {
        replicas: 1,
        strategy: { type: 'MinimumHealth', minimumHealth: { minimumHealthCapacity: 0.6 } },
        revisionHistoryLimit: 10,
        progressDeadlineSeconds: 600,
        minReadySeconds: 0,
        paused: false,
      },
    },
    {
      name: 'MinimumHealth with maximumOverCapacity only: capacity defaults to 1.0',
      spec: { strategy: { type: 'MinimumHealth', minimumHealth: { maximumOverCapacity: 0 } } },
      want: {
        replicas: 1,
        strategy: { type: 'MinimumHealth', minimumHealth: { maximumOverCapacity: 0, minimumHealthCapacity: 1 } },
        revisionHistoryLimit: 10,
        progressDeadlineSeconds: 600,
        minReadySeconds: 0,
        paused: false,
      },
    },
    {
      name: 'an unknown type is left for validation to reject',
      spec: { strategy: { type: 'BlueGreen' } },
      want: {
        replicas: 1,
        strategy: { type: 'BlueGreen' },
        revisionHistoryLimit: 10,
        progressDeadlineSeconds: 600,
        minReadySeconds: 0,
        paused: false,
      },
    },
  ];
  for (const row of rows) {
    it(row.name, () => expect(withDefaults(deployment(row.spec)).spec).to.deep.equal(row.want));
  }

  it('does not change its input', () => {
    const d = deployment({ strategy: { rollingUpdate: {} } });
    const before = structuredClone(d);
    withDefaults(d);
    expect(d).to.deep.equal(before);
  });

  it('is idempotent', () => {
    const once = withDefaults(deployment({ replicas: 4, strategy: { rollingUpdate: { maxUnavailable: 1 } } }));
    expect(withDefaults(once)).to.deep.equal(once);
  });
});
