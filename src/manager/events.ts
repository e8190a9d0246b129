// Kubernetes Events for what the controller did, written as core v1 Events with client-go's event
// correlation (tools/record):
//  * EventAggregator: events alike but for their message (same source, object, type and reason)
//    are tracked per object; once 10 distinct messages were seen, each seen within 10 minutes of the
//    previous one, further ones are written as one Event with the message
//    "(combined from similar events): <latest message>";
//  * EventLogger: an Event identical to one already written (same source, object, type, reason and
//    message, or the same combined key) is not created again: one PATCH raises its count and sets
//    lastTimestamp (and message). There is no time window here, as in client-go: only the LRU of
//    4096 keys and the API server's Event TTL bound it; when the old Event is gone (404), it is
//    created again under its name with the count carried on.
//  * EventSourceObjectSpamFilter: each (source, object) has a token bucket of 25 events, refilled
//    one per 5 minutes; an event (new or a repeat) without a token is dropped, as client-go does.
// Recording never fails a reconcile: writes happen in the background, one at a time, and failures
// are logged. Each write takes a spare token of the client's rate limit (KubeClient.createEvent):
// Events never delay the controller's own writes, they wait for them. At most 1,000 Events wait to
// be written (client-go's maxQueuedEvents); one more is dropped, as client-go's broadcaster drops it
// when its queue is full, with a warning in the log (once per overflow) and a count for
// pacer_events_dropped_total. When the controller stops, the queue gets a few seconds to drain
// (drain()) while the replica still leads; what is left then is dropped.
// Time is only read, never waited for: the window and the refill are computed from the times of the
// events themselves when the next one comes (as client-go does), so the recorder needs `now` (the
// manager's clock) and no timer.

import { hostname } from 'node:os';
import type { ObjectMeta } from '../api/types.ts';
import type { Logger } from '../observe/logger.ts';
import { isKind } from '../kube/errors.ts';
import { metaTime } from '../kube/clock.ts';

export const EVENT_SOURCE_COMPONENT = 'pacer-controller';
export const REPORTING_CONTROLLER = 'pacer.dev/deployment-controller';
/** client-go's defaultAggregateMaxEvents and defaultAggregateIntervalInSeconds. */
export const AGGREGATE_MAX_EVENTS = 10;
const AGGREGATION_WINDOW_MS = 10 * 60 * 1000;
const MAX_CACHED_KEYS = 4096;
export const COMBINED_PREFIX = '(combined from similar events): ';
/** client-go's defaultSpamBurst and defaultSpamQPS (one event per 5 minutes). */
export const SPAM_BURST = 25;
const SPAM_REFILL_MS = 5 * 60 * 1000;
/** client-go's maxQueuedEvents: the length of its event broadcaster's queue. */
export const MAX_QUEUED_EVENTS = 1000;

/** What an Event points at. */
export interface InvolvedObject {
  apiVersion?: string;
  kind?: string;
  metadata: Pick<ObjectMeta, 'name' | 'namespace' | 'uid' | 'resourceVersion'>;
}

/** The event source and the object an Event is about: what client-go's aggregation and spam filter key on. */
function sourceObject(obj: InvolvedObject): unknown[] {
  const m = obj.metadata;
  return [EVENT_SOURCE_COMPONENT, obj.apiVersion, obj.kind, m.namespace ?? 'default', m.name, m.uid];
}

export interface CoreEvent {
  apiVersion: 'v1';
  kind: 'Event';
  metadata: { name: string; namespace: string };
  involvedObject: {
    apiVersion?: string;
    kind?: string;
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
  };
  reason: string;
  message: string;
  type: 'Normal' | 'Warning';
  source: { component: string };
  firstTimestamp: string;
  lastTimestamp: string;
  count: number;
  reportingComponent: string;
  reportingInstance: string;
}

/** The two writes the recorder needs (KubeClient has them). */
export interface EventSink {
  createEvent(namespace: string, event: CoreEvent): Promise<unknown>;
  patchEvent(namespace: string, name: string, patch: unknown): Promise<unknown>;
}

