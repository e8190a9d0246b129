// `kubectl pacer deployments` (the table) and `deployment cancel ID [--force]` (the one request it
// writes, what it prints from the controller's Events, its timeout and the 404), against a fake
// client. What the controller does with the request: test/unit/engine/marathon/cancel.test.ts.

import { expect } from 'chai';
import type { Deployment, DeploymentStatus } from '../../../src/api/types.ts';
import { activePlans } from '../../../src/engine/marathon/deploymentplans.ts';
import type { DeploymentPlan } from '../../../src/engine/marathon/deploymentplans.ts';
import { plansTable, runPlanCancel } from '../../../src/plugin/deployments.ts';
import type { Session } from '../../../src/plugin/options.ts';
import { runPlugin } from '../../../src/plugin/program.ts';
import { T0, deployment } from './fixtures.ts';

function buffers() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s) } },
    out,
    err,
  };
}

/** A rollout under way: revision 2, one old replica left. */
const rolling: DeploymentStatus = {
  observedGeneration: 2,
  replicas: 4,
  updatedReplicas: 1,
  availableReplicas: 3,
  conditions: [
    {
      type: 'Progressing',
      status: 'True',
      reason: 'ReplicaSetUpdated',
      lastTransitionTime: new Date(T0).toISOString(),
    },
  ],
};

function app(name: string, o: { deps?: string[]; paused?: boolean; deleting?: boolean } = {}): Deployment {
  const d = deployment(name, {
    generation: 2,
    status: rolling,
    annotations: { 'pacer.dev/revision': '2' },
    ...(o.paused ? { paused: true } : {}),
  });
  if (o.deps) d.spec.dependencies = o.deps;
  if (o.deleting) d.metadata.deletionTimestamp = new Date(T0 + 1000).toISOString();
  return d;
}

