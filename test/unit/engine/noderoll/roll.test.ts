// The node roller's decision, pass by pass against a small world: a group of nodes over zones, pods
// on them, a scheduler that puts an evicted pod on a schedulable node, a group that launches and
// terminates nodes. The seed's roll: scale up once, wait for the new nodes, then for each original
// node terminate, wait for it to leave, wait for health; with the planned enhancements: cordon every
// old node first (each pod moves once) and drain before terminating; pause when a wait times out;
// resume and skip from the checkpoint.

import { expect } from 'chai';
import { decideRoll } from '../../../../src/engine/noderoll/roll.ts';
import { zonesInWords } from '../../../../src/engine/noderoll/zones.ts';
import { repairCheckpoint } from '../../../../src/engine/noderoll/checkpoint.ts';
import { applyRequests, resumeRoll, skipNode } from '../../../../src/engine/noderoll/requests.ts';
import type { NodeRollStatus } from '../../../../src/api/noderoll.ts';
import type {
  RollAction,
  RollCheckpoint,
  RollInput,
  RollNode,
  RollPod,
} from '../../../../src/engine/noderoll/types.ts';

const MIN = 60_000;
const TIMEOUTS = { scaleUp: 10 * MIN, drain: 10 * MIN, deregister: 10 * MIN, healthy: 10 * MIN };

interface World {
  nodes: RollNode[];
  pods: RollPod[];
  groupSize: number;
  launched: number;
  /** Every pod's node history, by pod name (a pod keeps its name when it moves, for counting moves). */
  moves: Map<string, string[]>;
  log: string[];
  /** Pods whose eviction the API server refuses (a PodDisruptionBudget that allows none): they stay. */
  refused?: Set<string>;
}

const node = (name: string, ready = true): RollNode => ({
  metadata: { name },
  spec: {},
  status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});

function world(nodes: number, podsPerNode: number): World {
  const w: World = { nodes: [], pods: [], groupSize: nodes, launched: 0, moves: new Map(), log: [] };
  for (let i = 0; i < nodes; i++) w.nodes.push(node(`old-${i}`));
  for (let i = 0; i < nodes; i++) {
    for (let j = 0; j < podsPerNode; j++) {
      const name = `pod-${i}-${j}`;
      w.pods.push({
        metadata: { name, namespace: 'default' },
        spec: { nodeName: `old-${i}` },
        status: { phase: 'Running' },
      });
      w.moves.set(name, [`old-${i}`]);
    }
  }
  return w;
}

/** Carries actions out; the group launches what it was scaled to; evicted pods go to the first schedulable node. */
function apply(w: World, actions: readonly RollAction[]): void {
  for (const a of actions) {
    w.log.push(
      a.verb === 'evict'
        ? `evict ${a.pod}`
        : a.verb === 'scaleGroup'
          ? `scale ${a.to}`
          : 'node' in a
            ? `${a.verb} ${a.node}`
            : a.verb,
    );
    if (a.verb === 'scaleGroup') w.groupSize = a.to;
    if (a.verb === 'cordon') w.nodes.find((n) => n.metadata.name === a.node)!.spec = { unschedulable: true };
    if (a.verb === 'uncordon') w.nodes.find((n) => n.metadata.name === a.node)!.spec = {};
    if (a.verb === 'terminate') {
      w.nodes = w.nodes.filter((n) => n.metadata.name !== a.node);
      if (a.shrink) w.groupSize--;
    }
    if (a.verb === 'evict' && !w.refused?.has(a.pod)) {
      const target = w.nodes.filter((n) => !n.spec?.unschedulable && n.status?.conditions?.[0]?.status === 'True');
      const pod = w.pods.find((p) => p.metadata.name === a.pod)!;
      const to = target[w.moves.size % Math.max(1, target.length)]?.metadata.name;
      pod.spec = { nodeName: to };
      w.moves.get(a.pod)!.push(to ?? '(pending)');
    }
  }
  // The group launches nodes up to its size (ready at once in this world).
  while (w.nodes.length < w.groupSize) w.nodes.push(node(`new-${w.launched++}`));
}

function input(w: World, cp: RollCheckpoint, now: number, o: Partial<RollInput> = {}): RollInput {
  return {
    mode: 'Replace',
    nodeGroup: 'workers',
    desiredNodes: 3,
    nodesAtATime: 1,
    timeoutsMs: TIMEOUTS,
    paused: false,
    checkpoint: cp,
    nodes: w.nodes,
    pods: w.pods,
    unhealthy: [],
    budget: () => undefined,
    now,
    ...o,
  };
}

/** Passes until the roll is done, paused or `max`; the checkpoint after each. */
function roll(
  w: World,
  cp: RollCheckpoint = {},
  o: Partial<RollInput> = {},
  max = 100,
  start = 0,
  stepMs = 1000,
): { cp: RollCheckpoint; passes: number; message: string } {
  let now = start;
  let message = '';
  for (let i = 0; i < max; i++) {
    const d = decideRoll(input(w, cp, now, o));
    apply(w, d.actions);
    cp = d.checkpoint;
    message = d.message;
    if (cp.done || cp.paused) return { cp, passes: i + 1, message };
    now += stepMs;
  }
  return { cp, passes: max, message };
}

