// The dashboard in a real browser: Debian's chromium, headless, driven by playwright-core (never a
// browser of its own: the executable is the one on PATH). `kubectl pacer dashboard` runs as a child
// process through kubectl's plugin discovery against the simulated cluster with an in-process
// controller; the test reads the page as a user would, changes the cluster with the real kubectl and
// waits (polling the DOM, generous timeouts, no timed assertion) for the page to follow, steers the
// rollout from the page and checks the result with kubectl. It also takes the screenshots of
// docs/dashboard.md (docs/dashboard/*.png, written there with PACER_UPDATE_SCREENSHOTS=1).
//
// On the real control plane it also runs the in-cluster server (`pacer dashboard`, as a process with
// the token of manifests/dashboard/'s ServiceAccount, since the bed does not route to Services): a
// user bound to the real `view` ClusterRole in one namespace signs in with a ServiceAccount token and
// sees that namespace only (the raw stream too), and is refused an undo (403 in the page, nothing
// changed); an `edit` user's undo goes through.

import { expect } from 'chai';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { eventually } from '../integration/fixtures/cluster.ts';
import { requireTool } from '../fixtures/tools.ts';
import { BEDS, ROOT, kubectlEnv } from './fixtures.ts';

const NODE = join(ROOT, 'node_modules', '.bin', 'node');
/**
 * Where the screenshots go: docs/dashboard/ (those docs/dashboard.md shows) with
 * PACER_UPDATE_SCREENSHOTS=1, else a temporary directory, so that a test run leaves the checkout as
 * it found it (ages and pod names differ on every run).
 */
const SHOTS =
  process.env.PACER_UPDATE_SCREENSHOTS === '1'
    ? join(ROOT, 'docs', 'dashboard')
    : join(tmpdir(), `pacer-dashboard-shots-${process.pid}`);
/**
 * What the simulated API server answers for a pod's log: it serves no pods/log subresource (it has
 * no kubelet to ask), so it refuses the path as an API server refuses any path it does not serve.
 */
const SIM_LOG_REFUSAL = '404 Error from server (NotFound): the server could not find the requested resource';
/** How long the page may take to follow the cluster: far beyond what it needs, on a loaded machine. */
const PAGE_MS = 45_000;

const deployment = (name: string, o: { replicas?: number; extra?: string; annotations?: string; pod?: string }) => `
apiVersion: pacer.dev/v1alpha1
kind: Deployment
metadata:
  name: ${name}
  annotations: {${o.annotations ?? ''}}
spec:
  replicas: ${o.replicas ?? 2}${o.extra ?? ''}
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
      annotations: {${o.pod ?? ''}}
    spec:
      containers: [{name: app, image: "nginx:1.27"}]
---`;

/** The Deployments the page starts with, each in a different state. */
const MANIFEST = [
  // Its change cause is shown on its ReplicaSet's line: markup in it must come out as text.
  deployment('web', {
    replicas: 3,
    annotations: `kubernetes.io/change-cause: "<img src=x onerror=alert(1)> & <b>bold</b>"`,
  }),
  deployment('held', { extra: '\n  paused: true' }),
  // A canary plan holds the rollout for `kubectl pacer plan continue`.
  deployment('canary', { extra: '\n  plan: {strategy: serial-canary}' }),
  deployment('never-ready', { extra: '\n  progressDeadlineSeconds: 3', pod: 'sim.pacer.dev/never-ready: "true"' }),
].join('\n');