export interface EventRecorderOptions {
  /** The time of an event (default: the real clock); the controller passes its manager's clock. */
  now?: () => number;
  logger?: Logger;
  reportingInstance?: string;
  /** How long similar events keep counting toward the combined one (default 10 min). */
  windowMs?: number;
  /** How many Events may wait to be written before more are dropped (default MAX_QUEUED_EVENTS). */
  maxQueued?: number;
  /** Called for each Event dropped because the queue was full. */
  onDrop?: () => void;
}

/** metav1.Time: RFC 3339 in UTC, whole seconds. */
export const eventTime = metaTime;

/** An Event this recorder wrote (EventLogger's cache). */
interface Seen {
  name: string;
  namespace: string;
  count: number;
  firstTimestamp: string;
}

/** Distinct messages of similar events (EventAggregator's cache). */
interface Similar {
  messages: Set<string>;
  lastAt: number;
}

/** A token bucket (client-go's flowcontrol rate limiter as the spam filter uses it). */
interface Bucket {
  tokens: number;
  at: number;
}

/** Keeps the most recently used keys (a Map iterates in insertion order: re-insert = most recent). */
function touch<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_CACHED_KEYS) map.delete(map.keys().next().value!);
}

export class EventRecorder {
  private readonly sink: EventSink;
  private readonly now: () => number;
  private readonly logger?: Logger;
  private readonly instance: string;
  private readonly windowMs: number;
  private readonly seen = new Map<string, Seen>();
  private readonly similar = new Map<string, Similar>();
  private readonly spam = new Map<string, Bucket>();
  private readonly maxQueued: number;
  private readonly onDrop?: () => void;
  private tail: Promise<void> = Promise.resolve();
  private serial = 0;
  /** Events recorded and not yet written (or failed). */
  private queued = 0;
  /** Events dropped since the queue last had room (the warning is logged once per overflow). */
  private droppedInOverflow = 0;
  /** Set by drain(): nothing more is written. */
  private closed = false;

  constructor(sink: EventSink, opts: EventRecorderOptions = {}) {
    this.sink = sink;
    this.now = opts.now ?? Date.now;
    this.logger = opts.logger;
    this.instance = opts.reportingInstance ?? hostname();
    this.windowMs = opts.windowMs ?? AGGREGATION_WINDOW_MS;
    this.maxQueued = opts.maxQueued ?? MAX_QUEUED_EVENTS;
    this.onDrop = opts.onDrop;
  }

  /** Queues the Event, or drops it when the queue is full; returns at once. */
  record(obj: InvolvedObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    if (this.closed) return;
    if (this.queued >= this.maxQueued) {
      if (this.droppedInOverflow++ === 0) {
        this.logger?.warn('event queue full: dropping Events until it has room', {
          queued: this.queued,
          reason,
          object: `${obj.metadata.namespace ?? 'default'}/${obj.metadata.name}`,
        });
      }
      this.onDrop?.();
      return;
    }
    if (this.droppedInOverflow > 0) {
      this.logger?.info('event queue has room again', { dropped: this.droppedInOverflow });
      this.droppedInOverflow = 0;
    }
    this.queued++;
    const at = this.now();
    this.tail = this.tail
      .then(() => this.write(obj, type, reason, message, at))
      .catch((err: unknown) => {
        // A replica that just lost its Lease refuses its own writes: one line for each would only repeat that.
        this.logger?.log(isKind(err, 'NotLeader') ? 'debug' : 'warn', 'could not record event', {
          reason,
          error: err instanceof Error ? err.message : String(err),
        });
      })
      .finally(() => {
        this.queued--;
      });
  }

  /** Resolves once every queued Event has been written (or has failed). */
  flush(): Promise<void> {
    return this.tail;
  }

