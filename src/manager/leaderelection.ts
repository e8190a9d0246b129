// Leader election on a coordination.k8s.io/v1 Lease, with client-go's semantics and defaults
// (k8s.io/client-go/tools/leaderelection; docs/architecture.md#leader-election):
//
//  * A candidate tries every retryPeriod (plus client-go's jitter of up to 1.2 × retryPeriod) to
//    take the Lease. It may when the Lease does not exist, names no holder, or has not changed for
//    leaseDurationSeconds as observed on the candidate's OWN clock: clocks of different replicas are
//    never compared, only "when did I last see this record change".
//  * The leader renews every retryPeriod. When no renewal succeeds within renewDeadline it stops
//    leading at once; renewDeadline < leaseDuration leaves the margin in which its last writes end
//    before anyone else may take the Lease.
//  * Releasing (on a graceful stop) writes an empty holder with a 1 s duration, so the next
//    candidate takes over at its next try instead of waiting out the lease.
//  * Unlike client-go, a candidate also watches the Lease (one watch for its whole run), and a
//    candidate waiting between tries tries at once when it sees the Lease released (no holder) or
//    deleted: a graceful hand-over takes a watch event's delay instead of up to 2.2 retry periods.
//    A Lease that expires changes nothing, so that case is still found by the tries.
//  * Every write carries the Lease's resourceVersion: two candidates racing for an expired Lease
//    cannot both win (the second gets 409 Conflict).

import { HttpMethod, LEASES } from '../kube/client.ts';
import type { KubeClient } from '../kube/client.ts';
import { realClock } from '../kube/clock.ts';
import type { Clock } from '../kube/clock.ts';
import { toKubeError } from '../kube/errors.ts';
import type { KubeError } from '../kube/errors.ts';

/** client-go's defaults (LeaseDuration, RenewDeadline, RetryPeriod as kube-controller-manager uses them). */
export const DEFAULT_LEASE_DURATION_MS = 15_000;
export const DEFAULT_RENEW_DEADLINE_MS = 10_000;
export const DEFAULT_RETRY_PERIOD_MS = 2_000;
/** client-go's JitterFactor for the acquire loop. */
export const JITTER_FACTOR = 1.2;

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export interface Lease {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace: string; resourceVersion?: string; [k: string]: unknown };
  spec?: LeaseSpec;
}

/** Where the Lease lives: the API server (kubeLeaseStore), or a fake in tests. */
export interface LeaseStore {
  readonly namespace: string;
  readonly name: string;
  /** The Lease, or undefined when it does not exist. */
  get(signal: AbortSignal): Promise<Lease | undefined>;
  create(lease: Lease, signal: AbortSignal): Promise<Lease>;
  /** Replaces the Lease; its metadata.resourceVersion is a precondition (409 when stale). */
  update(lease: Lease, signal: AbortSignal): Promise<Lease>;
  /**
   * Watches the Lease until `signal` aborts or the stream ends (resolves) or fails (rejects):
   * `onChange` gets the Lease as it is when the watch starts and after each change, and undefined
   * once it is deleted. Optional: without it a candidate only polls.
   */
  watch?(signal: AbortSignal, onChange: (lease: Lease | undefined) => void): Promise<void>;
}

