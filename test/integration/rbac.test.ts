// The controller's roles are proven, not guessed: a representative workload runs against each
// test bed (on the real control plane, as the ServiceAccount with the shipped ClusterRole, so RBAC
// itself judges every request), every request the controller made is taken from the audit log as
// (apiGroup, resource[/subresource], verb) (list and watch as the API server names them), and
//   (a) manifests/base/rbac.yaml must allow each one, with RBAC's exact matching (its ClusterRole
//       anywhere, its Role only in the Role's namespace: the leader election Lease; a rule with
//       resourceNames only for requests naming one of them, a list or watch by its field selector
//       metadata.name: the freeze switch and the default windows);
//   (b) every verb the role grants must have been used, except rules that rbac.yaml marks as
//       reserved for a later feature (a comment above the rule containing "not used yet") and the
//       node roller's rules (their comments start with "Node rolls"), which a roll proves:
//       test/e2e/noderoll-drain.test.ts. The rule reading and matching is test/fixtures/rbac.ts.
// Discovery and /version are non-resource URLs: the API server's default system:discovery and
// system:public-info-viewer roles grant them to every authenticated client; the sim does not log them.

import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import type { Deployment, PlanResource, ReplicaSet } from '../../src/api/types.ts';
import { ANALYSIS_RUNS, ANALYSIS_TEMPLATES, DEPLOYMENTS, PLANS, REPLICASETS } from '../../src/kube/client.ts';
import type { AnalysisRun, AnalysisTemplate } from '../../src/api/analysis.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KubeClient, ResourceType } from '../../src/kube/client.ts';
import { computeHash } from '../../src/engine/kubernetes/hash.ts';
import type { AuditEntry } from '../../src/sim/audit.ts';
import {
  CONTROLLER_AGENT_PREFIX,
  condition,
  createNamespace,
  deploymentManifest,
  eventually,
  ownedReplicaSets,
  startSimWithCrds,
  startTestController,
  waitComplete,
} from './fixtures/cluster.ts';
import { BEDS } from '../fixtures/beds.ts';
import { startRealCluster } from '../fixtures/realbed.ts';
import {
  RBAC_FILE,
  deniedBy,
  describePermission,
  grantsOf,
  isNodeRollerRule,
  pacerRequests,
  policyRules,
  ruleAllows,
  unusedGrants,
} from '../fixtures/rbac.ts';
import type { PolicyRule, RequestAttributes } from '../fixtures/rbac.ts';
import type { RealBed } from '../fixtures/realbed.ts';
import { KUBECTL_HOW, requireTool } from '../fixtures/tools.ts';
import { operatorToken } from '../fixtures/operator.ts';

const NAMESPACES: ResourceType = {
  group: '',
  version: 'v1',
  plural: 'namespaces',
  kind: 'Namespace',
  namespaced: false,
};
const SECRETS: ResourceType = { group: '', version: 'v1', plural: 'secrets', kind: 'Secret', namespaced: true };
/** The controller elects a leader as installed: its Lease in pacer-system, where the Role grants it. */
const LEASE_NAMESPACE = 'pacer-system';
const ELECTING = { leaderElect: true, leaderElectionNamespace: LEASE_NAMESPACE, apiBindAddress: '127.0.0.1:0' };

/** A request's attributes, from the simulated cluster's audit log. */
function attributesOf(e: AuditEntry): RequestAttributes {
  return {
    apiGroup: e.apiGroup,
    resource: e.subresource ? `${e.resource}/${e.subresource}` : e.resource,
    verb: e.verb,
    ...(e.namespace ? { namespace: e.namespace } : {}),
    ...(e.name ? { name: e.name } : {}),
  };
}

