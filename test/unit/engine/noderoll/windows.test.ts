// A node roll with maintenance windows (docs/semantics/windows.md#node-rolls), pass by pass through
// the controller's own pass (rollPass) with the clock given: outside a window nothing new starts (no
// roll, scale-up, cordon, node or zone move), a node already draining finishes; the status says when
// the next window opens (the Window condition, status.window, an Event) and the pass looks again
// then.

import { expect } from 'chai';
import type { NodeRoll, NodeRollSpec } from '../../../../src/api/noderoll.ts';
import { rollPass } from '../../../../src/engine/noderoll/pass.ts';
import type { RollPass } from '../../../../src/engine/noderoll/pass.ts';
import type { RollAction, RollNode, RollPod } from '../../../../src/engine/noderoll/types.ts';
import { defaultWindowsOf } from '../../../../src/engine/defaultwindows.ts';
import type { DefaultWindows } from '../../../../src/engine/defaultwindows.ts';

const at = (iso: string) => Date.parse(iso);
const node = (name: string): RollNode => ({
  metadata: { name, labels: { group: 'w' } },
  spec: {},
  status: { conditions: [{ type: 'Ready', status: 'True' }] },
});
const pod = (name: string, on: string): RollPod => ({
  metadata: { name, namespace: 'default' },
  spec: { nodeName: on },
  status: { phase: 'Running' },
});

/** Every day 10:00 to 11:00 UTC. */
const DAILY_TEN: NodeRollSpec = {
  nodeSelector: { matchLabels: { group: 'w' } },
  nodeGroup: 'workers',
  desiredNodes: 2,
  windows: [{ start: '10:00', duration: '1h' }],
};

interface World {
  roll: NodeRoll;
  nodes: RollNode[];
  pods: RollPod[];
  launched: number;
  log: string[];
}

function world(spec: NodeRollSpec = DAILY_TEN): World {
  return {
    roll: { metadata: { name: 'upgrade', generation: 1 }, spec },
    nodes: [node('old-0'), node('old-1')],
    pods: [pod('p0', 'old-0'), pod('p1', 'old-1')],
    launched: 0,
    log: [],
  };
}

/** One pass at `now`, its actions carried out at once (an evicted pod is gone, a terminated node leaves). */
function pass(w: World, now: number, defaultWindows?: DefaultWindows): RollPass {
  const p = rollPass({
    roll: w.roll,
    nodes: w.nodes,
    pods: w.pods,
    deployments: [],
    replicaSets: [],
    ...(defaultWindows ? { defaultWindows } : {}),
    now,
  });
  for (const a of p.actions as RollAction[]) {
    w.log.push('node' in a ? `${a.verb} ${a.node}` : a.verb);
    if (a.verb === 'scaleGroup') while (w.nodes.length < a.to) w.nodes.push(node(`new-${w.launched++}`));
    if (a.verb === 'cordon') w.nodes.find((n) => n.metadata.name === a.node)!.spec = { unschedulable: true };
    if (a.verb === 'evict') w.pods = w.pods.filter((x) => x.metadata.name !== a.pod);
    if (a.verb === 'terminate') w.nodes = w.nodes.filter((n) => n.metadata.name !== a.node);
    if (a.verb === 'addFinalizer')
      w.roll = { ...w.roll, metadata: { ...w.roll.metadata, finalizers: ['pacer.dev/noderoll'] } };
  }
  w.roll = { ...w.roll, status: p.status };
  return p;
}

const windowCondition = (p: RollPass) => p.status.conditions?.find((c) => c.type === 'Window');

