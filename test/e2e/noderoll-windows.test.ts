// Maintenance windows with a real clock (docs/semantics/windows.md#node-rolls): two Drain rolls in
// place, each over a node of its own, whose only window opens at the next whole minute at least
// 30 s ahead, one written in UTC and one in Asia/Kathmandu (UTC+05:45, a zone whose offset is not
// whole hours). Until then each is held: phase Rolling, "not started", status.window closed with
// opensAt at that minute, the Window condition OutsideWindow saying so, the Next-Window column; no
// node cordoned. Once the window opens (no change wakes them: the controller looks again when it
// opens), both roll and complete, every cordon seen from outside at or after the opening.

import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KubeClient, NODES } from '../../src/kube/client.ts';
import { loadKubeConfig } from '../../src/kube/clientnode.ts';
import { TEST_USER_AGENT, eventually } from '../integration/fixtures/cluster.ts';
import { BEDS, kubectlEnv, ROOT } from './fixtures.ts';

const POOL = 'e2e.pacer.dev/pool';
const ZONES = { utc: 'UTC', kathmandu: 'Asia/Kathmandu' } as const;
type Roll = keyof typeof ZONES;

/** HH:MM of `at` on the wall clock of `timeZone`. */
const wallClock = (at: number, timeZone: string) =>
  new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(at);

type RollStatus = {
  phase?: string;
  message?: string;
  window?: { open: boolean; opensAt?: string; closesAt?: string };
  conditions?: Array<{ type: string; status: string; reason: string; message: string }>;
};

for (const bed of BEDS)
  describe(`e2e (${bed}): a maintenance window that opens in a minute holds a node roll until then`, function () {
    this.timeout(240_000);
    const k = kubectlEnv({
      bed,
      tmpPrefix: 'pacer-windows-',
      plugin: true,
      sim: { nodes: 2, zones: ['a', 'b'], podStartMs: 50, podReadyMs: 80 },
    });
    const { kubectl, ok } = k;
    before(async function () {
      this.timeout(300_000);
      await k.start(this);
      await ok(kubectl('apply', '-f', join(ROOT, 'crds')));
      await eventually('the CRDs to be served', async () => (await kubectl('get', 'noderolls')).code === 0);
      await k.startController();
    });
    after(() => k.stop());

    it('held until the window opens (in UTC and in Asia/Kathmandu), then rolled', async () => {
      const nodes = (await ok(kubectl('get', 'nodes', '-o', 'jsonpath={.items[*].metadata.name}'))).split(' ').sort();
      expect(nodes).to.have.length(2);
      const nodeOf: Record<Roll, string> = { utc: nodes[0]!, kathmandu: nodes[1]! };
      for (const roll of Object.keys(ZONES) as Roll[])
        await ok(kubectl('label', 'node', nodeOf[roll], `${POOL}=${roll}`));

      // When each node was first seen cordoned, from a watch.
      const client = new KubeClient(loadKubeConfig({ kubeconfig: join(k.dir, 'kubeconfig') }), {
        userAgent: TEST_USER_AGENT,
      });
      const cordonedAt = new Map<string, number>();
      const watching = new AbortController();
      const follow = (async () => {
        let rv = '';
        while (!watching.signal.aborted) {
          await client
            .watch<{ metadata: { name: string; resourceVersion?: string }; spec?: { unschedulable?: boolean } }>(
              NODES,
              undefined,
              { resourceVersion: rv, timeoutSeconds: 300 },
              (e) => {
                if (e.object?.metadata?.resourceVersion) rv = e.object.metadata.resourceVersion;
                const n = e.object;
                if (n?.spec?.unschedulable && !cordonedAt.has(n.metadata.name))
                  cordonedAt.set(n.metadata.name, Date.now());
              },
              watching.signal,
            )
            .catch(() => new Promise((r) => setTimeout(r, 200)));
        }
      })();

      try {
        // The next whole minute at least 30 s ahead.
        const opens = Math.ceil((Date.now() + 30_000) / 60_000) * 60_000;
        const opensAt = new Date(opens).toISOString().replace('.000Z', 'Z');
        const file = join(k.dir, 'rolls.yaml');
        await writeFile(
          file,
          (Object.keys(ZONES) as Roll[])
            .map((roll) =>
              [
                'apiVersion: pacer.dev/v1alpha1',
                'kind: NodeRoll',
                `metadata: {name: ${roll}}`,
                'spec:',
                '  mode: Drain',
                `  nodeSelector: {matchLabels: {${POOL}: ${roll}}}`,
                `  windows: [{start: "${wallClock(opens, ZONES[roll])}", duration: 30m, timeZone: ${ZONES[roll]}}]`,
                '',
              ].join('\n'),
            )
            .join('---\n'),
        );
        await ok(kubectl('apply', '-f', file));
        const status = async (roll: Roll) =>
          JSON.parse(await ok(kubectl('get', 'noderoll', roll, '-o', 'jsonpath={.status}'))) as RollStatus;

        for (const roll of Object.keys(ZONES) as Roll[]) {
          const held = await eventually(`${roll} held by its window`, async () => {
            const st = await status(roll);
            return st.window !== undefined && st;
          });
          expect(Date.now(), 'seen held before the window opened').to.be.below(opens);
          expect(held.phase).to.equal('Rolling');
          expect(held.window).to.deep.equal({ open: false, opensAt });
          expect(held.message).to.equal(
            `not started: outside its maintenance windows: the next window opens at ${opensAt}`,
          );
          expect(held.conditions?.find((c) => c.type === 'Window')).to.deep.include({
            status: 'False',
            reason: 'OutsideWindow',
            message: `outside its maintenance windows: the next window opens at ${opensAt}; nothing new is cordoned, drained or terminated until then`,
          });
        }
        const wide = await ok(kubectl('get', 'noderolls', '-o', 'wide'));
        expect(wide.split('\n')[0]).to.match(/\bNEXT-WINDOW\b/);
        for (const roll of Object.keys(ZONES) as Roll[])
          expect(wide).to.match(new RegExp(`^${roll}\\s+Drain\\s+Rolling\\s.*${opensAt}`, 'm'));
        expect([...cordonedAt.keys()], 'no node cordoned while outside the window').to.deep.equal([]);

        for (const roll of Object.keys(ZONES) as Roll[])
          await eventually(
            `${roll} to complete once its window opened`,
            async () => (await status(roll)).phase === 'Complete',
            Math.max(0, opens - Date.now()) + 90_000,
          );
        for (const roll of Object.keys(ZONES) as Roll[]) {
          const at = cordonedAt.get(nodeOf[roll]);
          expect(at, `${nodeOf[roll]} cordoned by ${roll}`).to.be.a('number');
          expect(at!, `${roll} cordoned its node only once its window had opened`).to.be.at.least(opens);
        }
      } finally {
        watching.abort();
        await follow;
      }
    });
  });
