// Parity with upstream on the real bed: an apps/v1 Deployment (kube-controller-manager's controller)
// and a pacer.dev Deployment (Pacer's) of the same spec, created and then given a new image side by
// side, end with the same status: every count (terminatingReplicas included, which the ReplicaSet
// controller reports since Kubernetes 1.35), observedGeneration, and the conditions' types, statuses,
// reasons and messages (ReplicaSet names aside). Once for RollingUpdate, once for Recreate. The
// simulated cluster runs no apps/v1 Deployment controller, so this suite is the real bed's only.

import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eventually } from '../integration/fixtures/cluster.ts';
import { BEDS, ROOT, kubectlEnv } from './fixtures.ts';

interface Status {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  terminatingReplicas?: number;
  conditions?: Array<{ type: string; status: string; reason?: string; message?: string }>;
}
interface Obj {
  metadata: { generation?: number };
  spec: { replicas?: number };
  status?: Status;
}

const STRATEGIES = [
  { name: 'rolling', strategy: '{type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 1}}' },
  { name: 'recreate', strategy: '{type: Recreate}' },
];

function manifest(apiVersion: string, name: string, strategy: string, image: string): string {
  return [
    `apiVersion: ${apiVersion}`,
    'kind: Deployment',
    `metadata: {name: ${name}}`,
    'spec:',
    '  replicas: 3',
    `  selector: {matchLabels: {app: ${name}}}`,
    `  strategy: ${strategy}`,
    `  template: {metadata: {labels: {app: ${name}}}, spec: {containers: [{name: web, image: '${image}'}]}}`,
    '',
  ].join('\n');
}

/** What two controllers that agree write alike: the counts (0 when omitted), and the conditions without times or ReplicaSet names. */
function comparable(s: Status | undefined, name: string): Record<string, unknown> {
  const n = (v: number | undefined) => v ?? 0;
  return {
    observedGeneration: s?.observedGeneration,
    replicas: n(s?.replicas),
    updatedReplicas: n(s?.updatedReplicas),
    readyReplicas: n(s?.readyReplicas),
    availableReplicas: n(s?.availableReplicas),
    unavailableReplicas: n(s?.unavailableReplicas),
    terminatingReplicas: s?.terminatingReplicas,
    conditions: (s?.conditions ?? [])
      .map(
        (c) =>
          `${c.type} ${c.status} ${c.reason ?? ''}: ${(c.message ?? '').replace(new RegExp(`"${name}-[a-z0-9]+"`, 'g'), '"RS"')}`,
      )
      .sort(),
  };
}

for (const bed of BEDS.filter((b) => b === 'real'))
  describe(`e2e (${bed}): a pacer.dev and an apps/v1 Deployment of one spec end with the same status`, function () {
    this.timeout(120_000);
    const k = kubectlEnv({ bed, tmpPrefix: 'pacer-parity-', sim: { podStartMs: 30, podReadyMs: 60 } });
    const { kubectl, ok } = k;
    before(function () {
      return k.start(this);
    });
    after(() => k.stop());

    it('installs the CRD and starts the controller', async () => {
      await ok(kubectl('apply', '-f', join(ROOT, 'crds')));
      await eventually('the CRD to be served', async () => (await kubectl('get', 'pdeploy')).code === 0);
      await k.startController();
    });

    for (const { name, strategy } of STRATEGIES) {
      it(`${name}: created, then a new image: the same status at rest`, async () => {
        const up = `up-${name}`;
        const pc = `pc-${name}`;
        const apply = async (image: string) => {
          const file = join(k.dir, `${name}.yaml`);
          await writeFile(
            file,
            `${manifest('apps/v1', up, strategy, image)}---\n${manifest('pacer.dev/v1alpha1', pc, strategy, image)}`,
          );
          await ok(kubectl('apply', '-f', file));
        };
        const get = async (kind: string, n: string) =>
          JSON.parse(await ok(kubectl('get', kind, n, '-o', 'json'))) as Obj;
        /** Both at rest on generation `gen`: every replica updated and available, none terminating. */
        const atRest = async (gen: number) => {
          const both = [await get('deployments.apps', up), await get('deployments.pacer.dev', pc)];
          return (
            both.every(
              (d) =>
                d.metadata.generation === gen &&
                d.status?.observedGeneration === gen &&
                d.status.updatedReplicas === 3 &&
                d.status.availableReplicas === 3 &&
                d.status.replicas === 3 &&
                (d.status.terminatingReplicas ?? 0) === 0,
            ) && both
          );
        };
        await apply('registry.example/web:1');
        await eventually(`${name}: both available`, () => atRest(1), 60_000);
        await apply('registry.example/web:2');
        const [a, p] = await eventually(`${name}: both rolled out`, () => atRest(2), 60_000);
        expect(comparable(p.status, pc), 'pacer.dev (actual) against apps/v1 (expected)').to.deep.equal(
          comparable(a.status, up),
        );
        expect(a.status?.terminatingReplicas, 'upstream reports the count').to.equal(0);
      });
    }
  });