  /**
   * For the controller's stop, while this replica still leads: waits up to `ms` (real time: it
   * bounds the shutdown) for the queued Events to be written, then drops what is left, and every
   * Event recorded later, with one log line.
   */
  async drain(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), ms);
    });
    const done = await Promise.race([this.tail.then(() => false), expired]);
    clearTimeout(timer);
    this.closed = true;
    if (done && this.queued > 0) this.logger?.warn('controller stopping: Events not written', { dropped: this.queued });
  }

  /**
   * EventAggregator: the event as it is to be written and the key it is deduplicated under. Under
   * the limit it is itself; from the 10th distinct message on, the combined event.
   */
  private aggregate(
    obj: InvolvedObject,
    type: string,
    reason: string,
    message: string,
    at: number,
  ): { key: string; message: string } {
    const similarKey = JSON.stringify([...sourceObject(obj), type, reason]);
    let rec = this.similar.get(similarKey);
    if (!rec || at - rec.lastAt > this.windowMs) rec = { messages: new Set(), lastAt: at };
    rec.messages.add(message);
    rec.lastAt = at;
    touch(this.similar, similarKey, rec);
    if (rec.messages.size < AGGREGATE_MAX_EVENTS) return { key: JSON.stringify([similarKey, message]), message };
    // As client-go: forget one message, so the set stays at the limit and later ones keep combining.
    rec.messages.delete(rec.messages.values().next().value!);
    return { key: similarKey, message: COMBINED_PREFIX + message };
  }

  /** EventSourceObjectSpamFilter: may another event about `obj` be written now? Takes a token. */
  private allowed(obj: InvolvedObject, at: number): boolean {
    const key = JSON.stringify(sourceObject(obj));
    const b = this.spam.get(key) ?? { tokens: SPAM_BURST, at };
    b.tokens = Math.min(SPAM_BURST, b.tokens + (at - b.at) / SPAM_REFILL_MS);
    b.at = at;
    const ok = b.tokens >= 1;
    if (ok) b.tokens -= 1;
    touch(this.spam, key, b);
    return ok;
  }

  private async write(
    obj: InvolvedObject,
    type: 'Normal' | 'Warning',
    reason: string,
    original: string,
    at: number,
  ): Promise<void> {
    if (this.closed) return;
    const m = obj.metadata;
    const namespace = m.namespace ?? 'default';
    const { key, message } = this.aggregate(obj, type, reason, original, at);
    if (!this.allowed(obj, at)) {
      this.logger?.debug('event dropped by the spam filter', { reason, object: `${namespace}/${m.name}` });
      return;
    }
    const prev = this.seen.get(key);
    if (prev) {
      const count = prev.count + 1;
      try {
        await this.sink.patchEvent(prev.namespace, prev.name, { count, lastTimestamp: eventTime(at), message });
        touch(this.seen, key, { ...prev, count });
        return;
      } catch (err) {
        if (!isKind(err, 'NotFound')) throw err;
        // Deleted (the Event TTL): create it again under its name, the count carried on, as client-go does.
      }
    }
    const name =
      prev?.name ?? `${m.name}.${(BigInt(at) * 1_000_000n + BigInt(this.serial++ % 1_000_000)).toString(16)}`;
    const count = prev ? prev.count + 1 : 1;
    const firstTimestamp = prev?.firstTimestamp ?? eventTime(at);
    const event: CoreEvent = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace },
      involvedObject: {
        apiVersion: obj.apiVersion,
        kind: obj.kind,
        name: m.name,
        namespace,
        uid: m.uid,
        resourceVersion: m.resourceVersion,
      },
      reason,
      message,
      type,
      source: { component: EVENT_SOURCE_COMPONENT },
      firstTimestamp,
      lastTimestamp: eventTime(at),
      count,
      reportingComponent: REPORTING_CONTROLLER,
      reportingInstance: this.instance,
    };
    await this.sink.createEvent(namespace, event);
    touch(this.seen, key, { name, namespace, count, firstTimestamp });
  }
}
