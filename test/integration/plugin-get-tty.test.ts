// `kubectl pacer get NAME -w` on a terminal redraws the tree in place: each new frame is preceded
// by ANSI "cursor up <lines of the last frame>, column 1, clear to end of screen". (The e2e quick
// start checks the frames off a terminal; this checks the in-place redraw.)

import { expect } from 'chai';
import { readManifests } from '../../src/cli/up.ts';
import { KubeClient } from '../../src/kube/client.ts';
import { loadKubeConfig } from '../../src/kube/clientnode.ts';
import { runGet } from '../../src/plugin/get.ts';
import { startSim } from '../../src/sim/index.ts';
import type { SimCluster } from '../../src/sim/index.ts';
import { REF } from '../../src/sim/resources.ts';
import { ROOT } from '../e2e/fixtures.ts';
import { eventually } from './fixtures/cluster.ts';

const DEPLOYMENTS = { group: 'pacer.dev', version: 'v1alpha1', resource: 'deployments' };
// biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's escape sequences are what is matched
const CURSOR_UP = /\x1b\[(\d+)A\r\x1b\[J/g;

describe('kubectl pacer get -w on a terminal', function () {
  this.timeout(20_000);
  let sim: SimCluster;
  before(async () => {
    sim = await startSim({ port: 0, controlPlane: false });
    for (const crd of await readManifests(`${ROOT}crds`))
      sim.store.create(REF.customresourcedefinitions, undefined, crd);
    sim.store.create(DEPLOYMENTS, 'default', {
      apiVersion: 'pacer.dev/v1alpha1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1' }] } },
      },
    });
  });
  after(() => sim?.stop());

  it('erases exactly the previous frame before drawing the next', async () => {
    let out = '';
    const io = { stdout: { isTTY: true, write: (s: string) => (out += s) }, stderr: { write: () => true } };
    const client = new KubeClient(loadKubeConfig({ kubeconfigText: sim.kubeconfig }));
    const done = runGet({ client, namespace: 'default', io }, 'web', { watch: true, timeoutMs: 2500 });
    await eventually('the first frame', () => out.length > 0);
    // A change the tree shows: the Deployment is paused.
    sim.store.patch(DEPLOYMENTS, 'default', 'web', 'merge', { spec: { paused: true } });
    expect(await done).to.equal(0);

    const erasures = [...out.matchAll(CURSOR_UP)];
    expect(erasures.length, 'at least one in-place redraw').to.be.greaterThan(0);
    // Frames are the text between erasures; each erasure moves up over the frame just drawn.
    const frames = out.split(CURSOR_UP).filter((_, i) => i % 2 === 0);
    for (let i = 0; i < erasures.length; i++) {
      const drawn = frames[i].split('\n').length - 1;
      expect(Number(erasures[i][1]), `erasure ${i + 1}`).to.equal(drawn);
    }
    expect(frames[0]).to.not.match(/paused|॥/i);
    expect(frames[frames.length - 1]).to.match(/॥|Paused/);
  });
});
