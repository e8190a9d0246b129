// Dependency-ordered Deployments driven with the real kubectl (v1.32 on PATH) against an in-process
// simulated cluster and an in-process controller: examples/dependencies.yaml (db ← app) applied,
// upgraded and scaled together with `kubectl apply`, then deleted together with `kubectl delete`.
// The order is read from the store's events; the DependenciesReady condition with
// `kubectl get -o jsonpath`.

import { expect } from 'chai';
import { execFile } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSim } from '../../src/sim/index.ts';
import type { SimCluster } from '../../src/sim/index.ts';
import { runController } from '../../src/cli/controller.ts';
import type { RunningController } from '../../src/cli/controller.ts';
import { silentLogger } from '../../src/observe/logger.ts';
import { incompleteReason } from '../../src/engine/dependencies.ts';
import { Timeline, eventually } from '../integration/fixtures/cluster.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Result { code: number; stdout: string; stderr: string }

function kubectlAvailable(): boolean {
  return (process.env.PATH ?? '').split(':').some((d) => d && existsSync(join(d, 'kubectl')));
}

const DEPS_READY = '{.status.conditions[?(@.type=="DependenciesReady")]}';

describe('e2e: dependency order with kubectl (db ← app)', function () {
  this.timeout(60_000);
  let sim: SimCluster;
  let controller: RunningController | undefined;
  let dir: string;
  let timeline: Timeline;
  const children: ChildProcess[] = [];

  function kubectl(...a: string[]): Promise<Result> {
    return new Promise((resolve) => {
      const child = execFile('kubectl', ['--kubeconfig', join(dir, 'kubeconfig'), '--cache-dir', join(dir, 'cache'), ...a], { timeout: 30_000 },
        (err, stdout, stderr) => {
          const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
          resolve({ code, stdout: String(stdout), stderr: String(stderr) });
        });
      children.push(child);
    });
  }

  async function ok(...a: string[]): Promise<string> {
    const r = await kubectl(...a);
    expect(r.stderr, `kubectl ${a.join(' ')}`).to.equal('');
    expect(r.code).to.equal(0);
    return r.stdout;
  }

  /** The DependenciesReady condition of `name` as kubectl's jsonpath prints it (parsed). */
  async function dependenciesReady(name: string): Promise<{ status?: string; reason?: string; message?: string }> {
    const out = await ok('get', 'pdeploy', name, '-o', `jsonpath=${DEPS_READY}`);
    return out ? JSON.parse(out) : {};
  }

  async function complete(name: string, replicas: number): Promise<boolean> {
    const out = await ok('get', 'pdeploy', name, '-o', 'json');
    const d = JSON.parse(out);
    return d.spec.replicas === replicas && incompleteReason(d) === undefined;
  }

  /** examples/dependencies.yaml with some text replaced. */
  async function manifest(edits: Array<[RegExp, string]> = []): Promise<string> {
    let text = await readFile(join(ROOT, 'examples', 'dependencies.yaml'), 'utf8');
    for (const [from, to] of edits) {
      expect(text).to.match(from);
      text = text.replace(from, to);
    }
    const out = join(dir, 'dependencies.yaml');
    await writeFile(out, text);
    return out;
  }

  const appScalings = (from: number) => timeline.scalings.filter((s) => s.rv > from && s.rs.startsWith('app-'));
  const dbScalings = (from: number) => timeline.scalings.filter((s) => s.rv > from && s.rs.startsWith('db-'));

  before(async function () {
    if (!kubectlAvailable()) this.skip(); // Skipped: no kubectl on PATH on this machine.
    dir = await mkdtemp(join(tmpdir(), 'pacer-deps-'));
    sim = await startSim({ port: 0, podStartMs: 30, podReadyMs: 60, kubeconfigPath: join(dir, 'kubeconfig') });
  });

  after(async () => {
    for (const c of children) if (c.exitCode === null) c.kill();
    timeline?.stop();
    await controller?.stop();
    await sim?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('installs the CRD with kubectl and starts the controller', async () => {
    expect(await ok('apply', '-f', join(ROOT, 'crds'))).to.equal('customresourcedefinition.apiextensions.k8s.io/deployments.pacer.dev created\n');
    // Watching the store needs the CRD served.
    await eventually('the CRD to be served', async () => (await kubectl('get', 'pdeploy')).code === 0);
    timeline = new Timeline(sim, 'default');
    // Every resize of app's ReplicaSets happens while db, as stored then, is complete.
    timeline.check('app moves only while db is complete', (t, step) => {
      const last = t.scalings[t.scalings.length - 1];
      if (step.resource !== 'replicasets' || !step.name.startsWith('app-') || !last || last.rv !== step.rv) return undefined;
      const db = t.deployments.get('db');
      const why = db ? incompleteReason(db) : 'db does not exist';
      return why ? `${step.name} ${last.from}→${last.to} while ${why}` : undefined;
    });
    controller = await runController({ kubeconfigText: sim.kubeconfig, metricsBindAddress: '0', healthProbeBindAddress: '0', apiBindAddress: '0', webhookBindAddress: '0', logger: silentLogger() });
  });

  it('app alone waits for db, visibly: DependencyMissing', async () => {
    // Only app's document (the second): db is not there yet.
    const text = await readFile(join(ROOT, 'examples', 'dependencies.yaml'), 'utf8');
    const appOnly = join(dir, 'app-only.yaml');
    await writeFile(appOnly, text.split(/^---$/m)[1]);
    expect(await ok('apply', '-f', appOnly)).to.equal('deployment.pacer.dev/app created\n');
    const cond = await eventually('app to report db missing', async () => {
      const c = await dependenciesReady('app');
      return c.reason === 'DependencyMissing' && c;
    });
    expect(cond).to.include({ status: 'False', message: 'default/db not found' });
    expect(await ok('get', 'rs', '-l', 'app=app', '-o', 'name')).to.equal('');
  });

  it('applied together: db is available before app starts; then DependenciesReady=True', async () => {
    expect(await ok('apply', '-f', await manifest())).to.equal('deployment.pacer.dev/db created\ndeployment.pacer.dev/app unchanged\n');
    await eventually('db and app complete', async () => (await complete('db', 2)) && (await complete('app', 3)), 30_000);
    expect(await dependenciesReady('app')).to.include({ status: 'True', reason: 'DependenciesReady', message: 'default/db is complete' });
    expect(await ok('get', 'pdeploy', 'db', '-o', 'jsonpath={.metadata.finalizers}')).to.equal('["pacer.dev/dependents"]');
    expect(await ok('get', 'pdeploy', 'db', '-o', `jsonpath=${DEPS_READY}`), 'db has no dependencies: no condition').to.equal('');
    expect(appScalings(0)[0].rv).to.be.greaterThan(dbScalings(0).at(-1)!.rv);
  });

  it('upgraded together: app\'s rollout begins once db\'s is complete', async () => {
    const from = timeline.steps.at(-1)!.rv;
    const file = await manifest([[/postgres:17/, 'postgres:17.1'], [/nginx:1\.27/, 'nginx:1.28']]);
    expect(await ok('apply', '-f', file)).to.equal('deployment.pacer.dev/db configured\ndeployment.pacer.dev/app configured\n');
    await eventually('both upgraded', async () => {
      const images = await ok('get', 'pdeploy', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.status.updatedReplicas}/{.status.availableReplicas} {end}');
      return images.trim() === 'app=3/3 db=2/2' && (await complete('db', 2)) && (await complete('app', 3));
    }, 30_000);
    const db = dbScalings(from);
    const app = appScalings(from);
    expect(app.length).to.be.greaterThan(0);
    expect(app[0].rv, 'app starts after db\'s last step').to.be.greaterThan(db.at(-1)!.rv);
  });

  it('scaled together: db scales first, then app', async () => {
    const from = timeline.steps.at(-1)!.rv;
    const file = await manifest([[/postgres:17/, 'postgres:17.1'], [/nginx:1\.27/, 'nginx:1.28'], [/replicas: 2/, 'replicas: 4'], [/replicas: 3/, 'replicas: 5']]);
    expect(await ok('apply', '-f', file)).to.equal('deployment.pacer.dev/db configured\ndeployment.pacer.dev/app configured\n');
    await eventually('both scaled', async () => (await complete('db', 4)) && (await complete('app', 5)), 30_000);
    const db = dbScalings(from);
    const app = appScalings(from);
    expect(db.map((s) => `${s.from}→${s.to}`)).to.deep.equal(['2→4']);
    expect(app.map((s) => `${s.from}→${s.to}`)).to.deep.equal(['3→5']);
    expect(app[0].rv).to.be.greaterThan(db[0].rv);
  });

  it('deleted together: app goes first, db waits for it', async () => {
    const r = await kubectl('delete', '-f', join(dir, 'dependencies.yaml'), '--wait=false');
    expect(r.stdout).to.equal('deployment.pacer.dev "db" deleted\ndeployment.pacer.dev "app" deleted\n');
    await eventually('both gone', async () => (await ok('get', 'pdeploy', '-o', 'name')) === '', 30_000);
    const deleted = timeline.steps.filter((s) => s.resource === 'deployments' && s.type === 'DELETED').map((s) => s.name);
    expect(deleted).to.deep.equal(['app', 'db']);
    expect(timeline.violations).to.deep.equal([]);
  });
});
