import { expect } from 'chai';
import {
  EventRecorder,
  eventTime,
  COMBINED_PREFIX,
  EVENT_SOURCE_COMPONENT,
  MAX_QUEUED_EVENTS,
  REPORTING_CONTROLLER,
  SPAM_BURST,
} from '../../../src/manager/events.ts';
import type { CoreEvent, EventSink } from '../../../src/manager/events.ts';
import { KubeError } from '../../../src/kube/errors.ts';
import type { Logger } from '../../../src/observe/logger.ts';

class FakeSink implements EventSink {
  events = new Map<string, CoreEvent>();
  calls: string[] = [];
  failNextPatchWith?: unknown;
  async createEvent(namespace: string, e: CoreEvent): Promise<CoreEvent> {
    this.calls.push(`create ${namespace}/${e.metadata.name}`);
    this.events.set(e.metadata.name, structuredClone(e));
    return e;
  }
  async patchEvent(
    namespace: string,
    name: string,
    patch: { count: number; lastTimestamp: string; message: string },
  ): Promise<CoreEvent> {
    this.calls.push(`patch ${namespace}/${name}`);
    if (this.failNextPatchWith) {
      const e = this.failNextPatchWith;
      this.failNextPatchWith = undefined;
      throw e;
    }
    const e = this.events.get(name)!;
    Object.assign(e, patch);
    return e;
  }
}

const web = {
  apiVersion: 'pacer.dev/v1alpha1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'prod', uid: 'u1', resourceVersion: '5' },
};
const T0 = Date.parse('2026-03-01T10:00:00Z');