describe('RBAC: manifests/base/rbac.yaml against what the controller does', function () {
  this.timeout(60_000);

  describe('rule matching (the checker itself)', () => {
    const rule: PolicyRule = {
      apiGroups: ['apps'],
      resources: ['replicasets', 'deployments/status'],
      verbs: ['get', 'update'],
      reserved: false,
      comment: '',
    };
    const rows: Array<[RequestAttributes, boolean]> = [
      [{ apiGroup: 'apps', resource: 'replicasets', verb: 'get' }, true],
      [{ apiGroup: 'apps', resource: 'replicasets', verb: 'list' }, false], // verb not granted
      [{ apiGroup: '', resource: 'replicasets', verb: 'get' }, false], // another group
      [{ apiGroup: 'apps', resource: 'replicasets/status', verb: 'get' }, false], // a subresource needs its own entry
      [{ apiGroup: 'apps', resource: 'deployments/status', verb: 'update' }, true],
      [{ apiGroup: 'apps', resource: 'deployments', verb: 'update' }, false], // the subresource does not grant the resource
    ];
    for (const [a, want] of rows) {
      it(`${describePermission(a)} → ${want ? 'allowed' : 'denied'}`, () => expect(ruleAllows(rule, a)).to.equal(want));
    }
    it("a Role's rule holds in its namespace only", () => {
      const inNs: PolicyRule = { ...rule, namespace: 'pacer-system' };
      expect(
        ruleAllows(inNs, { apiGroup: 'apps', resource: 'replicasets', verb: 'get', namespace: 'pacer-system' }),
      ).to.equal(true);
      expect(
        ruleAllows(inNs, { apiGroup: 'apps', resource: 'replicasets', verb: 'get', namespace: 'default' }),
      ).to.equal(false);
      expect(
        ruleAllows(inNs, { apiGroup: 'apps', resource: 'replicasets', verb: 'get' }),
        'across namespaces',
      ).to.equal(false);
    });
    it('a rule with resourceNames holds for those names only (a list or watch names one by its field selector)', () => {
      const named: PolicyRule = {
        apiGroups: [''],
        resources: ['configmaps'],
        verbs: ['list', 'watch'],
        resourceNames: ['pacer-freeze'],
        reserved: false,
        comment: '',
      };
      const cm = { apiGroup: '', resource: 'configmaps', verb: 'watch' };
      expect(ruleAllows(named, { ...cm, name: 'pacer-freeze' })).to.equal(true);
      expect(ruleAllows(named, { ...cm, name: 'other' })).to.equal(false);
      expect(ruleAllows(named, cm), 'a list of every ConfigMap').to.equal(false);
    });
    it('"*" matches any group, resource or verb', () => {
      expect(
        ruleAllows(
          { ...rule, apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
          { apiGroup: 'x', resource: 'y/z', verb: 'watch' },
        ),
      ).to.equal(true);
    });
    it("reads the comment above a rule and its reserved mark; a Role's rules carry its namespace", () => {
      const rules = policyRules(
        [
          'kind: ClusterRole',
          'metadata: {name: r}',
          'rules:',
          '  # Pods are read.',
          '  - apiGroups: [""]',
          '    resources: ["pods"]',
          '    verbs: ["get"]',
          '  # LATER (not used yet): secrets.',
          '  - apiGroups: [""]',
          '    resources: ["secrets"]',
          '    verbs: ["get"]',
          '---',
          'kind: Role',
          'metadata: {name: l, namespace: pacer-system}',
          'rules:',
          '  - apiGroups: ["coordination.k8s.io"]',
          '    resources: ["leases"]',
          '    verbs: ["get"]',
        ].join('\n'),
      );
      expect(rules.map((r) => [r.resources[0], r.reserved, r.namespace])).to.deep.equal([
        ['pods', false, undefined],
        ['secrets', true, undefined],
        ['leases', false, 'pacer-system'],
      ]);
    });
  });

  for (const bed of BEDS)
    describe(`the recorded workload (${bed})`, () => {
      let stop: () => Promise<void> = async () => {};
      let used: RequestAttributes[];
      let forbidden: string[] = [];
      const ns = 'rbac';

      before(async function () {
        if (bed === 'real') requireTool(this, 'kube-bed', KUBECTL_HOW);
        let client: KubeClient;
        let stopController: () => Promise<void>;
        let apiPort = 0;
        let requests: () => Promise<RequestAttributes[]>;
        let realBed: RealBed | undefined;
        if (bed === 'sim') {
          const { sim, client: simClient } = await startSimWithCrds({ podStartMs: 20, podReadyMs: 30 });
          createNamespace(sim, ns);
          createNamespace(sim, LEASE_NAMESPACE);
          const ctl = await startTestController(sim.kubeconfig, ELECTING).catch(async (err: unknown) => {
            await sim.stop();
            throw err;
          });
          const c = { sim, ctl };
          apiPort = ctl.apiPort!;
          stop = async () => {
            await ctl.stop();
            await sim.stop();
          };
          client = simClient;
          stopController = () => c.ctl.stop();
          requests = async () => {
            // The sim records a request when its response ends: the informers' watches appear once they close.
            await eventually(
              'the watches in the audit log',
              () => c.sim.audit.entries({ verb: 'watch', userAgent: CONTROLLER_AGENT_PREFIX }).length >= 3,
            );
            // From the controller's start: its informers' initial lists count too.
            return c.sim.audit
              .entries()
              .filter((e) => e.userAgent.startsWith(CONTROLLER_AGENT_PREFIX))
              .map(attributesOf);
          };
        } else {
          const c = await startRealCluster({ podStartMs: 20, podReadyMs: 30 }, ELECTING);
          realBed = c.bed;
          apiPort = c.ctl.apiPort!;
          stop = () => c.stop();
          await c.client.create(NAMESPACES, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
          client = c.client;
          stopController = () => c.ctl.stop();
          // The real API server's audit log: every request of Pacer's ServiceAccount.
          requests = async () => pacerRequests(await c.bed.audit());
        }
        // Create, roll out a new image, scale up and down and up again (the same Event message twice:
        // the recorder patches the existing Event), pause and resume.
        await client.create(DEPLOYMENTS, ns, deploymentManifest(ns, 'web', { replicas: 2 }));
        await waitComplete(client, ns, 'web', '1');
        await client.patch(
          DEPLOYMENTS,
          ns,
          'web',
          { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:2' }] } } } },
          'merge',
        );
        await waitComplete(client, ns, 'web', '2');
        for (const replicas of [3, 2, 3]) {
          await client.patch(DEPLOYMENTS, ns, 'web', { spec: { replicas } }, 'merge');
          await eventually(`web at ${replicas}`, async () => {
            const d = await client.getDeployment(ns, 'web');
            return (
              d.status?.availableReplicas === replicas &&
              d.status.replicas === replicas &&
              d.status.observedGeneration === d.metadata.generation
            );
          });
        }
        await client.patch(DEPLOYMENTS, ns, 'web', { spec: { paused: true } }, 'merge');
        await eventually(
          'paused',
          async () => condition(await client.getDeployment(ns, 'web'), 'Progressing')?.reason === 'DeploymentPaused',
        );
        await client.patch(DEPLOYMENTS, ns, 'web', { spec: { paused: false } }, 'merge');
        await waitComplete(client, ns, 'web', '2');

        // A plan operation over the controller's HTTP API, by an operator it authenticates and
        // authorises (TokenReview, SubjectAccessReview): a step restarted (its pod deleted, an Event).
        const token = await operatorToken(
          client,
          ns,
          realBed &&
            (async (sa) => {
              const r = await realBed!.kubectl(['create', 'token', sa, '-n', ns, '--duration=1h']);
              if (r.code !== 0) throw new Error(`kubectl create token: ${r.stderr}`);
              return r.stdout.trim();
            }),
        );
        const headers = { Authorization: `Bearer ${token}` };
        const restart = await fetch(
          `http://127.0.0.1:${apiPort}/v1/service/${ns}/web/plans/deploy/restart?phase=web&step=${encodeURIComponent('web-0:[web]')}`,
          { method: 'POST', headers },
        );
        expect([restart.status, await restart.text()]).to.deep.equal([
          200,
          JSON.stringify({ message: 'Received cmd: restart for Plan: deploy, Phase: web, Step: web-0:[web]' }, null, 2),
        ]);
        await waitComplete(client, ns, 'web', '2');

        // A custom plan over web: its status written (plans/status), a restart over HTTP (the Plan's
        // overrides patched, web rollout-restarted, an Event on the Plan).
        await client.create<PlanResource>(PLANS, ns, {
          apiVersion: 'pacer.dev/v1alpha1',
          kind: 'Plan',
          metadata: { name: 'rollout', namespace: ns },
          spec: { phases: [{ name: 'all', steps: ['web'] }] },
        });
        await eventually(
          'the plan COMPLETE',
          async () => (await client.get<PlanResource>(PLANS, ns, 'rollout')).status?.status === 'COMPLETE',
        );
        const rerun = await fetch(`http://127.0.0.1:${apiPort}/v1/service/${ns}/web/plans/rollout/restart`, {
          method: 'POST',
          headers,
        });
        expect([rerun.status, await rerun.text()]).to.deep.equal([
          200,
          JSON.stringify({ message: 'Received cmd: restart for Plan: rollout, Phase: null, Step: null' }, null, 2),
        ]);
        await waitComplete(client, ns, 'web', '3');

        // Analysis: a Deployment judged by a web metric whose header and argument come from a
        // Secret (secrets get), its run made (analysisruns create), measured (analysisruns/status
        // update) and ended with the rollout (analysisruns patch).
        await analysisWorkload(client, ns);
        // The job provider (the real bed only: the simulated cluster serves no Jobs): a Job made
        // (jobs create), read until the run stops (get), and deleted when it is terminated (delete).
        if (realBed) await jobWorkload(client, ns);

        const web = await client.getDeployment(ns, 'web');
        // Adoption of an orphan (a fresh read of the Deployment first, then the ReplicaSet update),
        // and release of an owned ReplicaSet whose labels stop matching.
        await client.create<ReplicaSet>(REPLICASETS, ns, {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          metadata: { name: 'web-orphan', namespace: ns, labels: { app: 'web', tier: 'x' } },
          spec: {
            replicas: 0,
            selector: { matchLabels: { app: 'web', tier: 'x' } },
            template: {
              metadata: { labels: { app: 'web', tier: 'x' } },
              spec: { containers: [{ name: 'web', image: 'nginx:0' }] },
            },
          },
        });
        await eventually(
          'the orphan adopted',
          async () =>
            (await client.getReplicaSet(ns, 'web-orphan')).metadata.ownerReferences?.[0]?.uid === web.metadata.uid,
        );
        await client.patch(REPLICASETS, ns, 'web-orphan', { metadata: { labels: { app: 'other' } } }, 'merge');
        await eventually(
          'the ReplicaSet released',
          async () => !(await client.getReplicaSet(ns, 'web-orphan')).metadata.ownerReferences?.length,
        );

        // History cleanup: the old ReplicaSet is deleted.
        await client.patch(DEPLOYMENTS, ns, 'web', { spec: { revisionHistoryLimit: 0 } }, 'merge');
        await eventually('the old ReplicaSets deleted', async () => (await ownedReplicaSets(client, web)).length === 1);

        // A pod-template-hash collision: a foreign ReplicaSet already has the name Pacer wants. The
        // create meets AlreadyExists, Pacer reads that ReplicaSet, bumps collisionCount and retries.
        await client.create(DEPLOYMENTS, ns, deploymentManifest(ns, 'clash', { replicas: 1, paused: true }));
        const clash = await eventually('clash observed', async () => {
          const d = await client.getDeployment(ns, 'clash');
          return d.status?.observedGeneration === d.metadata.generation && d;
        });
        await client.create<ReplicaSet>(REPLICASETS, ns, {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          metadata: { name: `clash-${computeHash(clash.spec.template)}`, namespace: ns, labels: { foreign: 'yes' } },
          spec: {
            replicas: 0,
            selector: { matchLabels: { foreign: 'yes' } },
            template: { metadata: { labels: { foreign: 'yes' } }, spec: { containers: [{ name: 'x', image: 'x' }] } },
          },
        });
        await client.patch(DEPLOYMENTS, ns, 'clash', { spec: { paused: false } }, 'merge');
        const resolved = await waitComplete(client, ns, 'clash', '1');
        expect(resolved.status?.collisionCount, 'the collision happened').to.equal(1);

        // Deletion: the Deployment goes, the garbage collector takes its ReplicaSets.
        await client.delete(DEPLOYMENTS, ns, 'web');
        await eventually(
          'web gone',
          async () => !(await client.list<Deployment>(DEPLOYMENTS, ns)).items.some((d) => d.metadata.name === 'web'),
        );
        // Stopped before reading the log, so that every request it made is there.
        await stopController();
        used = await requests();
        if (realBed) forbidden = await realBed.forbidden();
      });
      after(() => stop());

      it("records the controller's requests (the workload exercised it)", () => {
        const kinds = new Set(used.map(describePermission));
        for (const must of [
          'create apps/replicasets',
          'update apps/replicasets',
          'delete apps/replicasets',
          'get apps/replicasets',
          'get pacer.dev/deployments',
          'patch pacer.dev/deployments',
          'update pacer.dev/deployments/status',
          'watch pacer.dev/deployments',
          'create events',
          'patch events',
          'get coordination.k8s.io/leases',
          'create coordination.k8s.io/leases',
          'update coordination.k8s.io/leases',
          'watch coordination.k8s.io/leases',
          'watch pacer.dev/plans',
          'update pacer.dev/plans/status',
          'patch pacer.dev/plans',
          'create authentication.k8s.io/tokenreviews',
          'create authorization.k8s.io/subjectaccessreviews',
        ]) {
          expect([...kinds], must).to.include(must);
        }
      });

      if (bed === 'real') {
        it('the real API server, authorising the ServiceAccount with RBAC, forbade none of them', () => {
          expect(used.length).to.be.greaterThan(0);
          expect(forbidden).to.deep.equal([]);
        });
      }

      it('(a) the roles allow every request the controller made', () => {
        const denied = deniedBy(policyRules(readFileSync(RBAC_FILE, 'utf8')), used);
        expect(denied, `requests the roles do not allow: ${denied.join(', ')}`).to.deep.equal([]);
      });

      it('(b) every permission the roles grant was used, except rules marked "not used yet" and the node roller\'s', () => {
        // The node roller's rules are proven by a roll (test/e2e/noderoll-drain.test.ts): this
        // workload rolls no node.
        const rules = policyRules(readFileSync(RBAC_FILE, 'utf8')).filter((r) => !r.reserved && !isNodeRollerRule(r));
        const unused = unusedGrants(rules, used)
          // The simulated cluster does not serve batch/v1 Jobs (docs/simulated-api-server.md), so
          // the job provider's grants are used on the real bed only.
          .filter((g) => bed === 'real' || !NOT_SERVED_BY_SIM.has(`${g.apiGroup}/${g.resource}`))
          .map(describePermission);
        expect(
          unused,
          `granted but never used (remove them, or mark the rule "not used yet" for a later feature): ${unused.join(', ')}`,
        ).to.deep.equal([]);
      });

      it('(b) every name a rule narrows to was used, with each of its verbs (the freeze switch, the default windows)', () => {
        const rules = policyRules(readFileSync(RBAC_FILE, 'utf8')).filter(
          (r) => !r.reserved && r.resourceNames?.length,
        );
        expect(rules, 'rbac.yaml narrows the ConfigMaps to their names').to.have.length.greaterThan(0);
        const unused = rules.flatMap((r) =>
          grantsOf(r).flatMap((g) =>
            (r.resourceNames ?? [])
              .filter(
                (name) =>
                  !used.some(
                    (a) =>
                      a.apiGroup === g.apiGroup && a.resource === g.resource && a.verb === g.verb && a.name === name,
                  ),
              )
              .map((name) => `${describePermission(g)} ${name}`),
          ),
        );
        expect(unused, `named but never used: ${unused.join(', ')}`).to.deep.equal([]);
      });

      it('reserved rules say so in rbac.yaml, and are really unused', () => {
        const rules = policyRules(readFileSync(RBAC_FILE, 'utf8'));
        for (const r of rules.filter((x) => x.reserved)) {
          const usedAnyway = grantsOf(r).filter((g) =>
            used.some((a) =>
              ruleAllows({ ...r, apiGroups: [g.apiGroup], resources: [g.resource], verbs: [g.verb] }, a),
            ),
          );
          expect(
            usedAnyway.map(describePermission),
            `used although marked "not used yet" (${r.comment})`,
          ).to.deep.equal([]);
        }
      });
    });
});

/** A run whose job metric's Job never finishes (a never-ready pod), terminated while it runs. */
async function jobWorkload(client: KubeClient, ns: string): Promise<void> {
  await client.create<AnalysisRun>(ANALYSIS_RUNS, ns, {
    apiVersion: 'pacer.dev/v1alpha1',
    kind: 'AnalysisRun',
    metadata: { name: 'job-probe', namespace: ns },
    spec: {
      metrics: [
        {
          name: 'smoke',
          provider: {
            job: {
              spec: {
                template: {
                  metadata: { annotations: { 'sim.pacer.dev/never-ready': 'true' } },
                  spec: { restartPolicy: 'Never', containers: [{ name: 'smoke', image: 'curl' }] },
                },
              },
            },
          },
        },
      ],
    },
  });
  // In flight, and read at least once (the controller's first look is a second after it made it).
  await eventually('the Job in flight', async () => {
    const r = await client.get<AnalysisRun>(ANALYSIS_RUNS, ns, 'job-probe');
    const started = r.status?.metricResults?.[0]?.measurements?.at(-1);
    return started?.phase === 'Running' && Date.now() - Date.parse(started.startedAt ?? '') > 2_500;
  });
  await client.patch(ANALYSIS_RUNS, ns, 'job-probe', { spec: { terminate: true } }, 'merge');
  await eventually(
    'the run ended',
    async () => (await client.get<AnalysisRun>(ANALYSIS_RUNS, ns, 'job-probe')).status?.phase === 'Successful',
  );
}

/** Grants of APIs the simulated cluster does not serve ("group/resource"). */
const NOT_SERVED_BY_SIM = new Set(['batch/jobs']);

/** A Deployment under analysis rolled out twice: the second rollout is judged by a web metric. */
async function analysisWorkload(client: KubeClient, ns: string): Promise<void> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(String(req.headers['x-token']));
    res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok": true}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  try {
    await client.create(SECRETS, ns, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'probe', namespace: ns },
      data: { token: Buffer.from('s3cret').toString('base64'), path: Buffer.from('health').toString('base64') },
    });
    await client.create<AnalysisTemplate>(ANALYSIS_TEMPLATES, ns, {
      apiVersion: 'pacer.dev/v1alpha1',
      kind: 'AnalysisTemplate',
      metadata: { name: 'probe', namespace: ns },
      spec: {
        args: [{ name: 'path', valueFrom: { secretKeyRef: { name: 'probe', key: 'path' } } }],
        metrics: [
          {
            name: 'ok',
            interval: '1s',
            successCondition: 'result == true',
            provider: {
              web: {
                url: `http://127.0.0.1:${port}/{{args.path}}`,
                jsonPath: '{$.ok}',
                headers: [{ key: 'X-Token', valueFrom: { secretKeyRef: { name: 'probe', key: 'token' } } }],
              },
            },
          },
        ],
      },
    });
    const judged = deploymentManifest(ns, 'judged', { replicas: 1 });
    judged.spec.analysis = { templates: [{ templateName: 'probe' }], postRollout: '2s' };
    await client.create(DEPLOYMENTS, ns, judged);
    await eventually(
      'judged has a stable revision',
      async () => !!(await client.getDeployment(ns, 'judged')).status?.stableRS,
    );
    await client.patch(
      DEPLOYMENTS,
      ns,
      'judged',
      { spec: { template: { spec: { containers: [{ name: 'judged', image: 'nginx:2' }] } } } },
      'merge',
    );
    const run = await eventually('its run Successful', async () => {
      const runs = await client.list<AnalysisRun>(ANALYSIS_RUNS, ns);
      const r = runs.items.find((x) => x.metadata.labels?.['pacer.dev/deployment'] === 'judged');
      return r?.status?.phase === 'Successful' && r;
    });
    expect(run.spec.terminate, 'ended with the rollout').to.equal(true);
    expect(seen[0], 'the header from the Secret').to.equal('s3cret');
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}
