// The README quick start with the real kubectl and `kubectl pacer` against each test bed (the
// simulated cluster and the real control plane) and an in-process Pacer controller: apply, rollout status, set
// image, history, undo (revision 1's template comes back as revision 3), a missed progress
// deadline, and the live tree of `get -w`. The plugin runs as a child process, once through
// kubectl's plugin discovery (a `kubectl-pacer` link on PATH).

import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CommandResult } from './fixtures.ts';
import { BEDS, ROOT, kubectlEnv } from './fixtures.ts';

const NODE = join(ROOT, 'node_modules', '.bin', 'node');
const PLUGIN = join(ROOT, 'src', 'cli', 'kubectl-pacer.ts');

for (const bed of BEDS)
  describe(`e2e (${bed}): the quick start with kubectl and kubectl pacer`, function () {
    this.timeout(60_000);
    const k = kubectlEnv({
      bed,
      tmpPrefix: 'pacer-quickstart-',
      plugin: true,
      timeoutMs: 45_000,
      sim: { podStartMs: 50, podReadyMs: 80 },
    });
    const { kubectl } = k;
    let neverReady: Promise<CommandResult> | undefined;
    let firstRevisionRs = '';

    const pacer = (...a: string[]) => k.run(NODE, [PLUGIN, ...a]);
    /** `kubectl pacer ...`: kubectl finds kubectl-pacer on PATH (no kubectl flags may come first). */
    const kubectlPacer = (...a: string[]) => kubectl('pacer', ...a);
    /** An example file with some lines changed (shorter timings keep the test short). */
    const example = (file: string, edits: Array<[string, string]>, out?: string) => k.editedExample(file, edits, out);

    before(function () {
      return k.start(this);
    });

    after(() => k.stop());

    it('before the CRD is installed, the plugin says so', async () => {
      const r = await pacer('rollout', 'status', 'web');
      expect(r.code).to.equal(1);
      expect(r.stderr).to.equal(
        'error: the server doesn\'t have a resource type "deployments" in group "pacer.dev": Pacer\'s CRD is not installed (from a Pacer clone: kubectl apply -f crds/)\n',
      );
    });

    it('installs the CRD with kubectl and starts the controller', async () => {
      const r = await kubectl('apply', '-f', join(ROOT, 'crds'));
      expect(r.stdout).to.equal(
        ['analysisruns', 'analysistemplates', 'clusteranalysistemplates', 'deployments', 'noderolls', 'plans']
          .map((crd) => `customresourcedefinition.apiextensions.k8s.io/${crd}.pacer.dev created\n`)
          .join(''),
      );
      await k.startController();
    });

    it("a missing Deployment: kubectl's NotFound line, exit 1", async () => {
      const r = await pacer('rollout', 'history', 'nope');
      expect(r.code).to.equal(1);
      expect(r.stderr).to.equal('Error from server (NotFound): deployments.pacer.dev "nope" not found\n');
    });

    it('applies the examples; never-ready (deadline 10 s) is watched in the background', async () => {
      const web = await example('rolling-web.yaml', [['minReadySeconds: 5', 'minReadySeconds: 1']]);
      expect((await kubectl('apply', '-f', web)).stdout).to.equal('deployment.pacer.dev/web created\n');
      const nr = await example(
        'failing/never-ready.yaml',
        [['progressDeadlineSeconds: 30', 'progressDeadlineSeconds: 10']],
        'never-ready.yaml',
      );
      expect((await kubectl('apply', '-f', nr)).stdout).to.equal('deployment.pacer.dev/never-ready created\n');
      neverReady = pacer('rollout', 'status', 'never-ready', '--timeout=40s');
      // Long before its deadline, a short --timeout ends the wait with kubectl's words.
      const short = await pacer('rollout', 'status', 'never-ready', '--timeout=1s');
      expect(short.code).to.equal(1);
      expect(short.stderr).to.equal('error: timed out waiting for the condition\n');
    });

    it('`kubectl pacer rollout status web` (plugin discovery) waits for the rollout: exit 0', async () => {
      const r = await kubectlPacer('rollout', 'status', 'web');
      expect(r.stderr).to.equal('');
      expect(r.code).to.equal(0);
      const lines = r.stdout.trimEnd().split('\n');
      expect(lines.at(-1)).to.equal('deployment "web" successfully rolled out');
      for (const l of lines.slice(0, -1))
        expect(l).to.match(/^Waiting for deployment (spec update to be observed\.\.\.|"web" rollout to finish: )/);
      const rs = await kubectl('get', 'rs', '-l', 'app=web', '-o', 'jsonpath={.items[*].metadata.name}');
      firstRevisionRs = rs.stdout.trim();
      expect(firstRevisionRs).to.match(/^web-[a-z0-9]+$/);
    });

    it('the built-in kubectl rollout refuses the custom kind, in the words docs/plugin.md quotes', async () => {
      const doc = await readFile(join(ROOT, 'docs', 'plugin.md'), 'utf8');
      const quoted = /\$ kubectl rollout status pdeploy\/web\n(error: no kind .*)\n/.exec(doc)?.[1];
      expect(quoted, 'docs/plugin.md quotes it').to.be.a('string');
      for (const args of [
        ['rollout', 'status', 'pdeploy/web'],
        ['rollout', 'history', 'pdeploy/web'],
        ['set', 'image', 'pdeploy/web', 'nginx=nginx:1.28'],
      ]) {
        const r = await kubectl(...args);
        expect([r.code, r.stderr], args.join(' ')).to.deep.equal([1, `${quoted}\n`]);
      }
    });

    it('set image starts revision 2; status follows it to the end', async () => {
      const set = await kubectlPacer('set', 'image', 'web', 'nginx=nginx:1.28');
      expect(set.stdout).to.equal('deployment.pacer.dev/web image updated\n');
      const r = await pacer('rollout', 'status', 'web', '--timeout', '30s');
      expect(r.code).to.equal(0);
      expect(r.stdout).to.match(/Waiting for deployment "web" rollout to finish: /);
      expect(r.stdout.trimEnd().split('\n').at(-1)).to.equal('deployment "web" successfully rolled out');
    });

    it('history shows two revisions', async () => {
      const r = await pacer('rollout', 'history', 'web');
      expect(r.stdout).to.equal(
        'deployment.pacer.dev/web \n' +
          'REVISION  CHANGE-CAUSE\n' +
          '1         first release of web\n' +
          '2         first release of web\n' +
          '\n',
      );
      const one = await pacer('rollout', 'history', 'web', '--revision=1');
      expect(one.stdout).to.match(
        /^deployment\.pacer\.dev\/web with revision #1\nPod Template:\n {2}Labels: +app=web\n/,
      );
      expect(one.stdout).to.match(/Image: +nginx:1\.27\n/);
    });

    it("undo brings revision 1's template back as revision 3", async () => {
      const r = await pacer('rollout', 'undo', 'web');
      expect(r.code).to.equal(0);
      expect(r.stdout).to.equal('deployment.pacer.dev/web rolled back\n');
      expect(r.stderr).to.match(
        /^Warning: resource deployments\.pacer\.dev\/web was previously managed with 'kubectl apply'/,
      );
      const status = await pacer('rollout', 'status', 'web', '--timeout', '30s');
      expect(status.stdout.trimEnd().split('\n').at(-1)).to.equal('deployment "web" successfully rolled out');
      const history = await pacer('rollout', 'history', 'web');
      expect(
        history.stdout
          .split('\n')
          .slice(1, 4)
          .map((l) => l.split(/ +/)[0]),
      ).to.deep.equal(['REVISION', '2', '3']);
      const image = await kubectl(
        'get',
        'pdeploy',
        'web',
        '-o',
        'jsonpath={.spec.template.spec.containers[0].image} {.metadata.annotations.pacer\\.dev/revision}',
      );
      expect(image.stdout).to.equal('nginx:1.27 3');
      const rs3 = await kubectl(
        'get',
        'rs',
        firstRevisionRs,
        '-o',
        'jsonpath={.metadata.annotations.pacer\\.dev/revision} {.metadata.annotations.pacer\\.dev/revision-history}',
      );
      expect(rs3.stdout).to.equal('3 1');
      const again = await pacer('rollout', 'undo', 'web', '--to-revision=3');
      expect(again.stdout).to.equal(
        'deployment.pacer.dev/web skipped rollback (current template already matches revision 3)\n',
      );
    });

    it("never-ready misses its progress deadline: kubectl's error, exit 1", async () => {
      const r = await neverReady!;
      expect(r.code).to.equal(1);
      expect(r.stderr).to.equal('error: deployment "never-ready" exceeded its progress deadline\n');
      expect(r.stdout).to.match(/^Waiting for deployment /);
      const list = await pacer('list');
      expect(list.stdout).to.match(/\nnever-ready +RollingUpdate +2 +2 +0 +Degraded\n/);
      expect(list.stdout).to.match(/\nweb +RollingUpdate +3 +3 +3 +Healthy\n/);
    });

    it('get -w redraws the tree while a restart rolls out', async () => {
      const child = k.track(
        spawn(NODE, [PLUGIN, 'get', 'web', '-w', '--timeout=6s'], { env: k.env, stdio: ['ignore', 'pipe', 'pipe'] }),
      );
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
      });
      const exit = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
      // Wait for the first frame, then restart the rollout under the watch.
      for (let i = 0; i < 100 && !out.includes('⟳ web'); i++) await new Promise((r) => setTimeout(r, 50));
      const restart = await kubectlPacer('rollout', 'restart', 'web');
      expect(restart.stdout).to.equal('deployment.pacer.dev/web restarted\n');
      expect(await exit).to.equal(0);
      const frames = out
        .trimEnd()
        .split(/\n\n(?=Name: )/)
        .map((f) => f.split('\n'));
      // Frames are separated by a blank line (stdout is not a terminal: no cursor movement).
      expect(out).not.to.contain('\x1b[');
      expect(frames.length).to.be.greaterThan(2);
      const firstFrame = frames[0];
      expect(firstFrame[0]).to.match(/^Name: +web$/);
      expect(out).to.match(/\n⟳ web +Deployment +[✔◌] (Healthy|Progressing) /);
      expect(out).to.match(/\n[├└]──# revision:4\n/);
      expect(out).to.match(/ReplicaSet +✔ Healthy +\S+ +replicas:3\/3 ready:3 available:3/);
      expect(out).to.match(/□ web-[a-z0-9]+-[a-z0-9]+ +Pod +[✔◌] \w+ +\S+ +ready:[01]\/1 restarts:0 node:node-\d/);
      expect(out).to.match(/Status: +◌ Progressing/);
      expect(frames.at(-1)!.join('\n')).to.match(/Status: +✔ Healthy/);
    });
  });
