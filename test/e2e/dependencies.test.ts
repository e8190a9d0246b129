// Dependency-ordered Deployments driven with the real kubectl against each test bed and an
// in-process controller: examples/dependencies.yaml (db ← app) applied,
// upgraded and scaled together with `kubectl apply`, then deleted together with `kubectl delete`.
// The order is read from the changes in resourceVersion order (the store's events on the simulated
// cluster, watches on the real one); the DependenciesReady condition with
// `kubectl get -o jsonpath`.

import { expect } from 'chai';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { incompleteReason } from '../../src/engine/marathon/dependencies.ts';
import { eventually } from '../integration/fixtures/cluster.ts';
import type { Timeline } from '../integration/fixtures/cluster.ts';
import { BEDS, ROOT, kubectlEnv } from './fixtures.ts';
import type { Edit, Recording } from './fixtures.ts';

const DEPS_READY = '{.status.conditions[?(@.type=="DependenciesReady")]}';

for (const bed of BEDS)
  describe(`e2e (${bed}): dependency order with kubectl (db ← app)`, function () {
    this.timeout(60_000);
    const k = kubectlEnv({ bed, tmpPrefix: 'pacer-deps-', sim: { podStartMs: 30, podReadyMs: 60 } });
    const { kubectl, ok } = k;
    let recording: Recording;
    let timeline: Timeline;

    /** The DependenciesReady condition of `name` as kubectl's jsonpath prints it (parsed). */
    async function dependenciesReady(name: string): Promise<{ status?: string; reason?: string; message?: string }> {
      const out = await ok(kubectl('get', 'pdeploy', name, '-o', `jsonpath=${DEPS_READY}`));
      return out ? JSON.parse(out) : {};
    }

    async function complete(name: string, replicas: number): Promise<boolean> {
      const out = await ok(kubectl('get', 'pdeploy', name, '-o', 'json'));
      const d = JSON.parse(out);
      return d.spec.replicas === replicas && incompleteReason(d) === undefined;
    }

    /** examples/dependencies.yaml with some text replaced. */
    const manifest = (edits: Edit[] = []) => k.editedExample('dependencies.yaml', edits);

    const appScalings = (from: number) => timeline.scalings.filter((s) => s.rv > from && s.rs.startsWith('app-'));
    const dbScalings = (from: number) => timeline.scalings.filter((s) => s.rv > from && s.rs.startsWith('db-'));

    before(function () {
      return k.start(this);
    });

    after(() => k.stop());

    it('installs the CRD with kubectl and starts the controller', async () => {
      expect(await ok(kubectl('apply', '-f', join(ROOT, 'crds')))).to.equal(
        ['analysisruns', 'analysistemplates', 'clusteranalysistemplates', 'deployments', 'noderolls', 'plans']
          .map((crd) => `customresourcedefinition.apiextensions.k8s.io/${crd}.pacer.dev created\n`)
          .join(''),
      );
      // Watching the store needs the CRD served.
      await eventually('the CRD to be served', async () => (await kubectl('get', 'pdeploy')).code === 0);
      // Every resize of app's ReplicaSets happens while db, as stored then, is complete.
      recording = await k.record('default', (live) =>
        live.check('app moves only while db is complete', (t, step) => {
          const last = t.scalings[t.scalings.length - 1];
          if (step.resource !== 'replicasets' || !step.name.startsWith('app-') || !last || last.rv !== step.rv)
            return undefined;
          const db = t.deployments.get('db');
          const why = db ? incompleteReason(db) : 'db does not exist';
          return why ? `${step.name} ${last.from}→${last.to} while ${why}` : undefined;
        }),
      );
      await k.startController();
    });

    it('app alone waits for db, visibly: DependencyMissing', async () => {
      // Only app's document (the second): db is not there yet.
      const text = await readFile(join(ROOT, 'examples', 'dependencies.yaml'), 'utf8');
      const appOnly = join(k.dir, 'app-only.yaml');
      await writeFile(appOnly, text.split(/^---$/m)[1]);
      expect(await ok(kubectl('apply', '-f', appOnly))).to.equal('deployment.pacer.dev/app created\n');
      const cond = await eventually('app to report db missing', async () => {
        const c = await dependenciesReady('app');
        return c.reason === 'DependencyMissing' && c;
      });
      expect(cond).to.include({ status: 'False', message: 'default/db not found' });
      expect(await ok(kubectl('get', 'rs', '-l', 'app=app', '-o', 'name'))).to.equal('');
    });

    it('applied together: db is available before app starts; then DependenciesReady=True', async () => {
      expect(await ok(kubectl('apply', '-f', await manifest()))).to.equal(
        'deployment.pacer.dev/db created\ndeployment.pacer.dev/app unchanged\n',
      );
      await eventually(
        'db and app complete',
        async () => (await complete('db', 2)) && (await complete('app', 3)),
        30_000,
      );
      expect(await dependenciesReady('app')).to.include({
        status: 'True',
        reason: 'DependenciesReady',
        message: 'default/db is complete',
      });
      expect(await ok(kubectl('get', 'pdeploy', 'db', '-o', 'jsonpath={.metadata.finalizers}'))).to.equal(
        '["pacer.dev/dependents"]',
      );
      expect(
        await ok(kubectl('get', 'pdeploy', 'db', '-o', `jsonpath=${DEPS_READY}`)),
        'db has no dependencies: no condition',
      ).to.equal('');
      timeline = await recording.timeline();
      expect(appScalings(0)[0].rv).to.be.greaterThan(dbScalings(0).at(-1)!.rv);
    });

    it("upgraded together: app's rollout begins once db's is complete", async () => {
      const from = (await recording.timeline()).steps.at(-1)!.rv;
      const file = await manifest([
        [/postgres:17/, 'postgres:17.1'],
        [/nginx:1\.27/, 'nginx:1.28'],
      ]);
      expect(await ok(kubectl('apply', '-f', file))).to.equal(
        'deployment.pacer.dev/db configured\ndeployment.pacer.dev/app configured\n',
      );
      await eventually(
        'both upgraded',
        async () => {
          const images = await ok(
            kubectl(
              'get',
              'pdeploy',
              '-o',
              'jsonpath={range .items[*]}{.metadata.name}={.status.updatedReplicas}/{.status.availableReplicas} {end}',
            ),
          );
          return images.trim() === 'app=3/3 db=2/2' && (await complete('db', 2)) && (await complete('app', 3));
        },
        30_000,
      );
      timeline = await recording.timeline();
      const db = dbScalings(from);
      const app = appScalings(from);
      expect(app.length).to.be.greaterThan(0);
      expect(app[0].rv, "app starts after db's last step").to.be.greaterThan(db.at(-1)!.rv);
    });

    it('scaled together: db scales first, then app', async () => {
      const from = (await recording.timeline()).steps.at(-1)!.rv;
      const file = await manifest([
        [/postgres:17/, 'postgres:17.1'],
        [/nginx:1\.27/, 'nginx:1.28'],
        [/replicas: 2/, 'replicas: 4'],
        [/replicas: 3/, 'replicas: 5'],
      ]);
      expect(await ok(kubectl('apply', '-f', file))).to.equal(
        'deployment.pacer.dev/db configured\ndeployment.pacer.dev/app configured\n',
      );
      await eventually('both scaled', async () => (await complete('db', 4)) && (await complete('app', 5)), 30_000);
      timeline = await recording.timeline();
      const db = dbScalings(from);
      const app = appScalings(from);
      expect(db.map((s) => `${s.from}→${s.to}`)).to.deep.equal(['2→4']);
      expect(app.map((s) => `${s.from}→${s.to}`)).to.deep.equal(['3→5']);
      expect(app[0].rv).to.be.greaterThan(db[0].rv);
    });

    it('deleted together: app goes first, db waits for it', async () => {
      const r = await kubectl('delete', '-f', join(k.dir, 'dependencies.yaml'), '--wait=false');
      expect(r.stdout).to.equal(
        'deployment.pacer.dev "db" deleted from default namespace\ndeployment.pacer.dev "app" deleted from default namespace\n',
      );
      await eventually('both gone', async () => (await ok(kubectl('get', 'pdeploy', '-o', 'name'))) === '', 30_000);
      timeline = await recording.timeline();
      const deleted = timeline.steps
        .filter((s) => s.resource === 'deployments' && s.type === 'DELETED')
        .map((s) => s.name);
      expect(deleted).to.deep.equal(['app', 'db']);
      expect(timeline.violations).to.deep.equal([]);
    });
  });