describe('node roll: maintenance windows', () => {
  it('a roll created a minute before its window does nothing until the window opens, says when, and looks again then', () => {
    const w = world();
    const before = pass(w, at('2026-01-01T09:59:00Z'));
    expect(before.actions).to.deep.equal([]);
    expect(before.message).to.equal(
      'not started: outside its maintenance windows: the next window opens at 2026-01-01T10:00:00Z',
    );
    expect(before.requeueAfterMs, 'looks again when the window opens').to.equal(60_000);
    expect(before.status.window).to.deep.equal({ open: false, opensAt: '2026-01-01T10:00:00Z' });
    expect(windowCondition(before)).to.deep.include({
      status: 'False',
      reason: 'OutsideWindow',
      message:
        'outside its maintenance windows: the next window opens at 2026-01-01T10:00:00Z; nothing new is cordoned, drained or terminated until then',
    });
    expect(before.events.map((e) => e.reason)).to.deep.equal(['NodeRollOutsideWindow']);
    expect(before.status.originalNodes, 'nothing recorded: the roll has not started').to.equal(undefined);

    const opened = pass(w, at('2026-01-01T10:00:00Z'));
    expect(opened.actions.map((a) => a.verb)).to.deep.equal(['addFinalizer', 'holdRebalance', 'scaleGroup']);
    expect(windowCondition(opened)).to.deep.include({ status: 'True', reason: 'InsideWindow' });
    expect(opened.status.window).to.deep.equal({
      open: true,
      closesAt: '2026-01-01T11:00:00Z',
      opensAt: '2026-01-02T10:00:00Z',
    });
    expect(opened.events.map((e) => e.reason)).to.deep.equal(['NodeRollWindowOpened']);
  });

  it('the window closes while a node drains: that node is drained, terminated and gated; the next waits for the next window', () => {
    const w = world();
    let now = at('2026-01-01T10:58:00Z');
    // Into old-0's drain, inside the window.
    while (!w.roll.status?.nodes?.some((n) => n.step === 'Draining')) pass(w, (now += 1000));
    // Keep old-0's pod from going until the window has closed.
    w.pods = [...w.pods, pod('slow', 'old-0')];
    const log = w.log.length;
    now = at('2026-01-01T11:00:00Z');
    let last = pass(w, now);
    for (let i = 0; i < 10 && w.nodes.some((n) => n.metadata.name === 'old-0'); i++) last = pass(w, (now += 1000));
    for (let i = 0; i < 5; i++) last = pass(w, (now += 1000));
    expect(w.log.slice(log), 'old-0 finished after the window closed; old-1 not touched').to.deep.equal([
      'evict old-0',
      'terminate old-0',
    ]);
    expect(last.status.nodes?.map((n) => `${n.name} ${n.step}`)).to.deep.equal(['old-0 Done', 'old-1 Pending']);
    expect(last.message).to.equal(
      'nothing new starts: outside its maintenance windows: the next window opens at 2026-01-02T10:00:00Z',
    );
    expect(last.requeueAfterMs).to.equal(at('2026-01-02T10:00:00Z') - now);
    expect(last.status.phase).to.equal('Rolling');

    // The next day's window: old-1 goes, and the roll ends.
    now = at('2026-01-02T10:00:00Z');
    for (let i = 0; i < 10 && !w.roll.status?.done; i++) last = pass(w, (now += 1000));
    expect(w.roll.status?.done).to.equal(true);
    expect(w.log.filter((l) => l.startsWith('terminate'))).to.deep.equal(['terminate old-0', 'terminate old-1']);
    expect(last.status.window, 'a finished roll no longer reports its window').to.equal(undefined);
  });

  it("a blackout holds inside the window, and the condition's message names it", () => {
    const w = world({
      ...DAILY_TEN,
      blackouts: [{ start: '2026-01-01', end: '2026-01-01', reason: "New Year's Day" }],
    });
    const p = pass(w, at('2026-01-01T10:30:00Z'));
    expect(p.actions).to.deep.equal([]);
    expect(p.message).to.equal(
      "not started: blackout 2026-01-01 to 2026-01-01 (New Year's Day): the next window opens at 2026-01-02T10:00:00Z",
    );
  });

  it('frozen and outside its window: the freeze says so first, and the window is still reported', () => {
    const w = world();
    const p = rollPass({
      roll: w.roll,
      nodes: w.nodes,
      pods: w.pods,
      deployments: [],
      replicaSets: [],
      frozen: 'Pacer is frozen (incident 42)',
      now: at('2026-01-01T09:00:00Z'),
    });
    expect(p.message).to.equal('frozen: Pacer is frozen (incident 42)');
    expect(p.status.window).to.deep.equal({ open: false, opensAt: '2026-01-01T10:00:00Z' });
  });

  it('an invalid window is refused before anything is done: phase Invalid with the field path and the value', () => {
    const w = world({ ...DAILY_TEN, windows: [{ start: '25:00', duration: '1h', timeZone: 'Europe/Berlin' }] });
    const p = pass(w, at('2026-01-01T10:30:00Z'));
    expect([p.status.phase, p.message, p.actions]).to.deep.equal([
      'Invalid',
      'spec.windows[0].start: Invalid value: "25:00": must be a time of day as HH:MM on a 24-hour clock, from 00:00 to 23:59',
      [],
    ]);
  });

  describe("the cluster's default (the ConfigMap pacer-maintenance-windows)", () => {
    const NO_WINDOWS: NodeRollSpec = { ...DAILY_TEN, windows: undefined };
    const cm = (data: Record<string, string>) =>
      defaultWindowsOf({ metadata: { name: 'pacer-maintenance-windows', namespace: 'pacer-system' }, data });
    /** Every day 22:00 to 02:00 UTC. */
    const NIGHTS = cm({ windows: '- start: "22:00"\n  duration: 4h' });

    it("holds a roll without windows of its own until the default's window opens, naming the ConfigMap", () => {
      const w = world(NO_WINDOWS);
      const before = pass(w, at('2026-01-01T21:59:00Z'), NIGHTS);
      expect([before.actions, before.message, before.requeueAfterMs]).to.deep.equal([
        [],
        "not started: outside the cluster's default maintenance windows (configmap pacer-system/pacer-maintenance-windows): the next window opens at 2026-01-01T22:00:00Z",
        60_000,
      ]);
      expect(windowCondition(before)).to.deep.include({ status: 'False', reason: 'OutsideWindow' });
      const opened = pass(w, at('2026-01-01T22:00:00Z'), NIGHTS);
      expect(opened.actions.map((a) => a.verb)).to.deep.equal(['addFinalizer', 'holdRebalance', 'scaleGroup']);
      expect(opened.status.window).to.deep.include({ open: true, closesAt: '2026-01-02T02:00:00Z' });
    });

    it('a roll with windows of its own keeps them: the default does not hold it inside its own window', () => {
      const p = pass(world(), at('2026-01-01T10:30:00Z'), NIGHTS);
      expect(p.actions.map((a) => a.verb)).to.deep.equal(['addFinalizer', 'holdRebalance', 'scaleGroup']);
    });

    it('an invalid default holds every roll with a Warning once, the key, path and value in its condition; fixed, the roll goes on', () => {
      const broken = cm({ windows: '- start: "22:00"\n  duration: 4h\n  timeZone: Europe/Atlantis' });
      const w = world();
      const held = pass(w, at('2026-01-01T10:30:00Z'), broken);
      const why =
        'the cluster\'s default maintenance windows (configmap pacer-system/pacer-maintenance-windows) are invalid: data.windows[0].timeZone: Invalid value: "Europe/Atlantis": unknown time zone: must be a name of the IANA time zone database, such as "Europe/Berlin" or "UTC"';
      expect([held.actions, held.message, held.requeueAfterMs]).to.deep.equal([[], `not started: ${why}`, undefined]);
      expect(held.status.phase, 'the roll itself is valid').to.equal('Rolling');
      expect(held.status.window).to.deep.equal({ open: false });
      expect(windowCondition(held)).to.deep.include({
        status: 'False',
        reason: 'DefaultWindowsInvalid',
        message: `${why}; nothing new is cordoned, drained or terminated until it is fixed or deleted`,
      });
      expect(held.events.map((e) => [e.type, e.reason, e.message])).to.deep.equal([
        ['Warning', 'NodeRollDefaultWindowsInvalid', why],
      ]);
      const again = pass(w, at('2026-01-01T10:31:00Z'), broken);
      expect([again.actions, again.events], 'said once').to.deep.equal([[], []]);
      // The ConfigMap deleted (or mended): the roll's own window is open, and it starts.
      const mended = pass(w, at('2026-01-01T10:32:00Z'));
      expect(mended.actions.map((a) => a.verb)).to.deep.equal(['addFinalizer', 'holdRebalance', 'scaleGroup']);
      expect(windowCondition(mended)).to.deep.include({ status: 'True', reason: 'InsideWindow' });
    });
  });
});
