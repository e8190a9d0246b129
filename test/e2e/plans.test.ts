// The DC/OS SDK's plan walk-through with the real kubectl and `kubectl pacer plan` against each test
// bed and an in-process controller: examples/hello-world.yaml (hello, then world depending on it)
// applied; `kubectl pacer plan show hello` polled while the pods are created, scheduled, started
// and become ready. The trees it prints follow the SDK's statuses in order, world waits for hello,
// and the last one is the document's finished deploy plan.

import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eventually } from '../integration/fixtures/cluster.ts';
import type { Timeline } from '../integration/fixtures/cluster.ts';
import { BEDS, ROOT, kubectlEnv } from './fixtures.ts';
import type { Recording } from './fixtures.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { loadKubeConfig } from '../../src/kube/clientnode.ts';
import { accountToken, operatorToken } from '../fixtures/operator.ts';

const ORDER = ['PENDING', 'PREPARED', 'STARTING', 'STARTED', 'COMPLETE'];

for (const bed of BEDS)
  describe(`e2e (${bed}): a service's deploy plan with kubectl pacer plan`, function () {
    this.timeout(90_000);
    const k = kubectlEnv({ bed, tmpPrefix: 'pacer-plans-', plugin: true, sim: { podStartMs: 1500, podReadyMs: 1500 } });
    const { kubectl, ok } = k;
    let recording: Recording;
    /** The timeline up to now (on the real bed, once the watches caught up). */
    const timeline = (): Promise<Timeline> => recording.timeline();

    /** A Deployment of `replicas` (maxUnavailable 0) with `plan`, at `image`; `neverReady` pods never become ready. */
    async function canaryManifest(
      name: string,
      image: string,
      plan?: string,
      maxSurge = 1,
      o: { replicas?: number; neverReady?: boolean } = {},
    ): Promise<string> {
      const file = join(k.dir, `${name}-${image.replace(/\W/g, '')}.yaml`);
      await writeFile(
        file,
        [
          'apiVersion: pacer.dev/v1alpha1',
          'kind: Deployment',
          `metadata: {name: ${name}}`,
          'spec:',
          `  replicas: ${o.replicas ?? 4}`,
          ...(plan ? [`  plan: {strategy: ${plan}}`] : []),
          `  strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: ${maxSurge}, maxUnavailable: 0}}`,
          `  selector: {matchLabels: {app: ${name}}}`,
          '  template:',
          `    metadata: {labels: {app: ${name}}${o.neverReady ? ', annotations: {sim.pacer.dev/never-ready: "true"}' : ''}}`,
          `    spec: {containers: [{name: app, image: "${image}"}]}`,
          '',
        ].join('\n'),
      );
      return file;
    }
    /** The Deployment's ReplicaSets by revision: "revision:replicas/available". */
    async function replicaSets(name: string): Promise<string[]> {
      const list = JSON.parse(await ok(kubectl('get', 'rs', '-l', `app=${name}`, '-o', 'json'))) as {
        items: Array<{
          metadata: { annotations?: Record<string, string> };
          spec: { replicas: number };
          status: { availableReplicas?: number };
        }>;
      };
      return list.items
        .map(
          (rs) =>
            `${rs.metadata.annotations?.['pacer.dev/revision']}:${rs.spec.replicas}/${rs.status.availableReplicas ?? 0}`,
        )
        .sort();
    }
    async function progressing(name: string): Promise<{ status?: string; reason?: string; message?: string }> {
      const out = await ok(
        kubectl('get', 'pdeploy', name, '-o', 'jsonpath={.status.conditions[?(@.type=="Progressing")]}'),
      );
      return out ? JSON.parse(out) : {};
    }
    const newScalings = async (name: string, from: number) =>
      (await timeline()).scalings.filter((x) => x.rv > from && x.rs.startsWith(`${name}-`) && x.to > x.from);

    before(function () {
      return k.start(this);
    });
    after(() => k.stop());

    it('installs the CRD and starts the controller', async () => {
      await ok(kubectl('apply', '-f', join(ROOT, 'crds')));
      // Both CRDs served before the controller starts (it looks for plans.pacer.dev once).
      await eventually(
        'the CRDs to be served',
        async () => (await kubectl('get', 'pdeploy')).code === 0 && (await kubectl('get', 'plans')).code === 0,
      );
      recording = await k.record('default', () => undefined);
      await k.startController({ apiBindAddress: '127.0.0.1:0' });
    });

    it("an unknown service: kubectl's NotFound; an unknown plan: the SDK's message", async () => {
      const r = await kubectl('pacer', 'plan', 'show', 'nope');
      expect([r.code, r.stderr]).to.deep.equal([
        1,
        'Error from server (NotFound): deployments.pacer.dev "nope" not found\n',
      ]);
    });

    it("hello then world: the trees move through the SDK's statuses, world waiting for hello, to the finished plan", async () => {
      // hello applied paused: no pod yet, so the plan is the SDK's initial one; resumed, it goes.
      // hello-0 stays STARTING for 4 s (not the example's 1.5 s), so that each status lasts long
      // enough to be drawn.
      const paused = await k.editedExample('hello-world.yaml', [
        ['  replicas: 1\n', '  replicas: 1\n  paused: true\n'],
        ['sim.pacer.dev/start-delay-ms: "1500"', 'sim.pacer.dev/start-delay-ms: "4000"'],
      ]);
      expect(await ok(kubectl('apply', '-f', paused))).to.equal(
        'deployment.pacer.dev/hello created\ndeployment.pacer.dev/world created\n',
      );
      const initial = await ok(kubectl('pacer', 'plan', 'show', 'hello'));
      // Every tree through `plan show -w`, which prints one on each change: a poll under load can miss
      // a status that lasts a few seconds.
      const watching = kubectl('pacer', 'plan', 'show', 'hello', '-w', '--timeout=45s');
      await new Promise((r) => setTimeout(r, 1500));
      expect(await ok(kubectl('pacer', 'rollout', 'resume', 'hello'))).to.equal('deployment.pacer.dev/hello resumed\n');
      const done = await eventually(
        'the deploy plan to complete',
        async () => {
          const tree = await ok(kubectl('pacer', 'plan', 'show', 'hello'));
          return tree.startsWith('deploy (serial strategy) (COMPLETE)') && tree;
        },
        60_000,
      );
      const watched = await watching;
      expect([watched.code, watched.stderr]).to.deep.equal([0, '']);
      const trees = [initial];
      for (const t of watched.stdout
        .trim()
        .split('\n\n')
        .map((x) => `${x}\n`))
        if (trees.at(-1) !== t) trees.push(t);
      if (trees.at(-1) !== done) trees.push(done);
      expect(done).to.equal(
        [
          'deploy (serial strategy) (COMPLETE)',
          '├─ hello (serial strategy) (COMPLETE)',
          '│  └─ hello-0:[server] (COMPLETE)',
          '└─ world (serial strategy) (COMPLETE)',
          '   ├─ world-0:[server, sidecar] (COMPLETE)',
          '   └─ world-1:[server, sidecar] (COMPLETE)',
          '',
        ].join('\n'),
      );
      const statusOf = (tree: string, step: string) =>
        new RegExp(`${step.replace(/[[\]]/g, '\\$&')} \\((\\w+)\\)`).exec(tree)![1];
      const hello = trees.map((t) => statusOf(t, 'hello-0:[server]'));
      // Observed in the SDK's order (a poll may miss a short-lived status, never reverse one).
      expect(hello.map((s) => ORDER.indexOf(s))).to.deep.equal(
        [...hello.map((s) => ORDER.indexOf(s))].sort((a, b) => a - b),
      );
      expect(hello, 'hello-0 seen starting, started and complete').to.include.members([
        'STARTING',
        'STARTED',
        'COMPLETE',
      ]);
      for (const t of trees) {
        if (statusOf(t, 'hello-0:[server]') !== 'COMPLETE') {
          expect(statusOf(t, 'world-0:[server, sidecar]'), 'world waits for hello').to.equal('PENDING');
          expect(statusOf(t, 'world-1:[server, sidecar]')).to.equal('PENDING');
        }
      }
      // The plan follows its step: STARTING and STARTED all the way up, as the SDK's document draws it.
      const starting = trees.find((t) => statusOf(t, 'hello-0:[server]') === 'STARTING')!;
      expect(starting.split('\n').slice(0, 2)).to.deep.equal([
        'deploy (serial strategy) (STARTING)',
        '├─ hello (serial strategy) (STARTING)',
      ]);
      // The first tree is the SDK's initial one; world's phase is serial: world-1 waits for world-0.
      expect(trees[0]).to.equal(
        [
          'deploy (serial strategy) (PENDING)',
          '├─ hello (serial strategy) (PENDING)',
          '│  └─ hello-0:[server] (PENDING)',
          '└─ world (serial strategy) (PENDING)',
          '   ├─ world-0:[server, sidecar] (PENDING)',
          '   └─ world-1:[server, sidecar] (PENDING)',
          '',
        ].join('\n'),
      );
      for (const t of trees) {
        if (statusOf(t, 'world-0:[server, sidecar]') !== 'COMPLETE')
          expect(statusOf(t, 'world-1:[server, sidecar]'), 'world-1 waits for world-0').to.equal('PENDING');
      }
    });

    it("plan list, and -o json: the SDK's plan JSON", async () => {
      expect(await ok(kubectl('pacer', 'plan', 'list', 'world'))).to.equal('deploy\nrecovery\n');
      const json = JSON.parse(await ok(kubectl('pacer', 'plan', 'show', 'world', 'deploy', '-o', 'json')));
      expect(json).to.include({ status: 'COMPLETE', strategy: 'serial' });
      expect(json.phases.map((p: { name: string }) => p.name)).to.deep.equal(['hello', 'world']);
      expect(json.phases[1].steps[1]).to.include({ name: 'world-1:[server, sidecar]', status: 'COMPLETE' });
      expect(json.phases[1].steps[1].id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-/);
      expect(await ok(kubectl('pacer', 'plan', 'show', 'world', 'recovery')), 'nothing to recover').to.equal(
        'recovery (parallel strategy) (COMPLETE)\n',
      );
      const r = await kubectl('pacer', 'plan', 'show', 'world', 'nope');
      expect([r.code, r.stderr]).to.deep.equal([1, 'error: Plan nope not found\n']);
    });

    it('serial-canary of 4: no new pod until continue, even across a controller restart; one; a wait; then one at a time', async () => {
      await ok(kubectl('apply', '-f', await canaryManifest('canary', 'app:1')));
      await eventually('canary at revision 1', async () => (await replicaSets('canary')).join() === '1:4/4');
      const mark = (await timeline()).steps.at(-1)?.rv ?? 0;
      await ok(kubectl('apply', '-f', await canaryManifest('canary', 'app:2', 'serial-canary')));
      await eventually(
        'the rollout held for an operator',
        async () => (await progressing('canary')).reason === 'PlanWaiting',
      );
      expect(await progressing('canary')).to.include({
        status: 'Unknown',
        message: 'Deployment waits for an operator: canary step 1 of 2 waits for kubectl pacer plan continue',
      });
      expect(await replicaSets('canary')).to.deep.equal(['1:4/4', '2:0/0']);
      expect((await ok(kubectl('pacer', 'plan', 'show', 'canary'))).split('\n').slice(0, 3)).to.deep.equal([
        'deploy (serial strategy) (WAITING)',
        '└─ canary (serial-canary strategy) (WAITING)',
        '   ├─ canary-0:[app] (WAITING)',
      ]);
      // The controller restarted while the canary waits: nothing moves.
      await k.controller!.stop();
      await k.startController({ apiBindAddress: '127.0.0.1:0' });
      await new Promise((r) => setTimeout(r, 1500));
      expect(await replicaSets('canary')).to.deep.equal(['1:4/4', '2:0/0']);

      expect(await ok(kubectl('pacer', 'plan', 'continue', 'canary', 'deploy', 'canary'))).to.equal(
        'Received cmd: continue\n',
      );
      await eventually('one canary pod, then a wait', async () =>
        (await progressing('canary')).message?.includes('canary step 2 of 2'),
      );
      expect(await replicaSets('canary')).to.deep.equal(['1:3/3', '2:1/1']);
      // A plan-level continue does not release a canary step (the SDK's rule).
      const planLevel = await kubectl('pacer', 'plan', 'continue', 'canary');
      expect([planLevel.code, planLevel.stdout, planLevel.stderr]).to.deep.equal([
        0,
        'Received cmd: continue\n',
        'Warning: nothing was written: no Deployment of the service has a rollout under way that the command changes\n',
      ]);
      await new Promise((r) => setTimeout(r, 1000));
      expect(await replicaSets('canary')).to.deep.equal(['1:3/3', '2:1/1']);

      expect(await ok(kubectl('pacer', 'plan', 'resume', 'canary', 'deploy', 'canary'))).to.equal(
        'Received cmd: continue\n',
      );
      await eventually(
        'the rollout to finish',
        async () => (await replicaSets('canary')).join() === '1:0/0,2:4/4',
        30_000,
      );
      const ups = (await newScalings('canary', mark)).map((x) => `${x.from}→${x.to}`);
      expect(ups, 'the new pods one at a time').to.deep.equal(['0→1', '1→2', '2→3', '3→4']);
      const events = await ok(
        kubectl(
          'get',
          'events',
          '--field-selector',
          'involvedObject.name=canary,reason=PlanContinue',
          '-o',
          'jsonpath={range .items[*]}{.message}{"\\n"}{end}',
        ),
      );
      expect(events.trim().split('\n')).to.have.length(2);
      expect(events).to.contain('Received cmd: continue: plan deploy, phase canary (revision 2)');
    });

    it('parallel-canary of 4: after the second continue the rest at once', async () => {
      await ok(kubectl('apply', '-f', await canaryManifest('wide', 'app:1', undefined, 4)));
      await eventually('wide at revision 1', async () => (await replicaSets('wide')).join() === '1:4/4');
      await ok(kubectl('apply', '-f', await canaryManifest('wide', 'app:2', 'parallel-canary', 4)));
      await eventually('held', async () => (await progressing('wide')).reason === 'PlanWaiting');
      await ok(kubectl('pacer', 'plan', 'continue', 'wide', 'deploy', 'wide'));
      await eventually('one canary pod, then a wait', async () =>
        (await progressing('wide')).message?.includes('canary step 2 of 2'),
      );
      const mark = (await timeline()).steps.at(-1)?.rv ?? 0;
      await ok(kubectl('pacer', 'plan', 'continue', 'wide', 'deploy', 'wide'));
      await eventually(
        'the rollout to finish',
        async () => (await replicaSets('wide')).join() === '1:0/0,2:4/4',
        30_000,
      );
      // With maxSurge 4 the rollout's own budget allows all at once: the new ReplicaSet goes 1→4 in one
      // step (a serial phase would go 1→2 and wait for that pod).
      expect((await newScalings('wide', mark)).map((x) => `${x.from}→${x.to}`)).to.deep.equal(['1→4']);
    });

    it('bad operations: an unknown phase (404), an interrupt on a finished phase (208)', async () => {
      const r = await kubectl('pacer', 'plan', 'continue', 'canary', 'deploy', 'nope');
      expect([r.code, r.stderr]).to.deep.equal([1, 'error: Phase nope not found\n']);
      expect(await ok(kubectl('pacer', 'plan', 'interrupt', 'canary', 'deploy', 'canary'))).to.equal(
        'Command has already been reported or completed\n',
      );
    });

    it('force-complete moves a serial rollout past a pod that is never ready, said in the plan and an Event; restart replaces that pod', async () => {
      await ok(kubectl('apply', '-f', await canaryManifest('stuck', 'app:1', 'serial', 1, { replicas: 2 })));
      await eventually('stuck at revision 1', async () => (await replicaSets('stuck')).join() === '1:2/2');
      await ok(
        kubectl('apply', '-f', await canaryManifest('stuck', 'app:2', 'serial', 1, { replicas: 2, neverReady: true })),
      );
      const step = (tree: string) => /stuck-0:\[app\] \((\w+)\)( \(forced\))?/.exec(tree);
      await eventually(
        'the first new pod running, never ready',
        async () => step(await ok(kubectl('pacer', 'plan', 'show', 'stuck')))?.[1] === 'STARTED',
      );
      await new Promise((r) => setTimeout(r, 1000));
      expect(await replicaSets('stuck'), 'serial waits for it').to.deep.equal(['1:2/2', '2:1/0']);

      expect(
        await ok(kubectl('pacer', 'plan', 'force-complete', 'stuck', 'deploy', 'stuck', 'stuck-0:[app]')),
      ).to.equal('Received cmd: forceComplete for Plan: deploy, Phase: stuck, Step: stuck-0:[app]\n');
      await eventually('the rollout moves on', async () => (await replicaSets('stuck')).join() === '1:1/1,2:2/0');
      expect(step(await ok(kubectl('pacer', 'plan', 'show', 'stuck')))?.slice(1)).to.deep.equal([
        'COMPLETE',
        ' (forced)',
      ]);
      const events = await ok(
        kubectl(
          'get',
          'events',
          '--field-selector',
          'involvedObject.name=stuck,reason=PlanForceComplete',
          '-o',
          'jsonpath={.items[*].message}',
        ),
      );
      expect(events).to.equal(
        'Received cmd: forceComplete for Plan: deploy, Phase: stuck, Step: stuck-0:[app] (revision 2)',
      );

      const podsOf = async () =>
        (await ok(kubectl('get', 'pods', '-l', 'app=stuck', '-o', 'jsonpath={.items[*].metadata.name}')))
          .split(' ')
          .sort();
      const before = await podsOf();
      expect(await ok(kubectl('pacer', 'plan', 'restart', 'stuck', 'deploy', 'stuck', 'stuck-0:[app]'))).to.equal(
        'Received cmd: restart for Plan: deploy, Phase: stuck, Step: stuck-0:[app]\n',
      );
      await eventually('its pod replaced and no longer forced', async () => {
        const now = await podsOf();
        const s0 = step(await ok(kubectl('pacer', 'plan', 'show', 'stuck')));
        return now.length === before.length && now.some((p) => !before.includes(p)) && s0?.[2] === undefined;
      });
      const bad = await kubectl('pacer', 'plan', 'force-complete', 'stuck', 'deploy', '', 'stuck-0:[app]');
      expect([bad.code, bad.stderr]).to.deep.equal([1, 'error: Phase  not found\n']);
    });

    it('stop holds a restarted plan; start with parameters puts them in every pod template and lets it run; bad parameters change nothing', async () => {
      const generation = async (name: string) =>
        Number(await ok(kubectl('get', 'pdeploy', name, '-o', 'jsonpath={.metadata.generation}')));
      const g0 = await generation('world');
      const bad = await kubectl('pacer', 'plan', 'start', 'hello', '-p', '9X=1');
      expect([bad.code, bad.stderr]).to.deep.equal([
        1,
        "error: Couldn't parse parameters: 9X is not a valid environment variable name\n",
      ]);
      const noValue = await kubectl('pacer', 'plan', 'start', 'hello', '-p', 'MODE');
      expect([noValue.code, noValue.stderr]).to.deep.equal([
        1,
        'error: invalid parameter "MODE": expected KEY=VALUE\n',
      ]);
      expect(await generation('world'), 'nothing changed').to.equal(g0);

      expect(await ok(kubectl('pacer', 'plan', 'stop', 'hello'))).to.equal('Received cmd: stop\n');
      // hello restarted and held by the interrupted plan; world, restarted too, waits for hello first.
      await eventually('hello restarted and held', async () => (await progressing('hello')).reason === 'PlanWaiting');
      expect(await progressing('hello')).to.include({
        status: 'Unknown',
        message: 'Deployment waits for an operator: its deploy plan is interrupted (kubectl pacer plan continue)',
      });
      expect(await replicaSets('hello'), "the restart's new ReplicaSet has no pod").to.deep.equal(['1:1/1', '2:0/0']);
      expect((await ok(kubectl('pacer', 'plan', 'show', 'world'))).split('\n')[0]).to.equal(
        'deploy (serial strategy) (WAITING)',
      );
      expect(
        await ok(
          kubectl('get', 'pdeploy', 'world', '-o', 'jsonpath={.metadata.annotations.pacer\\.dev/plan-interrupted}'),
        ),
      ).to.equal('true');

      expect(await ok(kubectl('pacer', 'plan', 'start', 'world', '-p', 'MODE=fast'))).to.equal(
        'Received cmd: start deploy with parameters: {MODE=fast}\n',
      );
      await eventually(
        'the plan to complete',
        async () =>
          (await ok(kubectl('pacer', 'plan', 'show', 'world'))).startsWith('deploy (serial strategy) (COMPLETE)'),
        40_000,
      );
      for (const name of ['hello', 'world']) {
        const env = await ok(
          kubectl(
            'get',
            'pdeploy',
            name,
            '-o',
            'jsonpath={.spec.template.spec.containers[*].env[?(@.name=="MODE")].value}',
          ),
        );
        expect(env.split(' '), name).to.deep.equal(name === 'hello' ? ['fast'] : ['fast', 'fast']);
      }
      const events = await ok(
        kubectl(
          'get',
          'events',
          '--field-selector',
          'involvedObject.name=world',
          '-o',
          'jsonpath={range .items[*]}{.reason}{"\\n"}{end}',
        ),
      );
      expect(events.split('\n')).to.include.members(['PlanStop', 'PlanStart']);
    });

    it('a pod dies in the middle of a serial rollout: the recovery plan shows its replacement in its own revision; the deploy plan goes on', async () => {
      await ok(kubectl('apply', '-f', await canaryManifest('mid', 'app:1', 'serial')));
      await eventually('mid at revision 1', async () => (await replicaSets('mid')).join() === '1:4/4');
      await ok(kubectl('apply', '-f', await canaryManifest('mid', 'app:2', 'serial')));
      await eventually('the rollout under way', async () =>
        (await replicaSets('mid')).some((x) => x.startsWith('2:1/')),
      );
      const oldPods = (
        await ok(
          kubectl(
            'get',
            'pods',
            '-l',
            'app=mid',
            '-o',
            'jsonpath={range .items[*]}{.metadata.name} {.spec.containers[0].image}{"\\n"}{end}',
          ),
        )
      )
        .trim()
        .split('\n')
        .map((l) => l.split(' '))
        .filter(([, image]) => image === 'app:1')
        .map(([name]) => name);
      // Its ReplicaSet (revision 1) starts a replacement: a recovery phase until it is available,
      // which on a bed whose pods are ready within a second a poll may miss; `plan show -w` draws
      // every change.
      const watching = kubectl('pacer', 'plan', 'show', 'mid', 'recovery', '-w', '--timeout=20s');
      await new Promise((r) => setTimeout(r, 1500));
      await ok(kubectl('delete', 'pod', oldPods[0], '--wait=false'));
      const watched = await watching;
      expect([watched.code, watched.stderr]).to.deep.equal([0, '']);
      const seen = watched.stdout.split('\n\n').find((tree) => tree.trim().split('\n').length > 1);
      expect(seen, `a recovery phase among the trees drawn:\n${watched.stdout}`).to.be.a('string');
      const phase = /^[└├]─ (\S+) \(serial strategy\)/m.exec(seen!)![1];
      // The pod may be gone by now (the rollout goes on): its ReplicaSet, named in its name, stays.
      const replicaSet = phase.slice(0, phase.lastIndexOf('-'));
      const image = await ok(
        kubectl('get', 'rs', replicaSet, '-o', 'jsonpath={.spec.template.spec.containers[0].image}'),
      );
      expect(image, 'replaced into its own revision, never the new one').to.equal('app:1');
      await eventually(
        'the rollout to finish',
        async () => (await replicaSets('mid')).join() === '1:0/0,2:4/4',
        40_000,
      );
      expect(await ok(kubectl('pacer', 'plan', 'show', 'mid', 'recovery'))).to.equal(
        'recovery (parallel strategy) (COMPLETE)\n',
      );
      const rec = await kubectl('pacer', 'plan', 'force-complete', 'mid', 'recovery');
      expect([rec.code, rec.stderr]).to.deep.equal([
        1,
        'error: the recovery plan shows what the ReplicaSets and the kubelet do: only "restart SERVICE recovery PHASE STEP" (the step\'s pod replaced) acts on it\n',
      ]);
    });

    it("the same over the controller's HTTP API: GET the plan (202 while held), POST continue releases a canary step", async () => {
      await ok(kubectl('apply', '-f', await canaryManifest('http', 'app:1', undefined, 1, { replicas: 2 })));
      await eventually('http at revision 1', async () => (await replicaSets('http')).join() === '1:2/2');
      await ok(kubectl('apply', '-f', await canaryManifest('http', 'app:2', 'serial-canary', 1, { replicas: 2 })));
      await eventually('held', async () => (await progressing('http')).reason === 'PlanWaiting');
      const base = `http://127.0.0.1:${k.controller!.apiPort}/v1/service/default/http/plans`;
      const client = new KubeClient(loadKubeConfig({ kubeconfig: k.env.KUBECONFIG! }), { userAgent: 'e2e-plans' });
      const requestToken =
        bed === 'real' ? async (sa: string) => (await ok(kubectl('create', 'token', sa))).trim() : undefined;
      const token = await operatorToken(client, 'default', requestToken);
      const stranger = await accountToken(client, 'default', 'stranger', requestToken);
      const headers = { Authorization: `Bearer ${token}` };
      // Reading the plan takes a caller RBAC lets get the service's Deployment.
      const unread = await fetch(`${base}/deploy`);
      expect([unread.status, await unread.text()]).to.deep.equal([401, 'Unauthorized']);
      const peeking = await fetch(`${base}/deploy`, { headers: { Authorization: `Bearer ${stranger}` } });
      expect([peeking.status, await peeking.text()]).to.deep.equal([
        403,
        'deployments.pacer.dev "http" is forbidden: User "system:serviceaccount:default:stranger" cannot get resource "deployments" in API group "pacer.dev" in the namespace "default"',
      ]);
      const held = await fetch(`${base}/deploy`, { headers });
      expect(held.status).to.equal(202);
      expect(((await held.json()) as { status: string }).status).to.equal('WAITING');
      // The caller is who the API server says: no token 401; a user RBAC does not allow 403; an operator 200.
      const anonymous = await fetch(`${base}/deploy/continue?phase=http`, { method: 'POST' });
      expect([anonymous.status, await anonymous.text()]).to.deep.equal([401, 'Unauthorized']);
      const refused = await fetch(`${base}/deploy/continue?phase=http`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${stranger}` },
      });
      expect([refused.status, await refused.text()]).to.deep.equal([
        403,
        'deployments.pacer.dev "http" is forbidden: User "system:serviceaccount:default:stranger" cannot update resource "deployments" in API group "pacer.dev" in the namespace "default"',
      ]);
      expect(await replicaSets('http'), 'nothing carried out').to.include('2:0/0');
      const res = await fetch(`${base}/deploy/continue?phase=http`, { method: 'POST', headers });
      expect([res.status, await res.json()]).to.deep.equal([200, { message: 'Received cmd: continue' }]);
      await eventually('one canary pod', async () => (await replicaSets('http')).includes('2:1/1'));
      const second = await fetch(`${base}/deploy/continue?phase=http`, { method: 'POST', headers });
      expect(second.status).to.equal(200);
      await eventually(
        'the rollout to finish',
        async () => (await replicaSets('http')).join() === '1:0/0,2:2/2',
        30_000,
      );
      expect((await fetch(`${base}/deploy`, { headers })).status).to.equal(200);
      const events = await ok(
        kubectl(
          'get',
          'events',
          '--field-selector',
          'involvedObject.name=http,reason=PlanContinue',
          '-o',
          'jsonpath={.items[*].source.component}',
        ),
      );
      expect(events.split(' ')).to.deep.equal(['pacer-controller', 'pacer-controller']);
    });

    it('a custom Plan over three Deployments: their changes wait until start, then roll in its order; a bad Plan is refused', async () => {
      for (const name of ['wave-a', 'wave-b', 'wave-c'])
        await ok(kubectl('apply', '-f', await canaryManifest(name, 'app:1', undefined, 1, { replicas: 2 })));
      for (const name of ['wave-a', 'wave-b', 'wave-c'])
        await eventually(`${name} at revision 1`, async () => (await replicaSets(name)).join() === '1:2/2');
      const plan = join(k.dir, 'waves.yaml');
      await writeFile(
        plan,
        [
          'apiVersion: pacer.dev/v1alpha1',
          'kind: Plan',
          'metadata: {name: waves}',
          'spec:',
          '  phases:',
          '  - {name: first, steps: [wave-a]}',
          '  - {name: rest, strategy: serial, steps: [wave-b, wave-c]}',
          '',
        ].join('\n'),
      );
      expect(await ok(kubectl('apply', '-f', plan))).to.equal('plan.pacer.dev/waves created\n');
      await eventually(
        "the Plan's status written",
        async () => (await ok(kubectl('get', 'plan', 'waves', '-o', 'jsonpath={.status.status}'))) === 'COMPLETE',
      );
      const before = (await timeline()).scalings.reduce((n, x) => Math.max(n, x.rv), 0);

      for (const name of ['wave-a', 'wave-b', 'wave-c']) await ok(kubectl('pacer', 'set', 'image', name, 'app=app:2'));
      for (const name of ['wave-a', 'wave-b', 'wave-c']) {
        await eventually(`${name} held`, async () => (await progressing(name)).reason === 'PlanWaiting');
        expect(await progressing(name), name).to.include({
          status: 'Unknown',
          message: `Deployment waits for plan waves to be started: kubectl pacer plan start ${name} waves`,
        });
      }
      await eventually(
        'the plan WAITING',
        async () => (await ok(kubectl('get', 'plan', 'waves', '-o', 'jsonpath={.status.status}'))) === 'WAITING',
      );
      expect(await ok(kubectl('pacer', 'plan', 'list', 'wave-b'))).to.equal('deploy\nrecovery\nwaves\n');
      expect(await ok(kubectl('pacer', 'plan', 'show', 'wave-b', 'waves'))).to.equal(
        [
          'waves (serial strategy) (WAITING)',
          '├─ first (serial strategy) (PENDING)',
          '│  └─ wave-a (PENDING)',
          '└─ rest (serial strategy) (PENDING)',
          '   ├─ wave-b (PENDING)',
          '   └─ wave-c (PENDING)',
          '',
        ].join('\n'),
      );
      await new Promise((r) => setTimeout(r, 2000));
      for (const name of ['wave-a', 'wave-b', 'wave-c'])
        expect(await replicaSets(name), `${name}: no new pod before start`).to.deep.equal(['1:2/2', '2:0/0']);

      expect(await ok(kubectl('pacer', 'plan', 'start', 'wave-a', 'waves'))).to.equal(
        'Received cmd: start waves with parameters: {}\n',
      );
      await eventually(
        'the plan COMPLETE',
        async () => (await ok(kubectl('get', 'plan', 'waves', '-o', 'jsonpath={.status.status}'))) === 'COMPLETE',
        60_000,
      );
      for (const name of ['wave-a', 'wave-b', 'wave-c'])
        expect(await replicaSets(name), name).to.deep.equal(['1:0/0', '2:2/2']);
      // In its order: every scaling of a Deployment's rollout before the next one's first new pod.
      const scalings = (await timeline()).scalings.filter((x) => x.rv > before);
      const of = (name: string) => scalings.filter((x) => x.rs.startsWith(`${name}-`));
      const firstUp = (name: string) =>
        Math.min(
          ...of(name)
            .filter((x) => x.to > x.from)
            .map((x) => x.rv),
        );
      const last = (name: string) => Math.max(...of(name).map((x) => x.rv));
      expect(last('wave-a'), 'wave-a done before wave-b starts').to.be.lessThan(firstUp('wave-b'));
      expect(last('wave-b'), 'wave-b done before wave-c starts').to.be.lessThan(firstUp('wave-c'));
      const events = await ok(
        kubectl(
          'get',
          'events',
          '--field-selector',
          'involvedObject.name=waves',
          '-o',
          'jsonpath={range .items[*]}{.reason}{"\\n"}{end}',
        ),
      );
      expect(events.split('\n')).to.include('PlanStart');

      const bad = join(k.dir, 'bad-plan.yaml');
      await writeFile(
        bad,
        [
          'apiVersion: pacer.dev/v1alpha1',
          'kind: Plan',
          'metadata: {name: bad}',
          'spec:',
          '  phases:',
          '  - {name: all, strategy: canary-first, steps: [wave-a]}',
          '',
        ].join('\n'),
      );
      const r = await kubectl('apply', '-f', bad);
      expect(r.code).to.equal(1);
      expect(r.stderr).to.include(
        'spec.phases[0].strategy: Unsupported value: "canary-first": supported values: "serial", "parallel", "serial-canary", "parallel-canary"',
      );
      expect((await kubectl('get', 'plan', 'bad')).code, 'nothing stored').to.equal(1);
    });

    it('plan show -w prints the tree again on every change until its timeout', async () => {
      const watching = kubectl('pacer', 'plan', 'show', 'world', '-w', '--timeout=12s');
      await new Promise((r) => setTimeout(r, 1500));
      await ok(kubectl('pacer', 'plan', 'restart', 'world', 'deploy', 'world', 'world-0:[server, sidecar]'));
      const r = await watching;
      expect([r.code, r.stderr]).to.deep.equal([0, '']);
      const trees = r.stdout.trim().split('\n\n');
      expect(trees[0].split('\n')[0]).to.equal('deploy (serial strategy) (COMPLETE)');
      expect(trees.length, 'the replacement pod seen moving').to.be.greaterThan(1);
      expect(trees.slice(1, -1).some((t) => /\((PENDING|PREPARED|STARTING|STARTED)\)/.test(t))).to.equal(true);
      expect(trees.at(-1)!.split('\n')[0], 'back to COMPLETE').to.equal('deploy (serial strategy) (COMPLETE)');
    });
  });