describe('manager/events', () => {
  it('writes a core v1 Event naming the Deployment, the source and the reporting controller', async () => {
    const sink = new FakeSink();
    const rec = new EventRecorder(sink, { now: () => T0, reportingInstance: 'pod-1' });
    rec.record(web, 'Normal', 'ScalingReplicaSet', 'Scaled up replica set web-7c5ddbdf54 from 0 to 3');
    await rec.flush();
    const [e] = [...sink.events.values()];
    expect(e.metadata.namespace).to.equal('prod');
    expect(e.metadata.name.startsWith('web.')).to.equal(true);
    expect(e.involvedObject).to.deep.equal({
      apiVersion: 'pacer.dev/v1alpha1',
      kind: 'Deployment',
      name: 'web',
      namespace: 'prod',
      uid: 'u1',
      resourceVersion: '5',
    });
    expect(e.source).to.deep.equal({ component: EVENT_SOURCE_COMPONENT });
    expect(e.reportingComponent).to.equal(REPORTING_CONTROLLER);
    expect(e.reportingInstance).to.equal('pod-1');
    expect([e.type, e.reason, e.message, e.count]).to.deep.equal([
      'Normal',
      'ScalingReplicaSet',
      'Scaled up replica set web-7c5ddbdf54 from 0 to 3',
      1,
    ]);
    expect(e.firstTimestamp).to.equal('2026-03-01T10:00:00Z');
  });

  describe('EventLogger: the same (source, object, type, reason, message) again → one Event, count + 1', () => {
    const msg = 'Scaled up replica set web-1 from 0 to 3';
    const rows: Array<{
      name: string;
      second: { obj?: typeof web; type?: 'Normal' | 'Warning'; reason?: string; message?: string; afterMs: number };
      events: number;
      count: number;
    }> = [
      { name: 'repeated after 1 minute → one Event, count 2', second: { afterMs: 60_000 }, events: 1, count: 2 },
      {
        name: 'repeated after exactly 10 minutes → still aggregated',
        second: { afterMs: 600_000 },
        events: 1,
        count: 2,
      },
      {
        name: "repeated after an hour → still aggregated (client-go's EventLogger has no time window)",
        second: { afterMs: 3_600_000 },
        events: 1,
        count: 2,
      },
      {
        name: 'another message → a new Event',
        second: { message: 'Scaled down replica set web-1 from 3 to 0', afterMs: 1000 },
        events: 2,
        count: 1,
      },
      { name: 'another reason → a new Event', second: { reason: 'Other', afterMs: 1000 }, events: 2, count: 1 },
      { name: 'another type → a new Event', second: { type: 'Warning', afterMs: 1000 }, events: 2, count: 1 },
      {
        name: 'another object (uid) → a new Event',
        second: { obj: { ...web, metadata: { ...web.metadata, uid: 'u2' } }, afterMs: 1000 },
        events: 2,
        count: 1,
      },
    ];
    for (const row of rows) {
      it(row.name, async () => {
        const sink = new FakeSink();
        let now = T0;
        const rec = new EventRecorder(sink, { now: () => now });
        rec.record(web, 'Normal', 'ScalingReplicaSet', msg);
        now = T0 + row.second.afterMs;
        rec.record(
          row.second.obj ?? web,
          row.second.type ?? 'Normal',
          row.second.reason ?? 'ScalingReplicaSet',
          row.second.message ?? msg,
        );
        await rec.flush();
        expect(sink.events.size).to.equal(row.events);
        const first = [...sink.events.values()][0];
        expect(first.count).to.equal(row.count);
        if (row.count === 2) {
          expect(first.lastTimestamp).to.equal(eventTime(now));
          expect(first.firstTimestamp).to.equal(eventTime(T0));
        }
      });
    }
  });

  describe('EventAggregator: similar events (same object, type, reason; other messages)', () => {
    const scaled = (i: number) => `Scaled up replica set web-${i} from 0 to 1`;
    async function record(n: number, gapMs: number): Promise<FakeSink> {
      const sink = new FakeSink();
      let now = T0;
      const rec = new EventRecorder(sink, { now: () => now });
      for (let i = 1; i <= n; i++) {
        rec.record(web, 'Normal', 'ScalingReplicaSet', scaled(i));
        now += gapMs;
      }
      await rec.flush();
      return sink;
    }
    const rows: Array<{
      name: string;
      n: number;
      gapMs: number;
      plain: number;
      combined?: { count: number; message: string };
    }> = [
      { name: '9 distinct messages within 10 minutes → 9 Events', n: 9, gapMs: 1000, plain: 9 },
      {
        name: 'the 10th distinct message → written as "(combined from similar events): …"',
        n: 10,
        gapMs: 1000,
        plain: 9,
        combined: { count: 1, message: COMBINED_PREFIX + scaled(10) },
      },
      {
        name: '14 distinct messages → 9 Events and one combined Event with count 5 and the latest message',
        n: 14,
        gapMs: 1000,
        plain: 9,
        combined: { count: 5, message: COMBINED_PREFIX + scaled(14) },
      },
      {
        name: 'more than 10 minutes between them → the window restarts: every one its own Event',
        n: 12,
        gapMs: 601_000,
        plain: 12,
      },
    ];
    for (const row of rows) {
      it(row.name, async () => {
        const sink = await record(row.n, row.gapMs);
        const all = [...sink.events.values()];
        const combined = all.filter((e) => e.message.startsWith(COMBINED_PREFIX));
        expect(all.length - combined.length).to.equal(row.plain);
        if (!row.combined) {
          expect(combined).to.deep.equal([]);
          return;
        }
        expect(combined.map((e) => [e.count, e.message])).to.deep.equal([[row.combined.count, row.combined.message]]);
        expect([combined[0].type, combined[0].reason]).to.deep.equal(['Normal', 'ScalingReplicaSet']);
      });
    }
    it('another reason is not similar', async () => {
      const sink = new FakeSink();
      const rec = new EventRecorder(sink, { now: () => T0 });
      for (let i = 1; i <= 9; i++) rec.record(web, 'Normal', 'ScalingReplicaSet', scaled(i));
      rec.record(web, 'Normal', 'NewReplicaSetAvailable', 'ReplicaSet "web-9" has successfully progressed.');
      await rec.flush();
      expect([...sink.events.values()].filter((e) => e.message.startsWith(COMBINED_PREFIX))).to.deep.equal([]);
    });
  });

  it('counts up on every repeat and creates the Event again when the old one is gone', async () => {
    const sink = new FakeSink();
    const rec = new EventRecorder(sink, { now: () => T0 });
    for (let i = 0; i < 3; i++) rec.record(web, 'Warning', 'ReplicaSetCreateError', 'boom');
    await rec.flush();
    expect([...sink.events.values()].map((e) => e.count)).to.deep.equal([3]);
    sink.failNextPatchWith = new KubeError('NotFound', 'events "web.1" not found', { code: 404 });
    rec.record(web, 'Warning', 'ReplicaSetCreateError', 'boom');
    await rec.flush();
    const creates = sink.calls.filter((c) => c.startsWith('create'));
    expect(creates.length).to.equal(2);
    expect(creates[1], 'created again under its name').to.equal(creates[0]);
    expect(
      [...sink.events.values()].map((e) => e.count),
      'the count carries on',
    ).to.deep.equal([4]);
  });

  describe('EventSourceObjectSpamFilter: 25 events per object, then one per 5 minutes', () => {
    it('drops the 26th event about one object, writes again once a token has come back', async () => {
      let now = T0;
      const sink = new FakeSink();
      const r = new EventRecorder(sink, { now: () => now });
      for (let i = 0; i < SPAM_BURST + 3; i++)
        r.record(web, 'Normal', 'ScalingReplicaSet', `Scaled up replica set web-a from ${i} to ${i + 1}`);
      await r.flush();
      expect(SPAM_BURST).to.equal(25);
      expect(sink.calls.length, 'writes in the burst').to.equal(SPAM_BURST);
      // Another object has its own bucket.
      r.record(
        { ...web, metadata: { ...web.metadata, name: 'api', uid: 'u2' } },
        'Normal',
        'ScalingReplicaSet',
        'Scaled up replica set api-a from 0 to 1',
      );
      await r.flush();
      expect(sink.calls.length).to.equal(SPAM_BURST + 1);
      now += 4 * 60_000; // not yet a whole token
      r.record(web, 'Warning', 'ProgressDeadlineExceeded', 'ReplicaSet "web-a" has timed out progressing.');
      await r.flush();
      expect(sink.calls.length).to.equal(SPAM_BURST + 1);
      now += 60_000; // 5 minutes: one token
      r.record(web, 'Warning', 'ProgressDeadlineExceeded', 'ReplicaSet "web-a" has timed out progressing.');
      r.record(web, 'Warning', 'ProgressDeadlineExceeded', 'ReplicaSet "web-a" has timed out progressing.');
      await r.flush();
      expect(sink.calls.length).to.equal(SPAM_BURST + 2);
    });
  });

  it(`holds at most ${MAX_QUEUED_EVENTS} Events waiting (client-go's maxQueuedEvents): more are dropped, counted and warned about once`, async () => {
    const sink = new FakeSink();
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const create = sink.createEvent.bind(sink);
    sink.createEvent = async (ns, e) => {
      await held;
      return create(ns, e);
    };
    const warnings: string[] = [];
    const logger = { warn: (m: string) => warnings.push(m), info: () => {}, debug: () => {}, error: () => {} };
    let dropped = 0;
    const rec = new EventRecorder(sink, {
      now: () => T0,
      maxQueued: 3,
      onDrop: () => dropped++,
      logger: logger as unknown as Logger,
    });
    for (let i = 0; i < 5; i++)
      rec.record(web, 'Normal', 'ScalingReplicaSet', `Scaled up replica set web-a from ${i} to ${i + 1}`);
    expect(dropped).to.equal(2);
    expect(warnings).to.deep.equal(['event queue full: dropping Events until it has room']);
    release();
    await rec.flush();
    expect([...sink.events.values()].map((e) => e.message)).to.deep.equal(
      [0, 1, 2].map((i) => `Scaled up replica set web-a from ${i} to ${i + 1}`),
    );
    rec.record(web, 'Normal', 'ScalingReplicaSet', 'Scaled down replica set web-a from 3 to 0');
    await rec.flush();
    expect(sink.events.size, 'room again once written').to.equal(4);
    expect(dropped).to.equal(2);
  });

  it('drain(): waits for the queued Events; past its time the rest, and anything recorded later, is dropped', async () => {
    const sink = new FakeSink();
    const rec = new EventRecorder(sink, { now: () => T0 });
    rec.record(web, 'Normal', 'ScalingReplicaSet', 'Scaled up replica set web-a from 0 to 1');
    await rec.drain(10_000); // resolves as soon as the queue is empty, long before its time
    expect(sink.events.size).to.equal(1);
    rec.record(web, 'Normal', 'ScalingReplicaSet', 'Scaled up replica set web-a from 1 to 2');
    await rec.flush();
    expect(sink.events.size, 'recorded after the drain: dropped').to.equal(1);

    const stuck = new FakeSink();
    stuck.createEvent = () => new Promise(() => {}); // an API server that never answers
    const warnings: Array<[string, unknown]> = [];
    const logger = {
      log: () => {},
      warn: (m: string, meta: unknown) => warnings.push([m, meta]),
      info: () => {},
      debug: () => {},
    };
    const slow = new EventRecorder(stuck, { now: () => T0, logger: logger as unknown as Logger });
    slow.record(web, 'Normal', 'A', 'a');
    slow.record(web, 'Normal', 'B', 'b');
    await slow.drain(20);
    expect(warnings).to.deep.equal([['controller stopping: Events not written', { dropped: 2 }]]);
  });

  it('never throws to the caller when writing fails', async () => {
    const sink = new FakeSink();
    sink.createEvent = async () => {
      throw new KubeError('Forbidden', 'events is forbidden');
    };
    const rec = new EventRecorder(sink, { now: () => T0 });
    rec.record(web, 'Normal', 'X', 'y');
    await rec.flush();
    rec.record(web, 'Normal', 'X', 'y');
    await rec.flush();
    expect(sink.events.size).to.equal(0);
  });
});
