import { expect } from 'chai';
import { defaultImagePullPolicy, podSpecWithDefaults } from '../../../src/api/poddefaults.ts';

describe('api/poddefaults: the pod defaults the API server fills into a template', () => {
  const pullPolicies: Array<[string, string]> = [
    ['nginx', 'Always'],
    ['nginx:latest', 'Always'],
    ['nginx:1.27', 'IfNotPresent'],
    ['registry:5000/team/app', 'Always'],
    ['registry:5000/team/app:v2', 'IfNotPresent'],
    ['nginx@sha256:0123abcd', 'IfNotPresent'],
  ];
  for (const [image, policy] of pullPolicies) {
    it(`image ${image} → imagePullPolicy ${policy}`, () => expect(defaultImagePullPolicy(image)).to.equal(policy));
  }

  it('fills in the pod and container defaults, keeping what was set', () => {
    const input = {
      containers: [
        {
          name: 'web',
          image: 'nginx:1',
          ports: [{ containerPort: 80 }, { containerPort: 53, protocol: 'UDP' }],
          readinessProbe: { httpGet: { path: '/', port: 80 }, periodSeconds: 5 },
          env: [
            { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
            { name: 'A', value: '1' },
          ],
        },
      ],
      volumes: [
        { name: 'cfg', configMap: { name: 'x' } },
        { name: 'scratch' },
        { name: 'h', hostPath: { path: '/tmp' } },
      ],
      terminationGracePeriodSeconds: 5,
    };
    const before = JSON.stringify(input);
    expect(podSpecWithDefaults(input)).to.deep.equal({
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 5,
      dnsPolicy: 'ClusterFirst',
      schedulerName: 'default-scheduler',
      securityContext: {},
      containers: [
        {
          name: 'web',
          image: 'nginx:1',
          imagePullPolicy: 'IfNotPresent',
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          ports: [
            { containerPort: 80, protocol: 'TCP' },
            { containerPort: 53, protocol: 'UDP' },
          ],
          readinessProbe: {
            httpGet: { path: '/', port: 80, scheme: 'HTTP' },
            periodSeconds: 5,
            timeoutSeconds: 1,
            successThreshold: 1,
            failureThreshold: 3,
          },
          env: [
            { name: 'NODE', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'spec.nodeName' } } },
            { name: 'A', value: '1' },
          ],
        },
      ],
      volumes: [
        { name: 'cfg', configMap: { name: 'x', defaultMode: 420 } },
        { name: 'scratch', emptyDir: {} },
        { name: 'h', hostPath: { path: '/tmp', type: '' } },
      ],
    });
    expect(JSON.stringify(input)).to.equal(before);
  });
});
