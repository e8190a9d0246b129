// Kubernetes Events for what the controller did, written as core v1 Events with client-go's
// aggregation: the same (object, type, reason, message) seen again within 10 minutes bumps the
// existing Event's count and lastTimestamp (one PATCH) instead of creating another Event.
// Recording never fails a reconcile: writes happen in the background and failures are logged.

import { hostname } from 'node:os';
import type { Logger } from '../observe/logger.ts';
import { isKind } from '../kube/errors.ts';

export const EVENT_SOURCE_COMPONENT = 'pacer-controller';
export const REPORTING_CONTROLLER = 'pacer.dev/deployment-controller';
const AGGREGATION_WINDOW_MS = 10 * 60 * 1000;
const MAX_CACHED_KEYS = 4096;

/** What an Event points at. */
export interface InvolvedObject {
  apiVersion?: string;
  kind?: string;
  metadata: { name?: string; namespace?: string; uid?: string; resourceVersion?: string };
}

export interface CoreEvent {
  apiVersion: 'v1';
  kind: 'Event';
  metadata: { name: string; namespace: string };
  involvedObject: { apiVersion?: string; kind?: string; name?: string; namespace?: string; uid?: string; resourceVersion?: string };
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
  now?: () => number;
  logger?: Logger;
  reportingInstance?: string;
  windowMs?: number;
}

/** metav1.Time: RFC 3339 in UTC, whole seconds. */
export function eventTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

interface Seen {
  name: string;
  namespace: string;
  count: number;
  lastAt: number;
}

export class EventRecorder {
  private readonly sink: EventSink;
  private readonly now: () => number;
  private readonly logger?: Logger;
  private readonly instance: string;
  private readonly windowMs: number;
  private readonly seen = new Map<string, Seen>();
  private tail: Promise<void> = Promise.resolve();
  private serial = 0;

  constructor(sink: EventSink, opts: EventRecorderOptions = {}) {
    this.sink = sink;
    this.now = opts.now ?? Date.now;
    this.logger = opts.logger;
    this.instance = opts.reportingInstance ?? hostname();
    this.windowMs = opts.windowMs ?? AGGREGATION_WINDOW_MS;
  }

  /** Queues the Event; returns at once. */
  record(obj: InvolvedObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    const at = this.now();
    this.tail = this.tail.then(() => this.write(obj, type, reason, message, at)).catch((err: unknown) => {
      this.logger?.warn('could not record event', { reason, error: err instanceof Error ? err.message : String(err) });
    });
  }

  /** Resolves once every queued Event has been written (or has failed). */
  flush(): Promise<void> {
    return this.tail;
  }

  private async write(obj: InvolvedObject, type: 'Normal' | 'Warning', reason: string, message: string, at: number): Promise<void> {
    const m = obj.metadata;
    const namespace = m.namespace ?? 'default';
    const key = JSON.stringify([obj.apiVersion, obj.kind, namespace, m.name, m.uid, type, reason, message]);
    const prev = this.seen.get(key);
    if (prev && at - prev.lastAt <= this.windowMs) {
      const count = prev.count + 1;
      try {
        await this.sink.patchEvent(prev.namespace, prev.name, { count, lastTimestamp: eventTime(at) });
        this.touch(key, { ...prev, count, lastAt: at });
        return;
      } catch (err) {
        if (!isKind(err, 'NotFound')) throw err;
        // Someone deleted (or the TTL expired) the Event: start a new one.
      }
    }
    const name = `${m.name}.${(BigInt(at) * 1_000_000n + BigInt(this.serial++ % 1_000_000)).toString(16)}`;
    const event: CoreEvent = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace },
      involvedObject: { apiVersion: obj.apiVersion, kind: obj.kind, name: m.name, namespace, uid: m.uid, resourceVersion: m.resourceVersion },
      reason,
      message,
      type,
      source: { component: EVENT_SOURCE_COMPONENT },
      firstTimestamp: eventTime(at),
      lastTimestamp: eventTime(at),
      count: 1,
      reportingComponent: REPORTING_CONTROLLER,
      reportingInstance: this.instance,
    };
    await this.sink.createEvent(namespace, event);
    this.touch(key, { name, namespace, count: 1, lastAt: at });
  }

  /** Keeps the most recently used keys (a Map iterates in insertion order: re-insert = most recent). */
  private touch(key: string, s: Seen): void {
    this.seen.delete(key);
    this.seen.set(key, s);
    if (this.seen.size > MAX_CACHED_KEYS) this.seen.delete(this.seen.keys().next().value!);
  }
}
