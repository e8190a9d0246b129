// Dependency-ordered Deployments with the real controller on the simulated cluster: db ← app
// created, upgraded, scaled and deleted together, checked from a Timeline of store events (every
// write to app's ReplicaSets must happen while db is complete, as stored at that moment), plus a
// missing dependency and a cycle. Each scenario has its own namespace.

import { expect } from 'chai';
import type { Deployment } from '../../src/api/types.ts';
import { DEPLOYMENTS } from '../../src/kube/client.ts';
import { DEPENDENTS_FINALIZER, incompleteReason } from '../../src/engine/marathon/dependencies.ts';
import {
  Timeline,
  condition,
  createNamespace,
  deploymentManifest,
  eventually,
  ownedReplicaSets,
  startCluster,
  waitComplete,
} from './fixtures/cluster.ts';
import type { Cluster } from './fixtures/cluster.ts';

const imagePatch = (image: string) => ({ spec: { template: { spec: { containers: [{ name: 'web', image }] } } } });

function withDependencies(d: Deployment, deps: string[]): Deployment {
  return { ...d, spec: { ...d.spec, dependencies: deps } };
}

const isAppRS = (name: string) => name.startsWith('app-');
const isDbRS = (name: string) => name.startsWith('db-');

describe('integration: dependency-ordered Deployments (db ← app)', function () {
  this.timeout(60_000);
  let c: Cluster;

  before(async () => {
    c = await startCluster({ podStartMs: 20, podReadyMs: 30 });
  });
  after(async () => {
    await c?.stop();
  });

  it('start, upgrade, scale and delete together: db first, app after; on delete app first', async () => {
    const ns = 'deps-order';
    createNamespace(c.sim, ns);
    const t = new Timeline(c.sim, ns);
    // Marathon's rule as an invariant on every step: app's ReplicaSets are created or resized
    // only while db, as stored at that moment, exists and is complete.
    t.check('app moves only while db is complete', (tl, step) => {
      if (step.resource !== 'replicasets' || !isAppRS(step.name) || step.type === 'DELETED') return undefined;
      const last = tl.scalings[tl.scalings.length - 1];
      if (!last || last.rv !== step.rv) return undefined; // not a size change
      // Scaling app down to nothing during its own deletion is the garbage collector's business.
      const db = tl.deployments.get('db');
      if (!db) return `app's ${step.name} went ${last.from}→${last.to} while db does not exist`;
      const why = incompleteReason(db);
      return why ? `app's ${step.name} went ${last.from}→${last.to} while db: ${why}` : undefined;
    });
    try {
      // Created together, app first (the harder order): app waits, visibly.
      await c.client.create(DEPLOYMENTS, ns, withDependencies(deploymentManifest(ns, 'app', { replicas: 3 }), ['db']));
      const waiting = await eventually('app to report db missing', async () => {
        const app = await c.client.getDeployment(ns, 'app');
        return condition(app, 'DependenciesReady')?.reason === 'DependencyMissing' && app;
      });
      expect(condition(waiting, 'DependenciesReady')).to.include({ status: 'False', message: `${ns}/db not found` });
      expect(await ownedReplicaSets(c.client, waiting)).to.deep.equal([]);
      await c.client.create(DEPLOYMENTS, ns, deploymentManifest(ns, 'db', { replicas: 3 }));
      await waitComplete(c.client, ns, 'db', '1');
      const app = await waitComplete(c.client, ns, 'app', '1');
      expect(condition(app, 'DependenciesReady')).to.include({
        status: 'True',
        reason: 'DependenciesReady',
        message: `${ns}/db is complete`,
      });
      const firstApp = t.scalings.find((s) => isAppRS(s.rs))!;
      const dbDone = t.scalings.filter((s) => isDbRS(s.rs)).at(-1)!;
      expect(firstApp.rv, 'app starts after db has started').to.be.greaterThan(dbDone.rv);
      // db carries the dependents finalizer now that app depends on it.
      await eventually('db to carry the dependents finalizer', async () =>
        (await c.client.getDeployment(ns, 'db')).metadata.finalizers?.includes(DEPENDENTS_FINALIZER),
      );

      // Upgraded together (db's change stored first, as `kubectl apply` of one file does).
      const upgradeFrom = t.steps.at(-1)!.rv;
      await c.client.patchDeployment(ns, 'db', imagePatch('postgres:2'));
      await c.client.patchDeployment(ns, 'app', imagePatch('nginx:2'));
      await eventually("app to wait for db's rollout", async () => {
        const a = await c.client.getDeployment(ns, 'app');
        return (
          condition(a, 'DependenciesReady')?.status === 'False' ||
          (await c.client.getDeployment(ns, 'db')).status?.updatedReplicas === 3
        );
      });
      await waitComplete(c.client, ns, 'db', '2');
      await waitComplete(c.client, ns, 'app', '2');
      const dbNew = t.scalings.filter((s) => s.rv > upgradeFrom && isDbRS(s.rs));
      const appNew = t.scalings.filter((s) => s.rv > upgradeFrom && isAppRS(s.rs));
      expect(appNew[0].rv, "app's rollout begins after db's last step").to.be.greaterThan(dbNew.at(-1)!.rv);

      // Scaled together.
      const scaleFrom = t.steps.at(-1)!.rv;
      await c.client.patchDeployment(ns, 'db', { spec: { replicas: 5 } });
      await c.client.patchDeployment(ns, 'app', { spec: { replicas: 5 } });
      await eventually('both at 5', async () => {
        const [db, a] = await Promise.all([c.client.getDeployment(ns, 'db'), c.client.getDeployment(ns, 'app')]);
        return (
          db.status?.availableReplicas === 5 && a.status?.availableReplicas === 5 && incompleteReason(a) === undefined
        );
      });
      const dbUp = t.scalings.filter((s) => s.rv > scaleFrom && isDbRS(s.rs));
      const appUp = t.scalings.filter((s) => s.rv > scaleFrom && isAppRS(s.rs));
      expect(dbUp.map((s) => s.to)).to.deep.equal([5]);
      expect(appUp.map((s) => s.to)).to.deep.equal([5]);
      expect(appUp[0].rv, 'db scales first').to.be.greaterThan(dbUp[0].rv);

      // Deleted together, db first (the harder order): db waits for app to be gone.
      await c.client.delete(DEPLOYMENTS, ns, 'db');
      const dbDeleting = await c.client.getDeployment(ns, 'db');
      expect(dbDeleting.metadata.deletionTimestamp, 'db is being deleted').to.be.a('string');
      await c.client.delete(DEPLOYMENTS, ns, 'app');
      await eventually(
        'both to be gone',
        () =>
          t.deployments.size === 0 &&
          t.steps.filter((s) => s.resource === 'deployments' && s.type === 'DELETED').length === 2,
      );
      const deleted = t.steps.filter((s) => s.resource === 'deployments' && s.type === 'DELETED').map((s) => s.name);
      expect(deleted, 'app goes first').to.deep.equal(['app', 'db']);
      expect(t.violations).to.deep.equal([]);
    } finally {
      t.stop();
    }
  });

  it('a dependency cycle is refused, naming it; breaking it lets both start, in order', async () => {
    const ns = 'deps-cycle';
    createNamespace(c.sim, ns);
    await c.client.create(DEPLOYMENTS, ns, withDependencies(deploymentManifest(ns, 'web', { replicas: 2 }), ['api']));
    await c.client.create(DEPLOYMENTS, ns, withDependencies(deploymentManifest(ns, 'api', { replicas: 2 }), ['web']));
    const [web, api] = await eventually('both to report the cycle', async () => {
      const ds = await Promise.all([c.client.getDeployment(ns, 'web'), c.client.getDeployment(ns, 'api')]);
      return ds.every((d) => condition(d, 'DependenciesReady')?.reason === 'DependencyCycle') && ds;
    });
    expect(condition(web, 'DependenciesReady')?.message).to.equal('dependency cycle: web → api → web');
    expect(condition(api, 'DependenciesReady')?.message).to.equal('dependency cycle: api → web → api');
    expect(await ownedReplicaSets(c.client, web)).to.deep.equal([]);
    expect(await ownedReplicaSets(c.client, api)).to.deep.equal([]);

    // api drops its dependency: it starts, web follows.
    await c.client.patchDeployment(ns, 'api', { spec: { dependencies: null } });
    await waitComplete(c.client, ns, 'api', '1');
    const w = await waitComplete(c.client, ns, 'web', '1');
    expect(condition(w, 'DependenciesReady')).to.include({ status: 'True', message: `${ns}/api is complete` });
    const a = await c.client.getDeployment(ns, 'api');
    expect(condition(a, 'DependenciesReady'), 'no dependencies, no condition').to.equal(undefined);
    expect(a.metadata.finalizers).to.deep.equal([DEPENDENTS_FINALIZER]);

    // web drops its dependency too: api loses the finalizer.
    await c.client.patchDeployment(ns, 'web', { spec: { dependencies: null } });
    await eventually(
      'api to lose the dependents finalizer',
      async () => (await c.client.getDeployment(ns, 'api')).metadata.finalizers === undefined,
    );
  });
});