describe("node roll: the roller's decision (Replace, pass by pass)", () => {
  it('scales up once, waits for the new nodes, cordons every old node, then drains and terminates them one at a time', () => {
    const w = world(3, 2);
    const out = roll(w);
    expect(out.cp.done).to.equal(true);
    expect(out.message).to.equal('every original node has been replaced; zones (no zone) 3 (balanced)');
    expect(w.log.filter((l) => l.startsWith('scale'))).to.deep.equal(['scale 6']);
    expect(
      w.log.filter((l) => l.endsWith('Rebalance')),
      "the group's own rebalancing held off from the start to the end",
    ).to.deep.equal(['holdRebalance', 'releaseRebalance']);
    expect([w.log[0], w.log[w.log.length - 1]]).to.deep.equal(['holdRebalance', 'releaseRebalance']);
    expect(w.nodes.map((n) => n.metadata.name).sort()).to.deep.equal(['new-0', 'new-1', 'new-2']);
    const firstEvict = w.log.findIndex((l) => l.startsWith('evict'));
    expect(
      w.log.slice(0, firstEvict).filter((l) => l.startsWith('cordon')),
      'every old node cordoned before the first eviction',
    ).to.deep.equal(['cordon old-0', 'cordon old-1', 'cordon old-2']);
    expect(w.log.filter((l) => l.startsWith('terminate'))).to.deep.equal([
      'terminate old-0',
      'terminate old-1',
      'terminate old-2',
    ]);
    for (const [pod, path] of w.moves)
      expect(path, `${pod} moved once, to a new node`)
        .to.have.length(2)
        .and.satisfy((p: string[]) => p[1].startsWith('new-'));
    expect(w.groupSize, 'the group ends at the desired count').to.equal(3);
  });

  it("cordonFirst false (the seed's first attempt): each node cordoned only when its drain begins, so pods may land on old nodes and move again", () => {
    const w = world(3, 2);
    const out = roll(w, {}, { cordonFirst: false });
    expect(out.cp.done).to.equal(true);
    const firstEvict = w.log.findIndex((l) => l.startsWith('evict'));
    expect(w.log.slice(0, firstEvict).filter((l) => l.startsWith('cordon'))).to.deep.equal(['cordon old-0']);
    const moves = [...w.moves.values()].map((path) => path.length - 1);
    expect(Math.max(...moves), 'some pod moved more than once').to.be.greaterThan(1);
  });

  it('never more nodes in flight than nodesAtATime', () => {
    for (const atATime of [1, 2]) {
      const w = world(4, 1);
      let cp: RollCheckpoint = {};
      let most = 0;
      for (let now = 0; !cp.done && now < 200_000; now += 1000) {
        const d = decideRoll(input(w, cp, now, { desiredNodes: 4, nodesAtATime: atATime }));
        apply(w, d.actions);
        cp = d.checkpoint;
        most = Math.max(
          most,
          cp.nodes!.filter((n) => n.step === 'Draining' || n.step === 'Terminating' || n.step === 'Deregistered')
            .length,
        );
      }
      expect(cp.done, `nodesAtATime ${atATime}`).to.equal(true);
      expect(most, `nodesAtATime ${atATime}`).to.equal(atATime);
    }
  });

  it('waits for the health gate before each next node, and pauses when it does not come back in time', () => {
    const w = world(2, 1);
    const sickness = { unhealthy: ['deployment default/web: 1 of 3 available'] };
    let cp: RollCheckpoint = {};
    let now = 0;
    // Up to old-0's termination (healthy so far).
    while (!cp.nodes?.some((n) => n.name === 'old-0' && n.step === 'Terminating')) {
      const d = decideRoll(input(w, cp, (now += 1000)));
      apply(w, d.actions);
      cp = d.checkpoint;
    }
    // old-0 has left; a workload is not healthy: the next node waits.
    const sick = decideRoll(input(w, cp, (now += 1000), sickness));
    expect(sick.checkpoint.nodes!.map((n) => `${n.name}:${n.step}`)).to.deep.equal([
      'old-0:Deregistered',
      'old-1:Pending',
    ]);
    expect(sick.message).to.equal('after old-0, waiting for: deployment default/web: 1 of 3 available');
    cp = sick.checkpoint;
    const late = decideRoll(input(w, cp, now + TIMEOUTS.healthy, sickness));
    expect(late.checkpoint.paused).to.deep.include({ wait: 'healthy', node: 'old-0' });
    expect(late.message).to.equal('paused: after old-0: deployment default/web: 1 of 3 available');
    // Paused: nothing more, even once healthy, until resumed.
    expect(decideRoll(input(w, late.checkpoint, 5_000 + TIMEOUTS.healthy + 1000)).actions).to.deep.equal([]);
    const resumed = roll(w, resumeRoll(late.checkpoint, 800_000), {}, 100, 800_000);
    expect(resumed.cp.done).to.equal(true);
  });

  it('a scale-up that does not bring its nodes pauses, naming what is missing', () => {
    const w = world(2, 1);
    const first = decideRoll(input(w, {}, 0));
    expect(first.actions).to.deep.equal([
      { verb: 'holdRebalance', group: 'workers' },
      { verb: 'scaleGroup', group: 'workers', to: 5 },
    ]);
    // The group does not launch anything (capacity exhausted).
    const late = decideRoll(input(w, first.checkpoint, TIMEOUTS.scaleUp));
    expect(late.checkpoint.paused).to.deep.equal({
      wait: 'scaleUp',
      message: '0 of 3 new nodes registered and Ready after the scale-up',
    });
  });

  it('a drain a budget blocks pauses with the node and the reason; skip goes on with the others and comes back to it', () => {
    const w = world(3, 1);
    const blocked = (pod: RollPod) =>
      pod.metadata.name === 'pod-0-0'
        ? { workload: 'deployment default/db', allowed: 0, why: 'deployment default/db would fall below 2 available' }
        : undefined;
    const out = roll(w, {}, { budget: blocked }, 100, 0, MIN);
    expect(out.cp.paused).to.deep.include({ wait: 'drain', node: 'old-0' });
    expect(out.message).to.match(
      /^paused: node old-0: 1 pod\(s\) not evicted after \d+ s \(deployment default\/db would fall below 2 available\)$/,
    );
    const skipped = skipNode(out.cp, 'old-0', 1_000_000);
    expect(skipped.error).to.equal(undefined);
    // The others roll; old-0 waits at the end, still blocked.
    const rest = roll(w, skipped.checkpoint!, { budget: blocked }, 100, 1_000_000, MIN);
    expect(rest.cp.nodes!.filter((n) => n.step === 'Done').map((n) => n.name)).to.deep.equal(['old-1', 'old-2']);
    expect(rest.cp.paused).to.deep.include({ wait: 'drain', node: 'old-0' });
    // The budget relaxed: resume finishes.
    const done = roll(w, resumeRoll(rest.cp, 10_000_000), {}, 100, 10_000_000);
    expect(done.cp.done).to.equal(true);
  });

  it("evictions in one pass count against their workload's budget: one of two pods of a Deployment that may lose one", () => {
    const w = world(2, 2);
    const budget = (pod: RollPod) => ({
      workload: 'deployment default/web',
      allowed: pod.spec?.nodeName === 'old-0' ? 1 : 2,
    });
    let cp: RollCheckpoint = {};
    let evicts: string[] = [];
    for (let now = 0; evicts.length === 0 && now < 60_000; now += 1000) {
      const d = decideRoll(input(w, cp, now, { budget }));
      evicts = d.actions.filter((a) => a.verb === 'evict').map((a) => (a as { pod: string }).pod);
      apply(w, d.actions);
      cp = d.checkpoint;
    }
    expect(evicts).to.deep.equal(['pod-0-0']);
  });

  it("skip refuses a node that is not the roll's, or already terminated (in place: drained)", () => {
    const cp: RollCheckpoint = {
      originalNodes: ['a', 'b', 'c'],
      nodes: [
        { name: 'a', step: 'Terminating', since: 0 },
        { name: 'b', step: 'Pending', since: 0 },
        { name: 'c', step: 'Drained', since: 0 },
      ],
    };
    expect(skipNode(cp, 'z', 0).error).to.equal("node z is not one of the roll's original nodes");
    expect(skipNode(cp, 'a', 0).error).to.equal('node a is already being terminated');
    expect(skipNode(cp, 'c', 0).error).to.equal('node c is already drained (in place)');
  });

  it('resumes from its checkpoint after a restart: the group is never scaled twice, and the roll finishes', () => {
    const w = world(3, 2);
    let cp: RollCheckpoint = {};
    // Stop after a few passes, "restart" (a new decision from the checkpoint as stored), again and again.
    for (let i = 0; i < 30 && !cp.done; i++)
      cp = roll(w, JSON.parse(JSON.stringify(cp)) as RollCheckpoint, {}, 3, i * 10_000).cp;
    expect(cp.done).to.equal(true);
    expect(w.log.filter((l) => l.startsWith('scale'))).to.deep.equal(['scale 6']);
    expect(
      w.log.filter((l) => l.endsWith('Rebalance')),
      "the group's own rebalancing held off from the start to the end",
    ).to.deep.equal(['holdRebalance', 'releaseRebalance']);
    expect([w.log[0], w.log[w.log.length - 1]]).to.deep.equal(['holdRebalance', 'releaseRebalance']);
  });

  it('Drain: no scale-up; each node cordoned and drained in turn, the group keeps its size', () => {
    const w = world(3, 1);
    const out = roll(w, {}, { mode: 'Drain' });
    expect(out.cp.done).to.equal(true);
    expect(w.log.filter((l) => l.startsWith('scale'))).to.deep.equal([]);
    expect(w.log.filter((l) => l.startsWith('cordon') || l.startsWith('terminate'))).to.deep.equal([
      'cordon old-0',
      'terminate old-0',
      'cordon old-1',
      'terminate old-1',
      'cordon old-2',
      'terminate old-2',
    ]);
    expect(w.groupSize).to.equal(3);
  });

  describe('Drain in place (no spec.nodeGroup): each node cordoned, drained and uncordoned; nothing terminated, no group touched', () => {
    it('the whole roll: cordon, evict, uncordon, node after node, every node schedulable at the end', () => {
      const w = world(3, 1);
      const out = roll(w, {}, { mode: 'Drain', nodeGroup: '', desiredNodes: 0 });
      expect(out.cp.done).to.equal(true);
      expect(out.message).to.equal('every original node has been drained in place and uncordoned');
      expect(w.log.filter((l) => !l.startsWith('evict'))).to.deep.equal([
        'cordon old-0',
        'uncordon old-0',
        'cordon old-1',
        'uncordon old-1',
        'cordon old-2',
        'uncordon old-2',
      ]);
      // In place a pod may land on a node not yet drained and move again with it.
      expect(w.pods.every((p) => p.spec?.nodeName?.startsWith('old-'))).to.equal(true);
      expect(w.nodes.map((n) => [n.metadata.name, n.spec?.unschedulable ?? false])).to.deep.equal([
        ['old-0', false],
        ['old-1', false],
        ['old-2', false],
      ]);
      expect(out.cp.nodes!.map((n) => n.step)).to.deep.equal(['Done', 'Done', 'Done']);
    });

    it('a node cordoned before the roll (by someone else) is drained and left cordoned; the others are uncordoned', () => {
      const w = world(2, 1);
      w.nodes[1]!.spec = { unschedulable: true };
      const out = roll(w, {}, { mode: 'Drain', nodeGroup: '', desiredNodes: 0 });
      expect(out.cp.done).to.equal(true);
      expect(out.cp.cordonedBefore).to.deep.equal(['old-1']);
      expect(out.message).to.equal(
        'every original node has been drained in place and uncordoned (old-1 left cordoned, as before the roll)',
      );
      expect(w.log.filter((l) => !l.startsWith('evict'))).to.deep.equal([
        'cordon old-0',
        'uncordon old-0',
        'cordon old-1',
      ]);
      expect(w.nodes.map((n) => [n.metadata.name, n.spec?.unschedulable ?? false])).to.deep.equal([
        ['old-0', false],
        ['old-1', true],
      ]);
      expect(w.pods[1]!.spec?.nodeName, "old-1's pod went to old-0, drained and back in service").to.equal('old-0');
    });

    it('an uncordoned node waits for the health gate (step Drained) before the next is cordoned', () => {
      const w = world(2, 1);
      const o = { mode: 'Drain' as const, nodeGroup: '', desiredNodes: 0 };
      let cp: RollCheckpoint = {};
      for (let now = 0; !cp.nodes?.some((n) => n.step === 'Drained'); now += 1000) {
        const d = decideRoll(input(w, cp, now, o));
        apply(w, d.actions);
        cp = d.checkpoint;
      }
      const waiting = decideRoll(
        input(w, cp, 10_000, { ...o, unhealthy: ['deployment default/web: 0 of 1 available'] }),
      );
      expect(waiting.actions).to.deep.equal([]);
      expect(waiting.message).to.equal('after old-0, waiting for: deployment default/web: 0 of 1 available');
      expect(waiting.checkpoint.nodes!.map((n) => n.step)).to.deep.equal(['Drained', 'Pending']);
      const healthy = decideRoll(input(w, cp, 11_000, o));
      expect(healthy.checkpoint.nodes!.map((n) => n.step)).to.deep.equal(['Done', 'Pending']);
      const next = decideRoll(input(w, healthy.checkpoint, 12_000, o));
      expect(next.actions[0]).to.deep.equal({ verb: 'cordon', node: 'old-1' });
      expect(next.actions.slice(1).map((a) => ('node' in a ? `${a.verb} ${a.node}` : a.verb))).to.include(
        'evict old-1',
      );
    });

    it('a drain a PodDisruptionBudget blocks (the API refuses the eviction) pauses with DrainTimeout; skipped, the node stays cordoned and the others go on; resumed once the budget is relaxed, it finishes', () => {
      const w = world(3, 1);
      w.refused = new Set(['pod-1-0']);
      const o = { mode: 'Drain' as const, nodeGroup: '', desiredNodes: 0 };
      const out = roll(w, {}, o, 100, 0, MIN);
      expect(out.cp.paused).to.deep.equal({
        node: 'old-1',
        wait: 'drain',
        message: 'node old-1: 1 pod(s) not evicted after 600 s',
      });
      const skipped = skipNode(out.cp, 'old-1', 1_000_000);
      expect(skipped.error).to.equal(undefined);
      const rest = roll(w, skipped.checkpoint!, o, 100, 1_000_000, MIN);
      expect(rest.cp.nodes!.map((n) => [n.name, n.step])).to.deep.equal([
        ['old-0', 'Done'],
        ['old-1', 'Draining'],
        ['old-2', 'Done'],
      ]);
      expect(rest.cp.paused).to.deep.include({ wait: 'drain', node: 'old-1' });
      expect(w.nodes.find((n) => n.metadata.name === 'old-1')!.spec, 'the skipped node stayed cordoned').to.deep.equal({
        unschedulable: true,
      });
      w.refused.clear();
      const done = roll(w, resumeRoll(rest.cp, 10_000_000), o, 100, 10_000_000);
      expect(done.cp.done).to.equal(true);
      expect(w.nodes.every((n) => !n.spec?.unschedulable)).to.equal(true);
      expect(
        w.log.filter((l) => /^(cordon|uncordon|terminate|scale|holdRebalance|releaseRebalance)/.test(l)),
      ).to.deep.equal([
        'cordon old-0',
        'uncordon old-0',
        'cordon old-1',
        'cordon old-2',
        'uncordon old-2',
        'cordon old-1',
        'uncordon old-1',
      ]);
    });
  });

  it('at the end the zones are said, with the moves that would balance them', () => {
    const inZone = (name: string, zone: string): RollNode => ({
      ...node(name),
      metadata: { name, labels: { 'topology.kubernetes.io/zone': zone } },
    });
    expect(zonesInWords([inZone('n1', 'a'), inZone('n2', 'b'), inZone('n3', 'c')])).to.equal(
      'zones a 1, b 1, c 1 (balanced)',
    );
    expect(zonesInWords([inZone('n1', 'a'), inZone('n2', 'a'), inZone('n3', 'a'), inZone('n4', 'b')])).to.equal(
      'zones a 3, b 1: 1 move(s) would balance them (a → b)',
    );
  });

  it("the operator's requests: skip a blocked node (the pause on it lifted), resume; repeated, they change nothing more", () => {
    const paused: RollCheckpoint = {
      originalNodes: ['a', 'b'],
      nodes: [
        { name: 'a', step: 'Draining', since: 0 },
        { name: 'b', step: 'Pending', since: 0 },
      ],
      paused: { node: 'a', wait: 'drain', message: 'node a: 1 pod(s) not evicted' },
    };
    const skipped = applyRequests(paused, { 'pacer.dev/skip': 'a' }, 5000);
    expect(skipped.handled).to.deep.equal(['pacer.dev/skip']);
    expect(skipped.checkpoint).to.deep.include({ skipped: ['a'] });
    expect(skipped.checkpoint.paused).to.equal(undefined);
    expect(skipped.checkpoint.nodes![0]).to.deep.equal({ name: 'a', step: 'Pending', since: 5000 });
    expect(applyRequests(skipped.checkpoint, { 'pacer.dev/skip': 'a' }, 6000).checkpoint.skipped).to.deep.equal(['a']);
    const refused = applyRequests(paused, { 'pacer.dev/skip': 'zz' }, 5000);
    expect(refused.errors).to.deep.equal(["node zz is not one of the roll's original nodes"]);
    const resumed = applyRequests(paused, { 'pacer.dev/resume': '2026-11-24T09:00:00Z' }, 7000);
    expect(resumed.checkpoint.paused).to.equal(undefined);
    expect(resumed.checkpoint.nodes![0].since, 'the wait starts its clock again').to.equal(7000);
    expect(applyRequests(resumed.checkpoint, { 'pacer.dev/resume': 'x' }, 8000).checkpoint).to.deep.equal(
      resumed.checkpoint,
    );
  });

  it('paused by the operator (spec.paused): nothing is done', () => {
    const w = world(2, 1);
    const d = decideRoll(input(w, {}, 0, { paused: true }));
    expect([d.actions, d.message]).to.deep.equal([[], 'paused by an operator (spec.paused)']);
  });

  it("zones left unbalanced by the roll (the appendix's x−1, x, x+1): one move, a node launched then one of the fullest zone drained and terminated; balanced at the end", () => {
    // Originals a 1, b 2, c 2; 3 new ones, each launched in the emptiest zone (ties by name): a, a, b.
    const zoned = (name: string, zone: string): RollNode => ({
      ...node(name),
      metadata: { name, labels: { 'topology.kubernetes.io/zone': zone } },
    });
    const w = world(0, 0);
    w.nodes = [
      zoned('old-a1', 'a'),
      zoned('old-b1', 'b'),
      zoned('old-b2', 'b'),
      zoned('old-c1', 'c'),
      zoned('old-c2', 'c'),
    ];
    w.groupSize = 5;
    w.pods = w.nodes.map((n, i) => ({
      metadata: { name: `pod-${i}`, namespace: 'default' },
      spec: { nodeName: n.metadata.name },
      status: { phase: 'Running' },
    }));
    for (const p of w.pods) w.moves.set(p.metadata.name!, [p.spec!.nodeName!]);
    const launchIn = () => {
      const count = (z: string) =>
        w.nodes.filter((n) => n.metadata.labels?.['topology.kubernetes.io/zone'] === z).length;
      while (w.nodes.length < w.groupSize) {
        const zone = ['a', 'b', 'c'].sort((x, y) => count(x) - count(y) || x.localeCompare(y))[0];
        w.nodes.push(zoned(`new-${w.launched++}-${zone}`, zone));
      }
    };
    let cp: RollCheckpoint = {};
    let message = '';
    for (let now = 0; !cp.done && now < 500_000; now += 1000) {
      const d = decideRoll(input(w, cp, now));
      const launched = w.launched;
      apply(w, d.actions);
      // Undo the generic world's launches: this group places them by zone.
      w.nodes = w.nodes.filter((n) => !/^new-\d+$/.test(n.metadata.name ?? ''));
      w.launched = launched;
      launchIn();
      cp = d.checkpoint;
      message = d.message;
    }
    expect(cp.done).to.equal(true);
    const zones = w.nodes.map((n) => n.metadata.labels!['topology.kubernetes.io/zone']).sort();
    expect(zones, 'balanced: one node in each zone').to.deep.equal(['a', 'b', 'c']);
    expect(cp.zoneMoves).to.deep.include({ planned: 1, moved: ['new-1-a'] });
    expect(w.log.filter((l) => l.startsWith('scale'))).to.deep.equal(['scale 8', 'scale 4']);
    expect(w.log.filter((l) => l.startsWith('terminate')).pop()).to.equal('terminate new-1-a');
    expect(message).to.equal(
      'every original node has been replaced; zones a 1, b 1, c 1 (balanced); 1 zone move(s) made',
    );
  });

  it('frozen (the freeze switch): nothing is done and no wait times out; lifted, the waits start their clocks again and the roll finishes', () => {
    const w = world(2, 1);
    const budget = () => ({
      workload: 'deployment default/web',
      allowed: 0,
      why: 'deployment default/web would fall below its minimum of 1 available (1 available)',
    });
    // Into old-0's drain, which a budget holds.
    let cp: RollCheckpoint = {};
    let now = 0;
    while (!cp.nodes?.some((n) => n.step === 'Draining')) {
      const d = decideRoll(input(w, cp, (now += 1000), { budget }));
      apply(w, d.actions);
      cp = d.checkpoint;
    }
    const frozen = decideRoll(input(w, cp, (now += 1000), { frozen: 'Pacer is frozen (incident 42)' }));
    expect([frozen.actions, frozen.message, frozen.checkpoint.frozenAt]).to.deep.equal([
      [],
      'frozen: Pacer is frozen (incident 42)',
      now,
    ]);
    // Long past the drain timeout, still frozen: no pause.
    const later = decideRoll(
      input(w, frozen.checkpoint, now + 3 * TIMEOUTS.drain, { frozen: 'Pacer is frozen (incident 42)' }),
    );
    expect([later.actions, later.checkpoint.paused, later.checkpoint.frozenAt]).to.deep.equal([[], undefined, now]);
    // Lifted: the drain's clock starts again (no pause for the time frozen), and the roll goes on.
    const thawAt = now + 3 * TIMEOUTS.drain + 1000;
    const thawed = decideRoll(input(w, later.checkpoint, thawAt));
    expect(thawed.checkpoint.frozenAt).to.equal(undefined);
    expect(thawed.checkpoint.paused).to.equal(undefined);
    expect(thawed.checkpoint.nodes!.find((n) => n.step === 'Draining')!.since).to.equal(thawAt);
    expect(thawed.actions.map((a) => a.verb)).to.include('evict');
    expect(roll(w, thawed.checkpoint, {}, 100, thawAt + 1000).cp.done).to.equal(true);
  });

  describe('graceful drains: a node is terminated only once every pod evicted from it is gone (as kubectl drain waits)', () => {
    const T0 = Date.parse('2026-11-26T10:00:00Z');
    const iso = (ms: number) => new Date(ms).toISOString();
    /** old-0 cordoned and draining since T0, one pod on it in the state given; old-1 waits. */
    const draining = (
      pod: RollPod['metadata'],
      status: RollPod['status'] = { phase: 'Running' },
      extra: RollPod[] = [],
    ) => {
      const w = world(2, 0);
      w.groupSize = 2;
      w.pods = [{ metadata: { namespace: 'default', ...pod }, spec: { nodeName: 'old-0' }, status }, ...extra];
      for (const p of w.pods) w.moves.set(p.metadata.name!, ['old-0']);
      const cp: RollCheckpoint = {
        originalNodes: ['old-0', 'old-1'],
        nodes: [
          { name: 'old-0', step: 'Draining', since: T0 },
          { name: 'old-1', step: 'Pending', since: T0 },
        ],
      };
      return { w, cp };
    };
    const rows: Array<[string, RollPod['metadata'], RollPod['status'], number, string[], string]> = [
      [
        'a pod not yet evicted is evicted; the node stays',
        { name: 'web-1' },
        { phase: 'Running' },
        T0 + 1000,
        ['evict web-1'],
        'draining old-0: 1 pod(s) left',
      ],
      [
        'a pod evicted and still stopping within its grace period: the node stays, no action',
        { name: 'web-1', deletionTimestamp: iso(T0 + 30_000), deletionGracePeriodSeconds: 30 },
        { phase: 'Running' },
        T0 + 1000,
        [],
        'draining old-0: waiting for 1 evicted pod(s) to stop',
      ],
      [
        'a pod its node reports terminated (Succeeded) no longer holds the node: it is terminated',
        { name: 'web-1', deletionTimestamp: iso(T0 + 30_000), deletionGracePeriodSeconds: 30 },
        { phase: 'Succeeded' },
        T0 + 1000,
        ['terminate old-0'],
        'terminating old-0',
      ],
      [
        'a pod reported Failed likewise',
        { name: 'web-1', deletionTimestamp: iso(T0 + 30_000), deletionGracePeriodSeconds: 30 },
        { phase: 'Failed' },
        T0 + 1000,
        ['terminate old-0'],
        'terminating old-0',
      ],
      [
        "a DaemonSet's pod stopping does not hold the node (a drain leaves those alone)",
        { name: 'agent-1', deletionTimestamp: iso(T0), ownerReferences: [{ kind: 'DaemonSet', controller: true }] },
        { phase: 'Running' },
        T0 + 1000,
        ['terminate old-0'],
        'terminating old-0',
      ],
    ];
    for (const [what, pod, status, now, log, message] of rows) {
      it(what, () => {
        const { w, cp } = draining(pod, status);
        const d = decideRoll(input(w, cp, now, { mode: 'Drain' }));
        apply(w, d.actions);
        expect(w.log).to.deep.equal(log);
        expect(d.message).to.equal(message);
        expect(d.checkpoint.paused).to.equal(undefined);
      });
    }

    it('past the drain timeout a pod still stopping pauses the roll (DrainTimeout), naming the pod that ignored its grace period', () => {
      const { w, cp } = draining(
        { name: 'web-1', deletionTimestamp: iso(T0 + 5000), deletionGracePeriodSeconds: 5 },
        { phase: 'Running' },
        [
          {
            metadata: {
              name: 'web-2',
              namespace: 'default',
              deletionTimestamp: iso(T0 + TIMEOUTS.drain + 20_000),
              deletionGracePeriodSeconds: 700,
            },
            spec: { nodeName: 'old-0' },
            status: { phase: 'Running' },
          },
        ],
      );
      const d = decideRoll(input(w, cp, T0 + TIMEOUTS.drain, { mode: 'Drain' }));
      expect(d.actions).to.deep.equal([]);
      expect(d.checkpoint.paused).to.deep.equal({
        node: 'old-0',
        wait: 'drain',
        message:
          'node old-0: 2 evicted pod(s) not gone after 600 s: default/web-1 (still running 595 s after its grace period ended), default/web-2 (grace period 700 s)',
      });
    });

    it('a pause on one node records the steps the pass gave the others: a node terminated in that pass is Terminating, as its action says', () => {
      // nodesAtATime 2: old-0 is empty (terminated now), old-1's pod has been stopping past the drain timeout.
      const w = world(2, 0);
      w.groupSize = 2;
      w.pods = [
        {
          metadata: {
            name: 'web-1',
            namespace: 'default',
            deletionTimestamp: iso(T0 + 5000),
            deletionGracePeriodSeconds: 5,
          },
          spec: { nodeName: 'old-1' },
          status: { phase: 'Running' },
        },
      ];
      const cp: RollCheckpoint = {
        originalNodes: ['old-0', 'old-1'],
        nodes: [
          { name: 'old-0', step: 'Draining', since: T0 },
          { name: 'old-1', step: 'Draining', since: T0 },
        ],
      };
      const d = decideRoll(input(w, cp, T0 + TIMEOUTS.drain, { mode: 'Drain', nodesAtATime: 2 }));
      expect(d.actions).to.deep.equal([{ verb: 'terminate', group: 'workers', node: 'old-0', shrink: false }]);
      expect(d.checkpoint.paused).to.deep.include({ node: 'old-1', wait: 'drain' });
      expect(d.checkpoint.nodes!.map((n) => `${n.name}:${n.step}`)).to.deep.equal([
        'old-0:Terminating',
        'old-1:Draining',
      ]);
    });

    it('the whole roll: pods take 3 passes to stop after an eviction; no node is terminated while a pod it held is stopping', () => {
      const w = world(3, 2);
      let cp: RollCheckpoint = {};
      /** The pods being evicted: where they were, and the pass they stop at. */
      const stopping = new Map<string, { from: string; until: number }>();
      for (let pass = 0; !cp.done && pass < 200; pass++) {
        const now = pass * 1000;
        // A pod evicted stays on its node, terminating, for 3 passes; then it starts on a new node.
        for (const [name, s] of stopping) {
          if (pass < s.until) continue;
          const pod = w.pods.find((p) => p.metadata.name === name)!;
          delete pod.metadata.deletionTimestamp;
          const to = w.nodes.find((n) => !n.spec?.unschedulable)!.metadata.name!;
          pod.spec = { nodeName: to };
          w.moves.get(name)!.push(to);
          stopping.delete(name);
        }
        const d = decideRoll(input(w, cp, now));
        for (const a of d.actions) {
          if (a.verb === 'terminate') {
            const held = [...stopping].filter(([, s]) => s.from === a.node).map(([name]) => name);
            expect(held, `pass ${pass}: ${a.node} terminated while ${held.join(', ')} stopped`).to.deep.equal([]);
          }
          if (a.verb === 'evict') {
            const pod = w.pods.find((p) => p.metadata.name === a.pod)!;
            pod.metadata.deletionTimestamp = iso(now + 30_000);
            stopping.set(a.pod, { from: a.node, until: pass + 3 });
          }
        }
        apply(
          w,
          d.actions.filter((a) => a.verb !== 'evict'),
        );
        cp = d.checkpoint;
      }
      expect(cp.done).to.equal(true);
      expect(w.log.filter((l) => l.startsWith('terminate'))).to.deep.equal([
        'terminate old-0',
        'terminate old-1',
        'terminate old-2',
      ]);
      for (const [pod, path] of w.moves) expect(path, `${pod} moved once`).to.have.length(2);
    });
  });

  describe('a checkpoint edited or partly deleted by hand is repaired, and says so', () => {
    const T = '2026-01-01T00:00:00Z';
    const rows: Array<[string, unknown, string[], Array<[string, string]>]> = [
      [
        'intact: nothing to repair',
        {
          originalNodes: ['a', 'b'],
          nodes: [
            { name: 'a', step: 'Done', since: T },
            { name: 'b', step: 'Draining', since: T },
          ],
        },
        [],
        [
          ['a', 'Done'],
          ['b', 'Draining'],
        ],
      ],
      [
        'the node steps deleted: every node Pending again',
        { originalNodes: ['a', 'b'] },
        ['status.nodes: node a had no step: Pending again', 'status.nodes: node b had no step: Pending again'],
        [
          ['a', 'Pending'],
          ['b', 'Pending'],
        ],
      ],
      [
        'an unknown step',
        { originalNodes: ['a'], nodes: [{ name: 'a', step: 'Melting', since: T }] },
        ['status.nodes: node a had an unknown step "Melting": Pending again'],
        [['a', 'Pending']],
      ],
      [
        'a step of a node not in the roll is dropped',
        {
          originalNodes: ['a'],
          nodes: [
            { name: 'a', step: 'Done', since: T },
            { name: 'zz', step: 'Draining', since: T },
          ],
        },
        [],
        [['a', 'Done']],
      ],
      [
        'duplicates and junk in the original nodes',
        { originalNodes: ['a', 'a', 7], nodes: [{ name: 'a', step: 'Done', since: T }] },
        ['status.originalNodes: not a list of distinct node names'],
        [['a', 'Done']],
      ],
      [
        'a scale-up size that is no size still counts as asked for',
        { originalNodes: ['a'], nodes: [{ name: 'a', step: 'Pending', since: T }], scaledUpTo: 'six' },
        ['status.scaledUpTo: "six" is not a group size: the scale-up counts as asked for'],
        [['a', 'Pending']],
      ],
    ];
    for (const [what, status, repaired, steps] of rows) {
      it(what, () => {
        const r = repairCheckpoint(status as NodeRollStatus, 0);
        expect(r.repaired).to.deep.equal(repaired);
        expect(r.checkpoint.nodes?.map((n) => [n.name, n.step])).to.deep.equal(steps);
      });
    }

    it('a repaired checkpoint never scales the group again', () => {
      const w = world(1, 0);
      const d = decideRoll(
        input(
          w,
          repairCheckpoint({ originalNodes: ['old-0'], scaledUpTo: 'six' } as unknown as NodeRollStatus, 0).checkpoint,
          0,
        ),
      );
      expect(d.actions.filter((a) => a.verb === 'scaleGroup')).to.deep.equal([]);
    });
  });
});