export function kubeLeaseStore(client: KubeClient, namespace: string, name: string): LeaseStore {
  const path = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/leases`;
  const what = `lease ${namespace}/${name}`;
  return {
    namespace,
    name,
    async get(signal) {
      try {
        return await client.request<Lease>(HttpMethod.GET, `${path}/${encodeURIComponent(name)}`, {
          signal,
          what: `get ${what}`,
        });
      } catch (err) {
        if (toKubeError(err).kind === 'NotFound') return undefined;
        throw err;
      }
    },
    create: (lease, signal) =>
      client.request<Lease>(HttpMethod.POST, path, { body: lease, signal, what: `create ${what}` }),
    update: (lease, signal) =>
      client.request<Lease>(HttpMethod.PUT, `${path}/${encodeURIComponent(name)}`, {
        body: lease,
        signal,
        what: `update ${what}`,
      }),
    async watch(signal, onChange) {
      // From no resourceVersion: the first event is the Lease as it is now (a synthetic ADDED).
      let ended: KubeError | undefined;
      await client.watch<Lease>(
        LEASES,
        namespace,
        { resourceVersion: '', fieldSelector: `metadata.name=${name}`, timeoutSeconds: 300 },
        (e) => {
          if (e.type === 'ADDED' || e.type === 'MODIFIED') onChange(e.object);
          else if (e.type === 'DELETED') onChange(undefined);
          else if (e.type === 'ERROR') ended ??= toKubeError(e.object, `watch ${what}`);
        },
        signal,
      );
      if (ended) throw ended;
    },
  };
}

/** A Lease's MicroTime: RFC 3339 with microseconds. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export interface LeaderElectorOptions {
  store: LeaseStore;
  /** This replica's name in the Lease (client-go: hostname + "_" + a UUID). */
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  clock?: Clock;
  random?: () => number;
  /** Leading began: start the leader-only work. */
  onStartedLeading(): void;
  /**
   * Leading ended (lost, or the elector stopped): stop the leader-only work at once. On a stop the
   * Lease is released only after the returned promise settles, so no successor writes meanwhile.
   */
  onStoppedLeading(): void | Promise<void>;
  /** The Lease names a different holder than last seen ('' when released). */
  onNewLeader?(identity: string): void;
  /** A failed try (logging only: the elector keeps trying). */
  onError?(message: string, err?: KubeError): void;
  /**
   * Asked when the Lease may be taken (free, or expired), before the write: false leaves it for
   * another candidate until the next try. Never asked for a renewal. Sharding's fair share
   * (docs/sharding.md): a replica holding its share leaves the rest.
   */
  mayAcquire?(): boolean;
  /** Annotations of the Lease when this candidate creates it (sharding records the shard count). */
  annotations?: Record<string, string>;
}

/** Checks the three durations as client-go's NewLeaderElector does; returns the error, if any. */
export function checkDurations(leaseMs: number, renewMs: number, retryMs: number): string | undefined {
  if (!(leaseMs > renewMs))
    return `the lease duration (${leaseMs / 1000}s) must be greater than the renew deadline (${renewMs / 1000}s)`;
  if (!(renewMs > JITTER_FACTOR * retryMs))
    return `the renew deadline (${renewMs / 1000}s) must be greater than ${JITTER_FACTOR} × the retry period (${retryMs / 1000}s)`;
  if (!(retryMs >= 1)) return 'the retry period must be positive';
  return undefined;
}

export class LeaderElector {
  private readonly o: Required<Omit<LeaderElectorOptions, 'onNewLeader' | 'onError' | 'mayAcquire' | 'annotations'>> &
    Pick<LeaderElectorOptions, 'onNewLeader' | 'onError' | 'mayAcquire' | 'annotations'>;
  private observed?: LeaseSpec;
  private observedRV?: string;
  /** When (own clock) the observed record last changed. */
  private observedAt = 0;
  private leading = false;
  private reportedLeader?: string;
  /** The Lease's watch saw it released or deleted since the current try began. */
  private releaseSeen = false;
  /** Ends the acquire loop's current wait (set while it waits). */
  private wake?: () => void;
  /** The last failure of the Lease's watch, logged once per distinct message. */
  private watchFailure?: string;

  constructor(opts: LeaderElectorOptions) {
    this.o = {
      ...opts,
      leaseDurationMs: opts.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS,
      renewDeadlineMs: opts.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS,
      retryPeriodMs: opts.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS,
      clock: opts.clock ?? realClock,
      random: opts.random ?? Math.random,
    };
    const bad = checkDurations(this.o.leaseDurationMs, this.o.renewDeadlineMs, this.o.retryPeriodMs);
    if (bad) throw new Error(bad);
    if (!this.o.identity) throw new Error('the leader election identity must not be empty');
  }

  get identity(): string {
    return this.o.identity;
  }

  isLeader(): boolean {
    return this.leading;
  }

  private lastError: KubeError | undefined;

  /** The holder last seen in the Lease ('' for none). */
  leader(): string {
    return this.observed?.holderIdentity ?? '';
  }

  /**
   * Campaigns until `signal` aborts: acquire, lead while renewals succeed, and on losing the Lease
   * campaign again. When `signal` aborts while leading, leading stops and the Lease is released.
   */
  async run(signal: AbortSignal): Promise<void> {
    // One watch of the Lease for the elector's whole run (the same request whether it leads or
    // stands by): only the acquire loop's waits listen to it.
    const watching = new AbortController();
    const watched = this.watchForRelease(AbortSignal.any([signal, watching.signal]));
    try {
      while (!signal.aborted) {
        if (!(await this.acquire(signal))) break;
        this.leading = true;
        this.o.onStartedLeading();
        await this.renewWhileLeading(signal);
        this.leading = false;
        await this.o.onStoppedLeading();
        if (signal.aborted) {
          await this.release();
          break;
        }
      }
    } finally {
      watching.abort();
      await watched;
    }
  }

  /**
   * Tries until it holds the Lease (true) or `signal` aborts (false): every retry period plus
   * jitter, and at once when the Lease's watch sees it released or deleted.
   */
  private async acquire(signal: AbortSignal): Promise<boolean> {
    const { clock, retryPeriodMs } = this.o;
    while (!signal.aborted) {
      this.releaseSeen = false;
      if (await this.tryAcquireOrRenew(signal)) return true;
      if (this.releaseSeen) continue; // released while that try was on its way: try again now
      const wait = retryPeriodMs + this.o.random() * JITTER_FACTOR * retryPeriodMs;
      const woken = new AbortController();
      this.wake = () => woken.abort();
      try {
        await clock.sleep(wait, AbortSignal.any([signal, woken.signal]));
      } catch {
        if (signal.aborted) return false;
      } finally {
        this.wake = undefined;
      }
    }
    return false;
  }

  /**
   * Watches the Lease (when the store can) until `signal` aborts, waking the acquire loop on a
   * release; watches again a retry period after a watch ends, a lease duration after one fails (a
   * watch RBAC refuses is not asked again every two seconds).
   */
  private async watchForRelease(signal: AbortSignal): Promise<void> {
    const { store, clock, retryPeriodMs, leaseDurationMs } = this.o;
    if (!store.watch) return;
    while (!signal.aborted) {
      let pause = retryPeriodMs;
      try {
        await store.watch(signal, (lease) => {
          if (lease?.spec?.holderIdentity) return;
          this.releaseSeen = true;
          this.wake?.();
        });
      } catch (err) {
        pause = leaseDurationMs;
        const message = toKubeError(err).message;
        if (!signal.aborted && message !== this.watchFailure) {
          this.watchFailure = message;
          this.o.onError?.(
            `cannot watch ${describe(store)} (a released Lease is then taken at the next try): ${message}`,
          );
        }
      }
      try {
        await clock.sleep(pause, signal);
      } catch {
        return;
      }
    }
  }

  /** Renews every retryPeriod; returns when a renewal did not succeed within renewDeadline, or on abort. */
  private async renewWhileLeading(signal: AbortSignal): Promise<void> {
    const { clock, retryPeriodMs, renewDeadlineMs } = this.o;
    while (!signal.aborted) {
      try {
        await clock.sleep(retryPeriodMs, signal);
      } catch {
        return;
      }
      // Keep trying until one renewal succeeds; the attempts, and any request still open, end at the deadline.
      const deadline = new AbortController();
      const timer = clock.setTimer(() => deadline.abort(new Error('renew deadline')), renewDeadlineMs);
      const both = AbortSignal.any([signal, deadline.signal]);
      let renewed = false;
      try {
        while (!both.aborted) {
          if (await this.tryAcquireOrRenew(both)) {
            renewed = true;
            break;
          }
          await clock.sleep(retryPeriodMs, both).catch(() => undefined);
        }
      } finally {
        clock.clearTimer(timer);
      }
      if (signal.aborted) return;
      if (!renewed) {
        this.o.onError?.(
          `failed to renew ${describe(this.o.store)} within ${renewDeadlineMs / 1000}s: stopped leading`,
        );
        return;
      }
    }
  }

  private noteRecord(spec: LeaseSpec, rv: string | undefined): void {
    const changed = !this.observed || JSON.stringify(this.observed) !== JSON.stringify(spec);
    this.observedRV = rv;
    if (changed) {
      this.observed = spec;
      this.observedAt = this.o.clock.now();
    }
    const holder = spec.holderIdentity ?? '';
    if (holder !== this.reportedLeader) {
      this.reportedLeader = holder;
      this.o.onNewLeader?.(holder);
    }
  }

  /** client-go's tryAcquireOrRenew: one read and at most one write. */
  async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const { store, identity, clock, leaseDurationMs } = this.o;
    const now = clock.now();
    const mine: LeaseSpec = {
      holderIdentity: identity,
      leaseDurationSeconds: Math.round(leaseDurationMs / 1000),
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    };
    let current: Lease | undefined;
    try {
      current = await store.get(signal);
    } catch (err) {
      this.failed(toKubeError(err));
      return false;
    }
    if (!current) {
      try {
        const made = await store.create(
          {
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            metadata: {
              name: store.name,
              namespace: store.namespace,
              ...(this.o.annotations ? { annotations: this.o.annotations } : {}),
            },
            spec: mine,
          },
          signal,
        );
        this.noteRecord(made.spec ?? mine, made.metadata.resourceVersion);
        this.lastError = undefined;
        return true;
      } catch (err) {
        this.failed(toKubeError(err));
        return false;
      }
    }
    const old = current.spec ?? {};
    this.noteRecord(old, current.metadata.resourceVersion);
    const holder = old.holderIdentity ?? '';
    const heldByMe = holder === identity;
    const validUntil = this.observedAt + (old.leaseDurationSeconds ?? 0) * 1000;
    if (holder !== '' && !heldByMe && validUntil > now) {
      this.lastError = undefined; // someone else holds it: campaigning works
      return false;
    }
    // Free to take, but not wanted now (sharding's fair share): the record is observed all the same,
    // so that an expiry is measured from the last change seen, not from when it is wanted.
    if (!heldByMe && !(this.o.mayAcquire?.() ?? true)) {
      this.lastError = undefined;
      return false;
    }
    if (heldByMe) {
      mine.acquireTime = old.acquireTime ?? mine.acquireTime;
      mine.leaseTransitions = old.leaseTransitions ?? 0;
    } else {
      mine.leaseTransitions = (old.leaseTransitions ?? 0) + 1;
    }
    try {
      // A Lease taken over carries this candidate's annotations from then on.
      const metadata =
        this.o.annotations && !heldByMe
          ? {
              ...current.metadata,
              annotations: { ...(current.metadata.annotations as Record<string, string>), ...this.o.annotations },
            }
          : current.metadata;
      const updated = await store.update({ ...current, metadata, spec: { ...old, ...mine } }, signal);
      this.noteRecord(updated.spec ?? mine, updated.metadata.resourceVersion);
      this.lastError = undefined;
      return true;
    } catch (err) {
      this.failed(toKubeError(err));
      return false;
    }
  }

  private failed(err: KubeError): void {
    this.lastError = err;
    this.o.onError?.(err.message, err);
  }

  /** The error of the last attempt to read or write the Lease, while the next has not succeeded. */
  campaignError(): KubeError | undefined {
    return this.lastError;
  }

  /** Gives the Lease up (only when this replica holds it as last seen). */
  private async release(): Promise<void> {
    if (this.observed?.holderIdentity !== this.o.identity || this.observedRV === undefined) return;
    const now = this.o.clock.now();
    const spec: LeaseSpec = {
      holderIdentity: '',
      leaseDurationSeconds: 1,
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: this.observed.leaseTransitions ?? 0,
    };
    try {
      const updated = await this.o.store.update(
        {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: this.o.store.name, namespace: this.o.store.namespace, resourceVersion: this.observedRV },
          spec,
        },
        AbortSignal.timeout(this.o.renewDeadlineMs),
      );
      this.noteRecord(updated.spec ?? spec, updated.metadata.resourceVersion);
    } catch (err) {
      this.o.onError?.(`cannot release the lease: ${toKubeError(err).message}`);
    }
  }
}

/**
 * Why this replica cannot campaign at all, in words with the fix, from the last failed attempt: the
 * Lease's namespace does not exist, or RBAC does not let it read or write Leases there. Undefined for
 * a failure that may pass by itself (an API server that does not answer, a conflict).
 */
export function campaignProblem(err: KubeError | undefined, namespace: string): string | undefined {
  if (!err) return undefined;
  const missing = /namespaces "([^"]+)" not found/.exec(err.message);
  if (err.kind === 'NotFound' && missing)
    return (
      `cannot campaign for leadership: the Lease's namespace "${missing[1]}" does not exist (${err.message}); ` +
      `no reconcile runs until it does: kubectl create namespace ${missing[1]}, or --leader-election-namespace=<an existing namespace>`
    );
  if (err.kind === 'Forbidden')
    return (
      `cannot campaign for leadership: ${err.message}; no reconcile runs until the controller may get, create and update ` +
      `leases.coordination.k8s.io in ${namespace}`
    );
  return undefined;
}

function describe(store: LeaseStore): string {
  return `lease ${store.namespace}/${store.name}`;
}