describe('plugin/deployments', () => {
  it('the table: ID, AFFECTED APPS, STEP, CURRENT ACTIONS, laid out like kubectl get', () => {
    const active: DeploymentPlan[] = [
      {
        id: '0b6a2a4c-1d2e-8f00-9abc-0123456789ab',
        version: '2026-03-01T10:00:00.000Z',
        affectedApps: ['/default/app', '/default/db'],
        affectedPods: [],
        steps: [
          { actions: [{ action: 'RestartApplication', app: '/default/db' }] },
          { actions: [{ action: 'RestartApplication', app: '/default/app' }] },
        ],
        currentActions: [{ action: 'RestartApplication', app: '/default/db', readinessCheckResults: [] }],
        currentStep: 1,
        totalSteps: 2,
      },
      {
        id: '11111111-2222-8333-8444-555555555555',
        version: '2026-03-01T10:00:01.000Z',
        affectedApps: ['/shop/web'],
        affectedPods: [],
        steps: [
          { actions: [{ action: 'StartApplication', app: '/shop/web' }] },
          { actions: [{ action: 'ScaleApplication', app: '/shop/web' }] },
        ],
        currentActions: [{ action: 'ScaleApplication', app: '/shop/web', readinessCheckResults: [] }],
        currentStep: 2,
        totalSteps: 2,
      },
    ];
    expect(plansTable(active)).to.equal(
      'ID                                     AFFECTED APPS              STEP   CURRENT ACTIONS\n' +
        '0b6a2a4c-1d2e-8f00-9abc-0123456789ab   /default/app,/default/db   1/2    RestartApplication /default/db\n' +
        '11111111-2222-8333-8444-555555555555   /shop/web                  2/2    ScaleApplication /shop/web\n',
    );
  });

  describe("deployment cancel ID: one request on one app, then each app's outcome from its Event", () => {
    const together = [app('db'), app('app', { deps: ['db'] })];
    const id = activePlans(together, T0)[0].id;
    const event = (name: string, type: 'Normal' | 'Warning', reason: string, text: string) => ({
      type,
      reason,
      message: `Deployment plan ${id}: ${text}`,
      lastTimestamp: new Date(T0).toISOString(),
      involvedObject: { apiVersion: 'pacer.dev/v1alpha1', kind: 'Deployment', name, namespace: 'default' },
    });

    /** A client that holds `items` and answers the events list with `events` once the request is written. */
    function session(events: unknown[]) {
      const patches: Array<[string, string, unknown]> = [];
      const client = {
        list: async (t: { plural: string }) => ({
          items: t.plural === 'events' ? (patches.length > 0 ? events : []) : together,
        }),
        patchDeployment: async (ns: string, name: string, patch: unknown) => {
          patches.push([ns, name, patch]);
          return together[0];
        },
      };
      const b = buffers();
      return { s: { client: client as unknown as Session['client'], namespace: 'default', io: b.io }, patches, b };
    }

    const rows: Array<{ row: string; force: boolean; events: unknown[]; code: number; out: string; err: string }> = [
      {
        row: 'rollback: both rolled back, printed dependents first',
        force: false,
        code: 0,
        err: '',
        events: [
          event('db', 'Normal', 'DeploymentPlanCancelled', 'rolled back to revision 1'),
          event('app', 'Normal', 'DeploymentPlanCancelling', 'cancelling (rollback) /default/app, /default/db'),
          event('app', 'Normal', 'DeploymentPlanCancelled', 'rolled back to revision 1'),
        ],
        out: 'deployment.pacer.dev/app rolled back to revision 1\ndeployment.pacer.dev/db rolled back to revision 1\n',
      },
      {
        row: '--force: paused and already paused',
        force: true,
        code: 0,
        err: '',
        events: [
          event('app', 'Normal', 'DeploymentPlanCancelled', 'paused'),
          event('db', 'Normal', 'DeploymentPlanCancelled', 'already paused'),
        ],
        out: 'deployment.pacer.dev/app paused\ndeployment.pacer.dev/db already paused\n',
      },
      {
        row: 'one app cannot be rolled back: its reason on stderr, the other still printed, exit 1',
        force: false,
        code: 1,
        events: [
          event('app', 'Normal', 'DeploymentPlanCancelled', 'rolled back to revision 1'),
          event(
            'db',
            'Warning',
            'DeploymentPlanCancelFailed',
            'cannot roll back: no rollout history found for deployment "db"',
          ),
        ],
        out: 'deployment.pacer.dev/app rolled back to revision 1\n',
        err: 'error: deployment.pacer.dev/db: cannot roll back: no rollout history found for deployment "db"\n',
      },
      {
        row: 'the controller refused the request (the plan moved on): its reason, exit 1',
        force: false,
        code: 1,
        out: '',
        events: [
          event(
            'app',
            'Warning',
            'DeploymentPlanCancelFailed',
            'not cancelled: no such active deployment plan (it finished or changed since the request)',
          ),
        ],
        err: 'error: deployment.pacer.dev/app: not cancelled: no such active deployment plan (it finished or changed since the request)\n',
      },
    ];
    for (const r of rows) {
      it(r.row, async () => {
        const { s, patches, b } = session(r.events);
        expect(
          await runPlanCancel(s, id, { force: r.force, allNamespaces: false, wait: true, timeoutMs: 5_000, pollMs: 1 }),
        ).to.equal(r.code);
        expect(patches, 'one write: the request on the first app in cancel order').to.deep.equal([
          [
            'default',
            'app',
            { metadata: { annotations: { 'pacer.dev/cancel-request': `${r.force ? 'stop' : 'rollback'}:${id}` } } },
          ],
        ]);
        expect(b.out.join('')).to.equal(r.out);
        expect(b.err.join('')).to.equal(r.err);
      });
    }

    it('--wait=false: returns once requested, saying where the request is', async () => {
      const { s, patches, b } = session([]);
      expect(await runPlanCancel(s, id, { force: false, allNamespaces: false, wait: false, timeoutMs: 0 })).to.equal(0);
      expect(patches).to.have.length(1);
      expect(b.out.join('')).to.equal(`deployment.pacer.dev/app annotated pacer.dev/cancel-request=rollback:${id}\n`);
    });

    it('no controller to carry it out: a timeout that names the apps and where the request stays', async () => {
      const { s } = session([event('app', 'Normal', 'DeploymentPlanCancelled', 'rolled back to revision 1')]);
      let err: Error | undefined;
      try {
        await runPlanCancel(s, id, { force: false, allNamespaces: false, wait: true, timeoutMs: 20, pollMs: 1 });
      } catch (e) {
        err = e as Error;
      }
      expect(err?.message).to.equal(
        `timed out waiting for the cancel of deployment plan ${id} on deployment.pacer.dev/db (is the controller running? the request stays on deployment.pacer.dev/app)`,
      );
    });

    it("an unknown ID: Marathon's 404 message, nothing written", async () => {
      const { s, patches } = session([]);
      let err: Error | undefined;
      try {
        await runPlanCancel(s, 'nope', { force: false, allNamespaces: false, wait: true, timeoutMs: 0 });
      } catch (e) {
        err = e as Error;
      }
      expect(err?.message).to.equal('DeploymentPlan nope does not exist');
      expect(patches).to.deep.equal([]);
    });
  });

  it('cancel without a reachable cluster: the connection error, exit 1', async () => {
    const b = buffers();
    expect(await runPlugin(['deployment', 'cancel', 'abc', '--kubeconfig', '/nonexistent/kubeconfig'], b.io)).to.equal(
      1,
    );
    expect(b.err.join('')).to.match(/^error: /);
    expect(b.out).to.deep.equal([]);
  });

  it('deployments --help names its flags', async () => {
    const b = buffers();
    expect(await runPlugin(['deployments', '--help'], b.io)).to.equal(0);
    expect(b.out.join('')).to.match(/^Usage: kubectl pacer deployments \[options\]/);
    expect(b.out.join('')).to.contain('--all-namespaces').and.contain('--output <format>');
  });
});