for (const bed of BEDS)
  describe(`e2e (${bed}): the dashboard in chromium`, function () {
    this.timeout(120_000);
    const k = kubectlEnv({
      bed,
      tmpPrefix: 'pacer-dashboard-',
      plugin: true,
      timeoutMs: 45_000,
      sim: { podStartMs: 150, podReadyMs: 250 },
    });
    const { kubectl, ok } = k;
    let browser: Browser | undefined;
    let page: Page;
    let url = '';
    let dashboard: ChildProcess | undefined;
    let viewerDashboard: ChildProcess | undefined;
    let inCluster: ChildProcess | undefined;
    const problems: string[] = [];

    /** `kubectl pacer dashboard --port 0` with `env` (its kubeconfig), and the URL it printed. */
    const startDashboard = async (env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string }> => {
      const child = k.track(spawn('kubectl', ['pacer', 'dashboard', '--port', '0'], { env }));
      let out = '';
      let err = '';
      child.stderr?.on('data', (b: Buffer) => (err += b));
      const printed = await new Promise<string>((resolve, reject) => {
        child.stdout?.on('data', (b: Buffer) => {
          out += b;
          const m = /Pacer dashboard: (http:\/\/127\.0\.0\.1:[0-9]+\/) \(namespace default; Ctrl-C to stop\)\n/.exec(
            out,
          );
          if (m) resolve(m[1]);
        });
        child.on('exit', (code) => reject(new Error(`kubectl pacer dashboard exited ${code}: ${out}${err}`)));
      });
      return { child, url: printed };
    };
    /** A page whose script errors and unexpected dialogs fail the test. */
    const newPage = async (): Promise<Page> => {
      const p = await browser!.newPage({ viewport: { width: 1280, height: 800 } });
      p.on('pageerror', (e) => problems.push(e.message));
      p.on('dialog', (d) => {
        problems.push(`a dialog opened: ${d.message()}`);
        void d.dismiss();
      });
      return p;
    };

    /** The `data-state` of each row of the home page, by name. */
    const states = () =>
      page.$$eval('table.deployments tbody tr', (trs) =>
        Object.fromEntries(trs.map((tr) => [tr.getAttribute('data-name'), tr.getAttribute('data-state')])),
      );
    // biome-ignore lint/performance/useDomNodeTextContent: the text as a user reads it (a row's cells apart), not the DOM's
    const text = (selector: string) => page.locator(selector).first().innerText();
    /** A screenshot for docs/dashboard.md, from one bed only (the last bed's would overwrite it). */
    const shot = async (name: string, on: typeof bed = 'sim') => {
      if (bed !== on) return;
      await mkdir(SHOTS, { recursive: true });
      // A notice left by an earlier step ("Reconnected: ...") is not part of the view shown.
      for (const b of await page.locator('button.dismiss').all()) await b.click();
      await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
    };
    const spec = async (name: string, path: string) =>
      ok(kubectl('get', 'deployments.pacer.dev', name, '-o', `jsonpath={${path}}`));

    before(async function () {
      this.timeout(180_000);
      const chrome = requireTool(this, 'chromium', "make test installs Debian's chromium (scripts/ensure-tools.sh)");
      await k.start(this);
      // The page as the sources have it now.
      await ok(k.run(NODE, [join(ROOT, 'scripts', 'build-dashboard.ts')]));
      await ok(kubectl('apply', '-f', join(ROOT, 'crds')));
      await eventually('the CRD to be served', async () => (await kubectl('get', 'pdeploy')).code === 0);
      await k.startController();
      await writeFile(join(k.dir, 'dashboard.yaml'), MANIFEST);
      await ok(kubectl('apply', '-f', join(k.dir, 'dashboard.yaml')));

      const started = await startDashboard(k.env);
      dashboard = started.child;
      url = started.url;
      browser = await chromium.launch({ executablePath: chrome, headless: true });
      page = await newPage();
    });

    after(async () => {
      await browser?.close();
      for (const d of [dashboard, viewerDashboard, inCluster]) d?.kill('SIGINT');
      await k.stop();
    });

    afterEach(() => {
      expect(problems, 'errors in the page').to.deep.equal([]);
    });

    it('the home page lists every Deployment with its state and the counts by state', async () => {
      await page.goto(url);
      await eventually(
        'the three Deployments in their states',
        async () => {
          const s = await states();
          return (
            s.web === 'complete' &&
            s.held === 'paused' &&
            s['never-ready'] === 'deadline-exceeded' &&
            s.canary === 'waiting' &&
            s
          );
        },
        PAGE_MS,
      );
      expect(Object.keys(await states())).to.deep.equal(['canary', 'held', 'never-ready', 'web']);
      expect(await text('[data-count="complete"] .n')).to.equal('1');
      expect(await text('[data-count="paused"] .n')).to.equal('1');
      expect(await text('[data-count="deadline-exceeded"] .n')).to.equal('1');
      expect(await text('[data-count="waiting"] .n')).to.equal('1');
      expect(await text('[data-count="progressing"] .n')).to.equal('0');
      expect(await page.getAttribute('tr[data-name="canary"] .badge', 'title')).to.match(/^PlanWaiting: /);
      expect(await text('tr[data-name="never-ready"] .badge')).to.equal('deadline exceeded');
      expect(await page.getAttribute('tr[data-name="never-ready"] .badge', 'title')).to.match(
        /^ProgressDeadlineExceeded: /,
      );
      expect(await text('tr[data-name="web"]')).to.match(/web\s+default\s+RollingUpdate\s+3\/3\s+3\s+3\s+1\s+complete/);
      await shot('home');

      await page.fill('input[name="name"]', 'ever');
      expect(Object.keys(await states())).to.deep.equal(['never-ready']);
      await page.fill('input[name="name"]', '');
      await page.selectOption('select[name="state"]', 'paused');
      expect(Object.keys(await states())).to.deep.equal(['held']);
      await page.selectOption('select[name="state"]', '');
      await page.click('[data-count="complete"]');
      expect(Object.keys(await states())).to.deep.equal(['web']);
      await page.click('[data-count="complete"]');
      expect(Object.keys(await states())).to.have.length(4);

      // A column's header sorts by it (states in the order of the counts), again the other way;
      // "needs attention" keeps those waiting for someone (not the paused one: somebody chose that).
      const order = () =>
        page.$$eval('table.deployments tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-name')));
      const sortedBy = (key: string) => page.getAttribute(`th:has(button[data-sort="${key}"])`, 'aria-sort');
      await page.click('button[data-sort="state"]');
      expect(await order()).to.deep.equal(['web', 'held', 'canary', 'never-ready']);
      expect(await sortedBy('state')).to.equal('ascending');
      await page.click('button[data-sort="state"]');
      expect(await order()).to.deep.equal(['never-ready', 'canary', 'held', 'web']);
      expect(await sortedBy('state')).to.equal('descending');
      await page.click('button[data-sort="namespace"]');
      expect(await order()).to.deep.equal(['canary', 'held', 'never-ready', 'web']);
      expect(await sortedBy('state')).to.equal('none');
      await page.check('input[name="attention"]');
      expect(await order()).to.deep.equal(['canary', 'never-ready']);
      await page.uncheck('input[name="attention"]');
      await page.selectOption('select[name="namespace"]', 'default');
      expect(await order()).to.have.length(4);
      await page.selectOption('select[name="namespace"]', '');
    });

    it('a name from the cluster is shown as text, never as markup', async () => {
      await page.click('tr[data-name="web"] a');
      await page.waitForSelector('section[data-revision="1"]', { timeout: PAGE_MS });
      expect(await text('section[data-revision="1"] .rsinfo')).to.contain('<img src=x onerror=alert(1)> & <b>bold</b>');
      expect(await page.locator('main img, main b').count()).to.equal(0);
    });

    it('the Deployment page shows the new ReplicaSet live when kubectl changes the image', async () => {
      await ok(
        kubectl(
          'patch',
          'deployments.pacer.dev',
          'web',
          '--type=merge',
          '-p',
          '{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:1.28"}]}}}}',
        ),
      );
      // No reload: the stream brings the new ReplicaSet, then the rollout's counts.
      await page.waitForSelector('section[data-revision="2"]', { timeout: PAGE_MS });
      await eventually(
        'revision 2 to have taken over',
        async () =>
          (await text('section[data-revision="2"] [data-field="rs-counts"]')) === '3/3 pods, 3 ready, 3 available' &&
          (await text('section[data-revision="1"] [data-field="rs-counts"]')) === '0/0 pods, 0 ready, 0 available' &&
          (await text('h1 .badge')) === 'complete',
        PAGE_MS,
      );
      expect(await text('[data-field="revision"]')).to.equal('2');
      expect(await page.locator('section[data-revision="2"] tr[data-pod]').count()).to.equal(3);
      expect(await text('section[data-revision="2"] h3')).to.match(/Revision 2\s+current/);
      expect(await text('section[data-revision="2"] .rsinfo')).to.contain('nginx:1.28');
      await shot('deployment');
    });

    it('pauses and resumes from the page, each after a confirmation (checked with kubectl)', async () => {
      await page.click('button[data-action="pause"]');
      expect(await text('[role="dialog"]')).to.contain('Pause the rollout of default/web?');
      await shot('confirm');
      await page.click('[data-confirm="yes"]');
      await page.waitForSelector('[data-result="ok"]', { timeout: PAGE_MS });
      expect(await text('[data-result="ok"] .message')).to.equal('deployment.pacer.dev/web paused');
      expect(await spec('web', '.spec.paused')).to.equal('true');
      await page.waitForSelector('button[data-action="resume"]', { timeout: PAGE_MS });
      expect(await text('h1 .badge')).to.equal('paused');

      // Cancel sends nothing.
      await page.click('button[data-action="resume"]');
      await page.click('[data-confirm="no"]');
      expect(await spec('web', '.spec.paused')).to.equal('true');

      await page.click('button[data-action="resume"]');
      await page.click('[data-confirm="yes"]');
      await page.waitForSelector('[data-result="ok"]', { timeout: PAGE_MS });
      expect(await text('[data-result="ok"] .message')).to.equal('deployment.pacer.dev/web resumed');
      expect(await spec('web', '.spec.paused')).to.equal('false');
      await page.waitForSelector('button[data-action="pause"]', { timeout: PAGE_MS });
    });

    it("undo to revision 1 from the page: revision 1's template comes back as revision 3", async () => {
      await page.click('section[data-revision="1"] button[data-action="undo"]');
      expect(await text('[role="dialog"]')).to.contain('Roll default/web back to revision 1 (nginx:1.27)?');
      // The confirmation shows what would change: the image's line, and nothing else.
      await page.waitForSelector('[role="dialog"] pre.diff[data-diff="1"]', { timeout: PAGE_MS });
      const changed = await page.$$eval('[role="dialog"] pre.diff span:not(.diff-same)', (spans) =>
        spans.map((s) => (s.textContent ?? '').trimEnd()),
      );
      expect(changed).to.deep.equal(['-    - image: nginx:1.28', '+    - image: nginx:1.27']);
      await shot('undo');
      await page.click('[data-confirm="yes"]');
      await page.waitForSelector('[data-result="ok"]', { timeout: PAGE_MS });
      expect(await text('[data-result="ok"] .message')).to.equal('deployment.pacer.dev/web rolled back');
      // The warning `kubectl pacer rollout undo` prints for an applied Deployment comes along.
      expect(await text('[data-result="ok"] .warning')).to.match(
        /^Warning: resource deployments.pacer.dev\/web was previously managed with 'kubectl apply'/,
      );
      expect(await spec('web', '.spec.template.spec.containers[0].image')).to.equal('nginx:1.27');
      await page.waitForSelector('section[data-revision="3"].current', { timeout: PAGE_MS });
      expect(await page.locator('section[data-revision="1"]').count()).to.equal(0);
      expect(await text('section[data-revision="3"] .rsinfo')).to.contain('nginx:1.27');
      const web = JSON.parse(await ok(kubectl('get', 'deployments.pacer.dev', 'web', '-o', 'json')));
      expect(web.metadata.annotations['pacer.dev/revision']).to.equal('3');
    });

    it("a refused action answers in kubectl's words with its status, and changes nothing", async () => {
      await page.goto(`${url}#/deployments/default/held`);
      await page.waitForSelector('button[data-action="resume"]', { timeout: PAGE_MS });
      // A paused Deployment offers no undo (the plugin refuses one) and no pause.
      expect(await page.locator('button[data-action="undo"], button[data-action="pause"]').count()).to.equal(0);
      // The same POST the page sends, for what the page does not offer: the plugin's refusal.
      const r = await page.evaluate(async () => {
        const res = await fetch('/api/v1/namespaces/default/deployments/held/pause', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: '{}',
        });
        return { status: res.status, body: (await res.json()) as unknown };
      });
      expect(r).to.deep.equal({
        status: 409,
        body: { ok: false, message: 'error: deployments.pacer.dev "held" is already paused' },
      });
      expect(await spec('held', '.spec.paused')).to.equal('true');
    });

    it("set image and restart from the page roll out new revisions (kubectl sees them), the diff of 1 and 3 is exactly what changed, an Event comes live, a pod's log is the API server's answer (the real bed's lines, followed; the simulated cluster's 404)", async () => {
      // A Deployment of its own (the home page's four keep their states): revision 1, nginx:1.27.
      await writeFile(join(k.dir, 'site.yaml'), deployment('site', {}));
      await ok(kubectl('apply', '-f', join(k.dir, 'site.yaml')));
      await page.goto(`${url}#/deployments/default/site`);
      await page.waitForSelector('section[data-revision="1"].current tr[data-pod]', { timeout: PAGE_MS });
      // The budget of 25%/25% (the defaults) resolved against 2 replicas: 1 up, 0 down.
      expect(await text('[data-field="budget"]')).to.equal(
        'at most 3 pods at once (2 + 1), at least 2 available (2 - 0); MaxSurge 25%, MaxUnavailable 25%',
      );
      const rsOf = async (revision: number) =>
        JSON.parse(await ok(kubectl('get', 'replicasets', '-l', 'app=site', '-o', 'json'))).items.find(
          (rs: { metadata: { annotations?: Record<string, string> } }) =>
            rs.metadata.annotations?.['pacer.dev/revision'] === String(revision),
        ) as { metadata: { name: string }; spec: { template: { spec: { containers: Array<{ image: string }> } } } };

      // A bad image: the plugin's words, nothing changed.
      await page.click('button[data-action="set-image"]');
      await page.click('[data-confirm="yes"]');
      await page.waitForSelector('[data-result="409"]', { timeout: PAGE_MS });
      expect(await text('[data-result="409"] .message')).to.equal(
        'error: invalid image update "app=": expected CONTAINER=IMAGE',
      );
      expect(await spec('site', '.spec.template.spec.containers[0].image')).to.equal('nginx:1.27');

      // Set image: revision 2, a new ReplicaSet with the image (kubectl), shown live with its pods.
      const eventsBefore = await page.$$eval('table.events tr[data-event]', (trs) =>
        trs.map((tr) => tr.getAttribute('data-event')),
      );
      await page.fill('input[name="image"]', 'nginx:1.28');
      await page.click('button[data-action="set-image"]');
      expect(await text('[role="dialog"]')).to.contain('Set the image of container app of default/site to nginx:1.28?');
      await page.click('[data-confirm="yes"]');
      await page.waitForSelector('[data-result="ok"]', { timeout: PAGE_MS });
      expect(await text('[data-result="ok"] .message')).to.equal('deployment.pacer.dev/site image updated');
      await page.waitForSelector('section[data-revision="2"].current', { timeout: PAGE_MS });
      const rs2 = await eventually('revision 2 in the cluster', () => rsOf(2), PAGE_MS);
      expect(rs2.spec.template.spec.containers[0].image).to.equal('nginx:1.28');
      // The controller's Event of it (scaling the new ReplicaSet) arrives with the stream: no reload.
      const live = `table.events tr[data-reason="ScalingReplicaSet"]:has-text("${rs2.metadata.name}")`;
      await page.waitForSelector(live, { timeout: PAGE_MS });
      expect(eventsBefore, 'the Event is new').to.not.include(await page.getAttribute(live, 'data-event'));

      // Restart: revision 3, the same image, the template stamped with kubectl's restartedAt.
      await eventually(
        'revision 2 to have rolled out',
        async () =>
          (await text('h1 .badge')) === 'complete' &&
          (await page.locator('button[data-action="restart"]').count()) === 1,
        PAGE_MS,
      );
      await page.click('button[data-action="restart"]');
      await page.click('[data-confirm="yes"]');
      await page.waitForSelector('[data-result="ok"]', { timeout: PAGE_MS });
      expect(await text('[data-result="ok"] .message')).to.equal('deployment.pacer.dev/site restarted');
      const restartedAt = await spec(
        'site',
        `.spec.template.metadata.annotations.kubectl\\.kubernetes\\.io/restartedAt`,
      );
      expect(restartedAt).to.match(/^[0-9]{4}-[0-9]{2}-[0-9]{2}T/);
      await page.waitForSelector('section[data-revision="3"].current', { timeout: PAGE_MS });
      await eventually('revision 3 in the cluster', () => rsOf(3), PAGE_MS);

      // The template diff of revisions 1 and 3: the image and the annotation, nothing else.
      await page.selectOption('select[name="compare-from"]', '1');
      await page.selectOption('select[name="compare-to"]', '3');
      await page.click('button[data-action="compare"]');
      await page.waitForSelector('.compare pre.diff[data-diff="3"][data-against="1"]', { timeout: PAGE_MS });
      expect(
        await page.$$eval('.compare pre.diff span:not(.diff-same)', (spans) =>
          spans.map((s) => (s.textContent ?? '').trimEnd()),
        ),
      ).to.deep.equal([
        '+  annotations:',
        `+    kubectl.kubernetes.io/restartedAt: ${restartedAt}`,
        '-    - image: nginx:1.27',
        '+    - image: nginx:1.28',
      ]);
      await shot('history');

      // A pod's log: the API server's pods/log, asked to follow the last 500 lines. On the real bed
      // kube-apiserver asks the node's kubelet endpoint, kwok's, which serves kube-bed's pod log
      // file: its line at once, then a line appended to it as it comes. The simulated API server
      // serves no pods/log: its refusal is shown in its words, and no line.
      const podName = await page.getAttribute('section[data-revision="3"] tr[data-pod]', 'data-pod');
      await page.click(`button[data-logs="${podName}"]`);
      const logText = async () => (await page.locator('[data-log-text]').first().textContent()) ?? '';
      if (bed === 'real' && k.real.info.podLog) {
        const first = `kube-bed: every container's log on this bed is ${k.real.info.podLog} (kwok serves it; append lines in the CRI log format)\n`;
        await eventually('the log in the pane', async () => (await logText()) === first, PAGE_MS);
        const line = `a line the dashboard test appended at ${new Date().toISOString()} (pid ${process.pid})`;
        await k.real.appendPodLog([line]);
        await eventually('the appended line followed', async () => (await logText()) === `${first}${line}\n`, PAGE_MS);
        expect(await page.getAttribute('[data-log-state]', 'data-log-state')).to.equal('reading');
        expect(await page.locator('[data-log-error]').count()).to.equal(0);
        await shot('podlog', 'real');
      } else if (bed === 'real') {
        console.log('      (the pod log part skipped: PACER_E2E_KUBECONFIG names a cluster kube-bed did not start)');
      } else {
        await page.waitForSelector('[data-log-error]', { timeout: PAGE_MS });
        expect(await text('[data-log-error]')).to.equal(SIM_LOG_REFUSAL);
        expect(await logText()).to.equal('');
      }
      await page.click('button[data-log="close"]');
    });

    it('continue on a canary step from the plans page releases one pod (checked with kubectl)', async () => {
      await page.goto(`${url}#/deployments/default/canary`);
      await page.click('a[data-link-plans]');
      await page.waitForSelector('section[data-plan="deploy"] [data-phase="canary"]', { timeout: PAGE_MS });
      expect(await text('[data-field="members"]')).to.equal('Service default/canary: canary');
      const step = (n: number) => `section[data-plan="deploy"] tr[data-step="canary-${n}:[app]"]`;
      expect(await page.getAttribute(step(0), 'data-status')).to.equal('WAITING');
      expect(await page.locator('section[data-plan="recovery"]').count()).to.equal(1);
      await shot('plans');
      const pods = async () =>
        (await ok(kubectl('get', 'pods', '-l', 'app=canary', '-o', 'name'))).split('\n').filter(Boolean).length;
      expect(await pods()).to.equal(0);

      await page.click('section[data-plan="deploy"] [data-phase="canary"] h3 button[data-action="continue"]');
      expect(await text('[role="dialog"]')).to.contain(
        'Continue phase canary of plan deploy (service default/canary)?',
      );
      await page.click('[data-confirm="yes"]');
      await page.waitForSelector('[data-result="ok"]', { timeout: PAGE_MS });
      expect(await text('[data-result="ok"] .message')).to.equal('Received cmd: continue');
      // The page follows: the first step completes, the second waits for the next continue.
      await page.waitForSelector(`${step(0)}[data-status="COMPLETE"]`, { timeout: PAGE_MS });
      expect(await page.getAttribute(step(1), 'data-status')).to.equal('WAITING');
      expect(await pods()).to.equal(1);
      expect(await spec('canary', '.status.replicas')).to.equal('1');
      expect(await spec('canary', '.status.conditions[?(@.type=="Progressing")].message')).to.contain(
        'canary step 2 of 2',
      );
      // A plan-level continue releases no canary step (the SDK's rule): the answer and its warning.
      await page.click('section[data-plan="deploy"] h2 button[data-action="continue"]');
      await page.click('[data-confirm="yes"]');
      await page.waitForSelector('[data-result="ok"] .warning', { timeout: PAGE_MS });
      expect(await text('[data-result="ok"] .warning')).to.match(/^nothing was written/);
      expect(await pods()).to.equal(1);
    });

    it('node rolls: each node with its step, the zones and the health gate; skip and pause from the page', async function () {
      if (bed !== 'sim') {
        console.log(
          "      skipped: a node roll needs a node group, the simulated cluster's NodeGroup here (the real bed's are Cluster API's: test/e2e/capi-noderoll.test.ts)",
        );
        this.skip();
      }
      // Three nodes over three zones, and a health gate held shut by a Deployment that never becomes
      // ready: the roll records its nodes and waits, so that each stays Pending while the page acts.
      await writeFile(
        join(k.dir, 'noderoll.yaml'),
        `apiVersion: sim.pacer.dev/v1
kind: NodeGroup
metadata: {name: dash}
spec: {replicas: 3, zones: [a, b, c], launchDelayMs: 300, deregistrationDelayMs: 300}
---
apiVersion: pacer.dev/v1alpha1
kind: Deployment
metadata: {name: gate-shut, labels: {app: gate-shut}}
spec:
  replicas: 1
  progressDeadlineSeconds: 600
  selector: {matchLabels: {app: gate-shut}}
  template:
    metadata: {labels: {app: gate-shut}, annotations: {sim.pacer.dev/never-ready: "true"}}
    spec: {containers: [{name: app, image: "nginx:1.27"}]}
`,
      );
      await ok(kubectl('apply', '-f', join(k.dir, 'noderoll.yaml')));
      await eventually(
        'the three nodes of the group',
        async () =>
          (await ok(kubectl('get', 'nodes', '-l', 'sim.pacer.dev/node-group=dash', '-o', 'name')))
            .split('\n')
            .filter(Boolean).length === 3,
        PAGE_MS,
      );
      await writeFile(
        join(k.dir, 'roll.yaml'),
        `apiVersion: pacer.dev/v1alpha1
kind: NodeRoll
metadata: {name: dash-roll}
spec:
  nodeSelector: {matchLabels: {sim.pacer.dev/node-group: dash}}
  nodeGroup: dash
  desiredNodes: 3
  healthGate: {selector: {matchLabels: {app: gate-shut}}}
`,
      );
      await ok(kubectl('apply', '-f', join(k.dir, 'roll.yaml')));
      await page.goto(`${url}#/`);
      await page.click('a[data-nav="noderolls"]');
      const roll = 'section[data-noderoll="dash-roll"]';
      await eventually(
        'the roll with its three nodes, waiting at the gate',
        async () =>
          (await page.locator(`${roll} tr[data-node][data-step="Pending"]`).count()) === 3 &&
          (await page.getAttribute(`${roll} [data-field="gate"]`, 'data-gate')) === 'waiting',
        PAGE_MS,
      );
      expect(await text(`${roll} [data-field="gate"]`)).to.contain('deployment default/gate-shut');
      expect(await text(`${roll} [data-field="zones-before"]`)).to.equal('a 1, b 1, c 1');
      // Replace scales the group up first: three new nodes beside the three old ones, one in each zone.
      await eventually(
        'the scale-up in the zones now',
        async () => (await text(`${roll} [data-field="zones-now"]`)) === 'a 2, b 2, c 2',
        PAGE_MS,
      );
      const nodes = await page.$$eval(`${roll} tr[data-node]`, (trs) => trs.map((tr) => tr.getAttribute('data-node')));
      const first = nodes[0]!;

      await page.click(`${roll} tr[data-node="${first}"] button[data-action="skip"]`);
      expect(await text('[role="dialog"]')).to.contain(`Skip node ${first} of dash-roll?`);
      await page.click('[data-confirm="yes"]');
      await page.waitForSelector('[data-result="ok"]', { timeout: PAGE_MS });
      expect(await text('[data-result="ok"] .message')).to.equal(
        `noderoll.pacer.dev/dash-roll: node ${first} skipped (revisited once the others are done)`,
      );
      // The controller carries the request out: the node is marked skipped (revisited last), live on the page.
      await eventually(
        'the skip in the checkpoint',
        async () =>
          (await ok(kubectl('get', 'noderolls', 'dash-roll', '-o', 'jsonpath={.status.skipped}'))).includes(first),
        PAGE_MS,
      );
      await eventually(
        'the node shown skipped',
        async () => (await text(`${roll} tr[data-node="${first}"]`)).includes('Pending (skipped)'),
        PAGE_MS,
      );
      await shot('noderolls');

      await page.click(`${roll} button[data-action="pause"]`);
      await page.click('[data-confirm="yes"]');
      await page.waitForSelector('[data-result="ok"]', { timeout: PAGE_MS });
      expect(await text('[data-result="ok"] .message')).to.equal('noderoll.pacer.dev/dash-roll paused');
      expect(await ok(kubectl('get', 'noderolls', 'dash-roll', '-o', 'jsonpath={.spec.paused}'))).to.equal('true');
      await page.waitForSelector(`${roll} button[data-action="resume"]`, { timeout: PAGE_MS });
      await page.click(`${roll} button[data-action="resume"]`);
      await page.click('[data-confirm="yes"]');
      await page.waitForSelector('[data-result="ok"]', { timeout: PAGE_MS });
      expect(await text('[data-result="ok"] .message')).to.equal('noderoll.pacer.dev/dash-roll resumed');
      expect(await ok(kubectl('get', 'noderolls', 'dash-roll', '-o', 'jsonpath={.spec.paused}'))).to.equal('false');
      await ok(kubectl('delete', 'noderolls', 'dash-roll'));
      await page.waitForSelector(`${roll}`, { state: 'detached', timeout: PAGE_MS });
    });

    it('the freeze: its banner on every page while on, with its reason as text; on and off from the page', async () => {
      // Pacer's namespace, where the switch lives (the simulated cluster has it; the real bed may not).
      if ((await kubectl('get', 'namespace', 'pacer-system')).code !== 0)
        await ok(kubectl('create', 'namespace', 'pacer-system'));
      await page.goto(`${url}#/`);
      await page.waitForSelector('[data-link="live"]', { timeout: PAGE_MS });
      expect(await page.locator('[data-freeze]').count()).to.equal(0);
      // Switched on with kubectl: the banner comes live, on every page.
      await ok(kubectl('pacer', 'freeze', 'on', '--reason', 'incident <b>42</b>'));
      await page.waitForSelector('[data-freeze="on"]', { timeout: PAGE_MS });
      expect(await text('[data-field="freeze-reason"]')).to.equal('(incident <b>42</b>)');
      expect(await page.locator('[data-freeze] b').count()).to.equal(0);
      await page.click('a[data-nav="noderolls"]');
      await page.waitForSelector('[data-freeze="on"]', { timeout: PAGE_MS });
      await page.goto(`${url}#/deployments/default/web`);
      await page.waitForSelector('[data-freeze="on"]', { timeout: PAGE_MS });
      await shot('frozen');

      // Lifted from the page.
      await page.click('button[data-action="freeze-off"]');
      expect(await text('[role="dialog"]')).to.contain('Lift the freeze (incident <b>42</b>)?');
      await page.click('[data-confirm="yes"]');
      await page.waitForSelector('[data-result="ok"]', { timeout: PAGE_MS });
      expect(await text('[data-result="ok"] .message')).to.equal('pacer thawed: rollouts and node rolls go on');
      await page.waitForSelector('[data-freeze]', { state: 'detached', timeout: PAGE_MS });
      expect((await kubectl('get', 'configmap', 'pacer-freeze', '-n', 'pacer-system')).code).to.not.equal(0);

      // Switched on from the page, with a reason typed in.
      await page.click('button[data-action="freeze-on"]');
      await page.fill('[role="dialog"] input[name="text"]', 'release train');
      await page.click('[data-confirm="yes"]');
      await page.waitForSelector('[data-freeze="on"]', { timeout: PAGE_MS });
      expect(await text('[data-field="freeze-reason"]')).to.equal('(release train)');
      expect(await ok(kubectl('pacer', 'freeze', 'status'))).to.match(/^pacer is frozen \(release train\)/);
      // Off with kubectl: the banner goes by itself.
      await ok(kubectl('pacer', 'freeze', 'off'));
      await page.waitForSelector('[data-freeze]', { state: 'detached', timeout: PAGE_MS });
    });

    it('a lost connection: the page says so, reconnects by itself and resumes where it left off', async () => {
      // The page reaches the dashboard through a proxy that can cut its connections and refuse new ones
      // (a browser's offline mode leaves an open stream as it is). It passes the dashboard's own Host.
      const dashboardPort = new URL(url).port;
      const sockets = new Set<Socket>();
      let blocked = false;
      const proxy = http.createServer((req, res) => {
        const upstream = http.request(
          {
            host: '127.0.0.1',
            port: dashboardPort,
            method: req.method,
            path: req.url,
            headers: { ...req.headers, host: `127.0.0.1:${dashboardPort}` },
          },
          (up) => {
            res.writeHead(up.statusCode ?? 502, up.headers);
            up.pipe(res);
          },
        );
        upstream.on('error', () => res.destroy());
        res.on('close', () => upstream.destroy());
        req.pipe(upstream);
      });
      proxy.on('connection', (socket: Socket) => {
        if (blocked) return void socket.destroy();
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      try {
        await page.goto(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}/#/deployments/default/web`);
        await page.waitForSelector('[data-link="live"]', { timeout: PAGE_MS });
        blocked = true;
        for (const socket of sockets) socket.destroy();
        await page.waitForSelector('[data-link="reconnecting"]', { timeout: PAGE_MS });
        // Missed while cut off: a change the stream must replay.
        await ok(kubectl('scale', 'deployments.pacer.dev', 'web', '--replicas=4'));
        await eventually(
          'the dashboard to have the change',
          async () => {
            const r = await fetch(`${url}api/v1/deployments`);
            return ((await r.json()) as Array<{ name: string; desired: number }>).some(
              (d) => d.name === 'web' && d.desired === 4,
            );
          },
          PAGE_MS,
        );
        expect(await text('[data-field="replicas"]')).to.match(/^3 desired/);
        blocked = false;
        await page.waitForSelector('[data-notice="reconnected"]', { timeout: PAGE_MS });
        const notice = await text('[data-notice="reconnected"]');
        const m = /^Reconnected: resumed where the page left off \(([0-9]+) changes caught up\)\./.exec(notice);
        expect(m, notice).to.not.equal(null);
        expect(Number(m![1])).to.be.greaterThan(0);
        await page.waitForSelector('[data-link="live"]', { timeout: PAGE_MS });
        expect(await text('[data-field="replicas"]')).to.match(/^4 desired/);
      } finally {
        blocked = true;
        for (const socket of sockets) socket.destroy();
        await new Promise<void>((resolve) => proxy.close(() => resolve()));
      }
    });

    it('a tab in the background closes its stream, and resumes it when shown again', async () => {
      await page.goto(`${url}#/deployments/default/web`);
      await page.waitForSelector('[data-link="live"]', { timeout: PAGE_MS });
      // The browser's own signal (document.hidden and visibilitychange), as when the tab is hidden.
      const setHidden = (hidden: boolean) =>
        page.evaluate(
          `Object.defineProperty(document, 'hidden', { value: ${hidden}, configurable: true }); document.dispatchEvent(new Event('visibilitychange'));`,
        );
      await setHidden(true);
      await page.waitForSelector('[data-link="paused"]', { timeout: PAGE_MS });
      await ok(kubectl('scale', 'deployments.pacer.dev', 'web', '--replicas=5'));
      await eventually(
        'the dashboard to have the change',
        async () =>
          ((await (await fetch(`${url}api/v1/deployments`)).json()) as Array<{ name: string; desired: number }>).some(
            (d) => d.name === 'web' && d.desired === 5,
          ),
        PAGE_MS,
      );
      expect(await text('[data-field="replicas"]'), 'no stream while hidden').to.match(/^4 desired/);
      await setHidden(false);
      await page.waitForSelector('[data-link="live"]', { timeout: PAGE_MS });
      await eventually(
        'the change once shown',
        async () => (await text('[data-field="replicas"]')).startsWith('5 desired'),
        PAGE_MS,
      );
      expect(await text('[data-notice="reconnected"]')).to.match(/^Reconnected: resumed where the page left off/);
    });

    it('a Deployment deleted while its page is open says so', async () => {
      await page.goto(`${url}#/deployments/default/held`);
      await page.waitForSelector('h1 .badge', { timeout: PAGE_MS });
      await ok(kubectl('delete', 'deployments.pacer.dev', 'held'));
      await page.waitForSelector('[data-gone="deleted"]', { timeout: PAGE_MS });
      expect(await text('[data-gone="deleted"]')).to.equal('Deployment default/held has been deleted.');
      await page.click('a[href="#/"]');
      await eventually('held gone from the home page', async () => !('held' in (await states())), PAGE_MS);
    });

    /** Applies `yaml` (the `deployment` helper's Deployments) from a file of `name`. */
    const applied = async (name: string, yaml: string) => {
      await writeFile(join(k.dir, `${name}.yaml`), yaml);
      await ok(kubectl('apply', '-f', join(k.dir, `${name}.yaml`)));
    };
    const available = (name: string, n: string) =>
      eventually(
        `${name} at ${n} available`,
        async () => (await spec(name, '.status.availableReplicas')) === n,
        PAGE_MS,
      );

    it("Marathon's deployments: mdb and mapp upgraded together are listed with their steps, and cancelled from the page (rolled back, checked with kubectl)", async () => {
      await applied(
        'marathon',
        [
          deployment('mdb', { replicas: 1 }),
          deployment('mapp', { replicas: 1, extra: '\n  dependencies: [mdb]' }),
        ].join('\n'),
      );
      await available('mdb', '1');
      await available('mapp', '1');
      // mdb's new pods never become ready: its upgrade stays under way, and mapp's waits for it.
      await ok(
        kubectl(
          'patch',
          'deployments.pacer.dev',
          'mdb',
          '--type=merge',
          '-p',
          '{"spec":{"template":{"metadata":{"annotations":{"sim.pacer.dev/never-ready":"true"}},"spec":{"containers":[{"name":"app","image":"nginx:1.28"}]}}}}',
        ),
      );
      await ok(kubectl('pacer', 'set', 'image', 'mapp', 'app=nginx:1.28'));
      await page.goto(`${url}#/marathon`);
      const both = 'section[data-apps="/default/mapp,/default/mdb"]';
      await page.waitForSelector(both, { timeout: PAGE_MS });
      const steps = page.locator(`${both} li[data-step]`);
      expect(await steps.evaluateAll((lis) => lis.map((li) => li.getAttribute('data-state')))).to.deep.equal([
        'current',
        'next',
      ]);
      expect((await steps.allInnerTexts()).map((t) => t.trim())).to.deep.equal([
        'RestartApplication /default/mdb (current)',
        'RestartApplication /default/mapp',
      ]);
      expect(await text(`${both} [data-field="step"]`)).to.equal('step 1 of 2');
      // The same deployment as the plugin lists.
      const id = await page.getAttribute(both, 'data-marathon');
      expect(await ok(kubectl('pacer', 'deployments'))).to.contain(id!);
      await shot('marathon');

      await page.click(`${both} button[data-action="cancel"]`);
      expect(await text('#ask-question')).to.equal(
        `Cancel deployment ${id} and roll back /default/mapp, /default/mdb? Each app goes back to the revision it had before.`,
      );
      await page.click('[data-confirm="yes"]');
      await page.waitForSelector('[data-result="ok"]', { timeout: PAGE_MS });
      expect((await text('[data-result="ok"] .message')).split('\n').sort()).to.deep.equal([
        'deployment.pacer.dev/mapp rolled back to revision 1',
        'deployment.pacer.dev/mdb rolled back to revision 1',
      ]);
      for (const name of ['mdb', 'mapp'])
        await eventually(
          `${name} back on nginx:1.27`,
          async () => (await spec(name, '.spec.template.spec.containers[0].image')) === 'nginx:1.27',
          PAGE_MS,
        );
      await available('mdb', '1');
      await page.waitForSelector(`section[data-marathon="${id}"]`, { state: 'detached', timeout: PAGE_MS });
      await ok(kubectl('delete', 'deployments.pacer.dev', 'mapp', 'mdb', '--wait=false'));
    });

    it("a plan started from the page with a parameter; bad parameters refused in the plugin's words", async () => {
      await page.goto(`${url}#/plans/default/canary`);
      const start = 'section[data-plan="deploy"] h2 button[data-action="start"]';
      await page.waitForSelector(start, { timeout: PAGE_MS });
      const startWith = async (words: string) => {
        await page.click(start);
        await page.fill('[role="dialog"] input[name="text"]', words);
        await page.click('[data-confirm="yes"]');
        await page.waitForSelector('[data-result]', { timeout: PAGE_MS });
        return text('[data-result]');
      };
      expect(await startWith('LEVEL')).to.equal('400 invalid parameter "LEVEL": expected KEY=VALUE');
      expect(await startWith('1X=2')).to.equal(
        "400 Couldn't parse parameters: 1X is not a valid environment variable name",
      );
      expect(await spec('canary', '.spec.template.spec.containers[0].env')).to.equal('');
      expect(await startWith('LEVEL=debug')).to.equal('Received cmd: start deploy with parameters: {LEVEL=debug}');
      expect(await spec('canary', '.spec.template.spec.containers[0].env')).to.equal(
        '[{"name":"LEVEL","value":"debug"}]',
      );
    });

    it('bulk promotion: two canaries chosen on the page are released together, in dependency order', async () => {
      await applied(
        'bulk',
        [
          deployment('bulk-base', { replicas: 1 }),
          // bulk-app depends on bulk-base (level 2), bulk-db on nothing (level 1): by name bulk-app
          // would come first, by dependency order it comes second.
          deployment('bulk-app', {
            replicas: 1,
            extra: '\n  dependencies: [bulk-base]\n  plan: {strategy: serial-canary}',
          }),
          deployment('bulk-db', { replicas: 1, extra: '\n  plan: {strategy: serial-canary}' }),
        ].join('\n'),
      );
      await page.goto(`${url}#/canaries`);
      for (const name of ['bulk-app', 'bulk-db'])
        await page.waitForSelector(`table.canaries tr[data-name="${name}"]`, { timeout: PAGE_MS });
      expect(await spec('bulk-app', '.status.replicas')).to.equal('0');
      await page.check('tr[data-name="bulk-app"] input[type="checkbox"]');
      await page.check('tr[data-name="bulk-db"] input[type="checkbox"]');
      expect(await text('button[data-action="promote"]')).to.equal('Release 2 in dependency order');
      await shot('canaries');
      await page.click('button[data-action="promote"]');
      expect(await text('[role="dialog"]')).to.contain('default/bulk-app, default/bulk-db, in dependency order?');
      await page.click('[data-confirm="yes"]');
      await page.waitForSelector('[data-promotion="ok"]', { timeout: PAGE_MS });
      // Released one after the other, bulk-db (level 1) before bulk-app (level 2), each a continue.
      const items = page.locator('[data-promotion] li');
      expect(
        await items.evaluateAll((lis) =>
          lis.map((li) => [li.getAttribute('data-item'), li.getAttribute('data-result')]),
        ),
      ).to.deep.equal([
        ['default/bulk-db', 'ok'],
        ['default/bulk-app', 'ok'],
      ]);
      expect(await items.allInnerTexts()).to.deep.equal([
        'default/bulk-db (level 1): Received cmd: continue',
        'default/bulk-app (level 2): Received cmd: continue',
      ]);
      await available('bulk-db', '1');
      await available('bulk-app', '1');
      await ok(kubectl('delete', 'deployments.pacer.dev', 'bulk-app', 'bulk-db', 'bulk-base', '--wait=false'));
    });

    it("on the real control plane: a user who may only read is refused in the page, in the API server's words", async function () {
      if (bed !== 'real') {
        console.log(
          '      skipped: the simulated API server does not authorise its own requests (docs/simulated-api-server.md)',
        );
        this.skip();
      }
      // A ServiceAccount that may read pacer.dev Deployments in default, and nothing else yet.
      const grant = async (role: string, resources: string) => {
        await ok(kubectl('create', 'role', role, '--verb=get,list,watch', `--resource=${resources}`, '-n', 'default'));
        await ok(
          kubectl('create', 'rolebinding', role, `--role=${role}`, '--serviceaccount=default:viewer', '-n', 'default'),
        );
      };
      await ok(kubectl('create', 'serviceaccount', 'viewer', '-n', 'default'));
      await grant('pacer-reader', 'deployments.pacer.dev');
      const token = (await ok(kubectl('create', 'token', 'viewer', '-n', 'default', '--duration=1h'))).trim();
      const kubeconfig = join(k.dir, 'viewer.kubeconfig');
      await writeFile(
        kubeconfig,
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Config',
          'current-context': 'viewer',
          clusters: [
            {
              name: 'bed',
              cluster: {
                server: k.real.info.server,
                'certificate-authority-data': (await readFile(k.real.info.ca)).toString('base64'),
              },
            },
          ],
          users: [{ name: 'viewer', user: { token } }],
          contexts: [{ name: 'viewer', context: { cluster: 'bed', user: 'viewer', namespace: 'default' } }],
        }),
      );
      const viewer = await startDashboard({ ...k.env, KUBECONFIG: kubeconfig });
      viewerDashboard = viewer.child;
      page = await newPage();
      await page.goto(`${viewer.url}#/deployments/default/web`);
      // It cannot list pods or ReplicaSets: the page says why it waits, in the API server's words.
      await page.waitForSelector('[data-waiting] li', { timeout: PAGE_MS });
      await eventually(
        'both refusals shown',
        async () => (await page.locator('[data-waiting] li').count()) === 2,
        PAGE_MS,
      );
      expect(await text('[data-waiting]')).to.contain(
        'pods is forbidden: User "system:serviceaccount:default:viewer" cannot list resource "pods" in API group "" in the namespace "default"',
      );
      await shot('waiting', 'real');
      // Allowed to read them too, the dashboard's caches fill on their next try and the page appears.
      await grant('workload-reader', 'pods,replicasets.apps');
      await page.waitForSelector('button[data-action="pause"]', { timeout: PAGE_MS });
      expect(await page.locator('[data-waiting]').count()).to.equal(0);
      await page.click('button[data-action="pause"]');
      await page.click('[data-confirm="yes"]');
      await page.waitForSelector('[data-result="403"]', { timeout: PAGE_MS });
      expect(await text('[data-result="403"]')).to.equal(
        '403 Error from server (Forbidden): deployments.pacer.dev "web" is forbidden: User "system:serviceaccount:default:viewer" cannot patch resource "deployments" in API group "pacer.dev" in the namespace "default"',
      );
      await shot('forbidden', 'real');
      expect(await spec('web', '.spec.paused')).to.not.equal('true');
    });
    it('in the cluster (pacer dashboard): a user bound to view in namespace a sees only a, and is refused an undo; an edit user undoes', async function () {
      if (bed !== 'real') {
        console.log(
          "      skipped: a real token and the real view and edit roles: the simulated cluster has no view or edit ClusterRole to aggregate into, and takes any token as its user's name (docs/simulated-api-server.md#reviews)",
        );
        this.skip();
      }
      const [A, B] = ['team-a', 'team-b'];
      // Pacer's resources in view and edit (the bed's kube-controller-manager runs the ClusterRole
      // aggregation controller), and the dashboard's ServiceAccount with manifests/dashboard/'s RBAC.
      await ok(kubectl('apply', '-f', join(ROOT, 'manifests', 'base', 'user-roles.yaml')));
      await ok(kubectl('apply', '-f', join(ROOT, 'manifests', 'base', 'namespace.yaml')));
      for (const f of ['serviceaccount.yaml', 'rbac.yaml'])
        await ok(kubectl('apply', '-f', join(ROOT, 'manifests', 'dashboard', f)));
      await writeFile(join(k.dir, 'app.yaml'), deployment('app', { replicas: 1 }));
      for (const ns of [A, B]) {
        await ok(kubectl('create', 'namespace', ns));
        await ok(kubectl('apply', '-n', ns, '-f', join(k.dir, 'app.yaml')));
      }
      // Revision 2 in a, so that there is a revision to go back to.
      await eventually(
        'revision 1 in a',
        async () =>
          (
            await kubectl(
              'get',
              'deployments.pacer.dev',
              'app',
              '-n',
              A,
              '-o',
              'jsonpath={.metadata.annotations.pacer\\.dev/revision}',
            )
          ).stdout === '1',
        PAGE_MS,
      );
      await ok(kubectl('pacer', 'set', 'image', 'app', 'app=nginx:1.28', '-n', A));
      const revisionOf = async () =>
        (
          await ok(
            kubectl(
              'get',
              'deployments.pacer.dev',
              'app',
              '-n',
              A,
              '-o',
              'jsonpath={.metadata.annotations.pacer\\.dev/revision} {.spec.template.spec.containers[0].image}',
            ),
          )
        ).trim();
      await eventually('revision 2 in a', async () => (await revisionOf()) === '2 nginx:1.28', PAGE_MS);
      for (const [who, role] of [
        ['viewer', 'view'],
        ['editor', 'edit'],
      ]) {
        await ok(kubectl('create', 'serviceaccount', who, '-n', A));
        await ok(
          kubectl('create', 'rolebinding', who, `--clusterrole=${role}`, `--serviceaccount=${A}:${who}`, '-n', A),
        );
      }
      // The aggregation controller has added Pacer's rules to view and edit.
      const can = async (verb: string, who: string) =>
        (
          await kubectl(
            'auth',
            'can-i',
            verb,
            'deployments.pacer.dev',
            '-n',
            A,
            `--as=system:serviceaccount:${A}:${who}`,
          )
        ).stdout.trim();
      await eventually(
        'view and edit to hold pacer.dev Deployments',
        async () => (await can('list', 'viewer')) === 'yes' && (await can('patch', 'editor')) === 'yes',
        PAGE_MS,
      );
      expect(await can('patch', 'viewer')).to.equal('no');
      const token = async (sa: string, ns: string) =>
        (await ok(kubectl('create', 'token', sa, '-n', ns, '--duration=1h'))).trim();
      const [viewer, editor] = [await token('viewer', A), await token('editor', A)];

      // The server, as the chart's Deployment runs it, with its ServiceAccount's token.
      const kubeconfig = join(k.dir, 'dashboard-sa.kubeconfig');
      await writeFile(
        kubeconfig,
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Config',
          'current-context': 'sa',
          clusters: [
            {
              name: 'bed',
              cluster: {
                server: k.real.info.server,
                'certificate-authority-data': (await readFile(k.real.info.ca)).toString('base64'),
              },
            },
          ],
          users: [{ name: 'sa', user: { token: await token('pacer-dashboard', 'pacer-system') } }],
          contexts: [{ name: 'sa', context: { cluster: 'bed', user: 'sa' } }],
        }),
      );
      inCluster = k.track(
        spawn(
          NODE,
          [
            join(ROOT, 'bin', 'pacer.js'),
            'dashboard',
            '--kubeconfig',
            kubeconfig,
            '--bind-address',
            '127.0.0.1:0',
            '--log-format',
            'json',
          ],
          {
            env: { ...k.env, KUBECONFIG: kubeconfig },
          },
        ),
      );
      let log = '';
      const base = await new Promise<string>((resolve, reject) => {
        const read = (b: Buffer) => {
          log += b;
          const m = /dashboard serving on (http:\/\/127\.0\.0\.1:[0-9]+\/)/.exec(log);
          if (m) resolve(m[1]);
        };
        inCluster!.stdout?.on('data', read);
        inCluster!.stderr?.on('data', read);
        inCluster!.on('exit', (code) => reject(new Error(`pacer dashboard exited ${code}: ${log}`)));
      });
      const port = Number(new URL(base).port);

      // No token: 401.
      const status = (path: string, headers: Record<string, string> = {}) =>
        new Promise<number>((resolve, reject) =>
          http
            .get({ host: '127.0.0.1', port, path, headers }, (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            })
            .on('error', reject),
        );
      expect(await status('/api/v1/deployments')).to.equal(401);
      expect(await status('/api/v1/deployments', { Authorization: 'Bearer not-a-token' })).to.equal(401);

      // The raw stream as the viewer: a change in b, then one in a; once a's is there, b's would
      // have come before it. Nothing of b is ever in it.
      let raw = '';
      const streamReq = http.get(
        { host: '127.0.0.1', port, path: '/api/v1/stream', headers: { Authorization: `Bearer ${viewer}` } },
        (res) => {
          res.setEncoding('utf8');
          res.on('data', (c: string) => (raw += c));
        },
      );
      streamReq.on('error', () => {});
      try {
        await eventually('the snapshot', async () => raw.includes('event: snapshot'), PAGE_MS);
        const snapshot = JSON.parse(/event: snapshot\ndata: (.*)\n/.exec(raw)![1]) as {
          deployments: Array<{ namespace: string; name: string }>;
        };
        expect(snapshot.deployments.map((d) => `${d.namespace}/${d.name}`)).to.deep.equal([`${A}/app`]);
        await ok(kubectl('scale', 'deployments.pacer.dev', 'app', '-n', B, '--replicas=2'));
        await ok(kubectl('scale', 'deployments.pacer.dev', 'app', '-n', A, '--replicas=2'));
        await eventually(
          "a's scale in the stream",
          async () => /"namespace":"team-a","name":"app"[^}]*"desired":2/.test(raw),
          PAGE_MS,
        );
        expect(raw).to.not.contain(`"namespace":"${B}"`);
      } finally {
        streamReq.destroy();
      }

      // In the browser, signed in as the viewer: only a's Deployment, and the undo refused.
      page = await newPage();
      await page.goto(base);
      await page.waitForSelector('form[data-form="sign-in"]', { timeout: PAGE_MS });
      await shot('signin', 'real');
      await page.fill('input[name="token"]', viewer);
      await page.click('button[data-action="sign-in"]');
      await eventually(
        "a's Deployment listed",
        async () => Object.keys(await states()).length > 0 && (await states()),
        PAGE_MS,
      );
      expect(Object.keys(await states())).to.deep.equal(['app']);
      expect(await text('tr[data-name="app"]')).to.contain(A);
      expect(await text('[data-field="user"]')).to.equal(`system:serviceaccount:${A}:viewer`);
      await page.goto(`${base}#/deployments/${A}/app`);
      await page.waitForSelector('section[data-revision="1"] button[data-action="undo"]', { timeout: PAGE_MS });
      await page.click('section[data-revision="1"] button[data-action="undo"]');
      await page.click('[data-confirm="yes"]');
      await page.waitForSelector('[data-result="403"]', { timeout: PAGE_MS });
      expect(await text('[data-result="403"]')).to.equal(
        `403 deployments.pacer.dev "app" is forbidden: User "system:serviceaccount:${A}:viewer" cannot patch resource "deployments" in API group "pacer.dev" in the namespace "${A}"`,
      );
      await shot('incluster-forbidden', 'real');
      expect(await revisionOf()).to.equal('2 nginx:1.28');
      const audited = log
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.audit === true)
        .map(({ user, action, status }) => ({ user, action, status }));
      expect(audited).to.deep.include({
        user: `system:serviceaccount:${A}:viewer`,
        action: `undo --to-revision=1 ${A}/app`,
        status: 403,
      });

      // Signed out, then in as the editor: the same undo goes through, as revision 3.
      await page.click('button[data-action="sign-out"]');
      await page.waitForSelector('form[data-form="sign-in"]', { timeout: PAGE_MS });
      expect(await status('/api/v1/deployments')).to.equal(401);
      await page.fill('input[name="token"]', editor);
      await page.click('button[data-action="sign-in"]');
      await page.goto(`${base}#/deployments/${A}/app`);
      await page.waitForSelector('section[data-revision="1"] button[data-action="undo"]', { timeout: PAGE_MS });
      await page.click('section[data-revision="1"] button[data-action="undo"]');
      await page.click('[data-confirm="yes"]');
      await page.waitForSelector('[data-result="ok"]', { timeout: PAGE_MS });
      await eventually(
        "revision 3 with revision 1's image",
        async () => (await revisionOf()) === '3 nginx:1.27',
        PAGE_MS,
      );
    });
  });
