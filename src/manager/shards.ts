// Sharding past one leader (docs/sharding.md): the controller's objects are split into N shards by
// namespace (the engine's shardOf, handed in by the CLI), and each shard has a Lease of its own,
// `<id>-shard-K`, held with the leader election's semantics and timings (leaderelection.ts: one
// LeaderElector per shard). A replica reconciles the objects of the shards it holds and parks the
// keys of the others until it holds their shard.
//
// Membership is automatic (the default) or static:
//  * automatic: every replica holds a member Lease of its own, `<id>-member-<hash of identity>`,
//    and campaigns for every shard, but takes one only while it holds fewer than its fair share,
//    ceil(N / live members). A member is live while its member Lease keeps changing, as seen on
//    this replica's own clock (the lease duration, as for any Lease). A replica holding more than
//    its share (a member joined) hands one shard over at a time: it stops starting passes of that
//    shard, lets the passes in flight finish, and releases the Lease; the others, watching it,
//    take it at once. A killed replica's shards are taken by the others once their Leases expire.
//  * static (--shard-id K): the replica campaigns for shard K only; replicas given the same K are
//    each other's standbys, as with one Lease.
//
// Fencing, per shard as the single leader's: every pass runs inside a ticket (the shard and the
// epoch of this replica's hold on it, in an AsyncLocalStorage), and the manager's write gate
// refuses a write whose ticket's hold has ended. A hold ends when a renewal fails within the renew
// deadline (at once: before the Lease can expire for anyone else) or when the shard is handed over
// (after the passes in flight). A replica that loses a shard goes on with the others and may win
// it again later; its old passes cannot write under the new hold (another epoch).
//
// A shard's passes start only once the caches hold its objects from a list begun after it was taken
// (the synced gate: the manager's sharded caches keep only the shards held, shardcache.ts).

import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import type { KubeClient } from '../kube/client.ts';
import { LEASES } from '../kube/client.ts';
import type { Clock } from '../kube/clock.ts';
import { toKubeError } from '../kube/errors.ts';
import type { KubeError } from '../kube/errors.ts';
import type { Logger } from '../observe/logger.ts';
import type { ControllerMetrics } from '../observe/metrics.ts';
import type { Informer } from './informer.ts';
import { LeaderElector, campaignProblem, kubeLeaseStore } from './leaderelection.ts';
import type { Lease } from './leaderelection.ts';

/** A pass's right to write: the shard of its object and the hold it started under. */
export interface ShardTicket {
  readonly shard: number;
  readonly epoch: number;
}

/** The ticket of the pass running now (undefined outside any pass). */
export const shardContext = new AsyncLocalStorage<ShardTicket>();

/** The shard count a shard Lease was taken with: replicas of another count leave it alone. */
export const SHARDS_ANNOTATION = 'pacer.dev/shards';

export interface ShardingOptions {
  /** How many shards (at least 2; one shard is the single Lease of leader election). */
  shards: number;
  /** Static membership: campaign for this shard only. Default: every shard, automatic membership. */
  shardId?: number;
  /** The shard of an object's namespace (undefined: cluster-scoped). */
  assign(namespace: string | undefined): number;
  /** The most shards a replica takes while `members` replicas are live (ceil(shards / members)). */
  share(members: number): number;
}

export interface ShardSetOptions extends ShardingOptions {
  /** The Leases' namespace and the ring's name (--leader-election-id): `<id>-shard-K`, `<id>-member-...`. */
  namespace: string;
  id: string;
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  /** The Leases' own client (never throttled behind reconciles). */
  client: KubeClient;
  /** The Leases of `namespace`: whom the members and the shards' holders are. */
  leases: Informer<Lease>;
  clock: Clock;
  logger: Logger;
  metrics?: ControllerMetrics;
  /**
   * A shard was taken: fills the caches with its objects, from a list begun now (shardcache.ts);
   * its passes start once this resolves. Absent: the caches hold everything already.
   */
  syncShard?(shard: number): Promise<void>;
  /** A hold ended (lost or handed over; not on a stop): the caches may drop the shard's objects. */
  onDropped?(shard: number): void;
  /** A shard was taken and its caches synced: its parked keys may run. */
  onAcquired(shard: number): void;
}

export const shardLeaseName = (id: string, shard: number): string => `${id}-shard-${shard}`;
export const memberLeaseName = (id: string, identity: string): string =>
  `${id}-member-${createHash('sha256').update(identity).digest('hex').slice(0, 12)}`;

interface Hold {
  epoch: number;
  /** The caches hold the shard's objects as of a list begun after it was taken: its passes may start. */
  synced: boolean;
  /** Being handed over: no new pass starts; those in flight may still write. */
  releasing: boolean;
}

export class ShardSet {
  private readonly o: ShardSetOptions;
  private readonly holds = new Map<number, Hold>();
  private epochs = 0;
  /** Passes in flight per shard, and who waits for them to end. */
  private readonly inFlight = new Map<number, number>();
  private readonly idle = new Map<number, Array<() => void>>();
  /** When (own clock) each Lease of the namespace last changed, by name. */
  private readonly changedAt = new Map<string, { rv?: string; at: number }>();
  /** The shard hand-overs in progress: aborting one releases that shard. */
  private readonly handOvers = new Map<number, AbortController>();
  private readonly electors = new Map<number, LeaderElector>();
  private member?: LeaderElector;
  /** From when (own clock) this replica may take shards: its member Lease held, peers given time to show. */
  private campaignFrom = Number.POSITIVE_INFINITY;
  private stopping = false;
  private lastProblem?: string;
  private overShareSince?: number;

  constructor(o: ShardSetOptions) {
    if (o.shardId !== undefined && !(o.shardId >= 0 && o.shardId < o.shards))
      throw new Error(`shard id ${o.shardId} is not below the shard count ${o.shards}`);
    this.o = o;
    const note = (l: Lease) => {
      const prev = this.changedAt.get(l.metadata.name);
      if (prev?.rv !== l.metadata.resourceVersion)
        this.changedAt.set(l.metadata.name, { rv: l.metadata.resourceVersion, at: o.clock.now() });
    };
    o.leases.on({ add: note, update: (_old, l) => note(l), delete: (l) => this.changedAt.delete(l.metadata.name) });
    for (const s of this.campaigned()) o.metrics?.shardHeld.set({ shard: String(s) }, 0);
  }

  /** This replica's name in the Leases. */
  get identity(): string {
    return this.o.identity;
  }

  /** The shards this replica campaigns for. */
  campaigned(): number[] {
    return this.o.shardId !== undefined ? [this.o.shardId] : Array.from({ length: this.o.shards }, (_, i) => i);
  }

  /** The shards held now, in order. */
  held(): number[] {
    return [...this.holds.keys()].sort((a, b) => a - b);
  }

  /** The shard of a work-queue key ("namespace/name"; "name": cluster-scoped, shard 0). */
  shardOfKey(key: string): number {
    const slash = key.indexOf('/');
    return this.o.assign(slash < 0 ? undefined : key.slice(0, slash));
  }

  /** The shard of `namespace` (undefined: cluster-scoped, shard 0). */
  shardOf(namespace: string | undefined): number {
    return this.o.assign(namespace);
  }

  /** Whether this replica holds the shard of `namespace` and starts passes for it. */
  owns(namespace: string | undefined): boolean {
    return this.runs(this.o.assign(namespace));
  }

  /** Whether passes of `shard` run on this replica now (held, its caches synced, not being handed over). */
  runs(shard: number): boolean {
    const h = this.holds.get(shard);
    return h?.synced === true && !h.releasing;
  }

  /** Whether this replica holds `shard` at all (its caches keep its objects), synced or not, handed over or not. */
  holding(shard: number): boolean {
    return this.holds.has(shard);
  }

  /** A pass of `shard` begins: its ticket, or undefined when this replica does not (or no longer, or not yet) run its passes. */
  enter(shard: number): ShardTicket | undefined {
    const h = this.holds.get(shard);
    if (!h?.synced || h.releasing) return undefined;
    this.inFlight.set(shard, (this.inFlight.get(shard) ?? 0) + 1);
    return { shard, epoch: h.epoch };
  }

  /** The pass of `ticket` ended. */
  leave(ticket: ShardTicket): void {
    const n = (this.inFlight.get(ticket.shard) ?? 1) - 1;
    this.inFlight.set(ticket.shard, n);
    if (n > 0) return;
    for (const w of this.idle.get(ticket.shard) ?? []) w();
    this.idle.delete(ticket.shard);
  }

  /** Why a write under `ticket` is refused now, or undefined (the manager's write gate). */
  refusal(ticket: ShardTicket | undefined): string | undefined {
    if (!ticket)
      return 'a write outside the reconcile of an object (a sharded replica writes only for the shard of the object it reconciles)';
    if (this.holds.get(ticket.shard)?.epoch === ticket.epoch) return undefined;
    return `this replica no longer holds shard ${ticket.shard} (lease ${this.o.namespace}/${shardLeaseName(this.o.id, ticket.shard)})`;
  }

  /** Why this replica cannot campaign at all (no namespace, RBAC), with the fix; undefined when it can. */
  campaignProblem(): string | undefined {
    if (this.holds.size > 0) return undefined;
    const electors = [this.member, ...this.electors.values()];
    for (const e of electors) {
      const p = campaignProblem(e?.campaignError(), this.o.namespace);
      if (p) return p;
    }
    return undefined;
  }

  /** The live members (member Leases changed within their duration, on this clock), this replica included. */
  liveMembers(): number {
    const prefix = `${this.o.id}-member-`;
    const now = this.o.clock.now();
    let n = 0;
    for (const l of this.o.leases.list()) {
      if (!l.metadata.name.startsWith(prefix) || !l.spec?.holderIdentity) continue;
      const at = this.changedAt.get(l.metadata.name)?.at ?? now;
      if (now - at < (l.spec.leaseDurationSeconds ?? 0) * 1000) n++;
    }
    return Math.max(1, n);
  }

  /** A shard Lease of this ring, held and live, taken with another shard count: its annotation, or undefined. */
  private otherCount(): string | undefined {
    const prefix = `${this.o.id}-shard-`;
    const now = this.o.clock.now();
    for (const l of this.o.leases.list()) {
      if (!l.metadata.name.startsWith(prefix) || !l.spec?.holderIdentity) continue;
      const count = (l.metadata.annotations as Record<string, string> | undefined)?.[SHARDS_ANNOTATION];
      if (count === undefined || count === String(this.o.shards)) continue;
      const at = this.changedAt.get(l.metadata.name)?.at ?? now;
      if (now - at < (l.spec.leaseDurationSeconds ?? 0) * 1000) return `${l.metadata.name} (${count} shards)`;
    }
    return undefined;
  }

  private say(level: 'info' | 'warn', message: string, fields: Record<string, unknown> = {}): void {
    if (message === this.lastProblem) return;
    this.lastProblem = message;
    this.o.logger.log(level, message, fields);
  }

  /** Whether to try for a shard now: campaigning has begun, no replica of another count holds one, and under the fair share. */
  private mayAcquire(): boolean {
    if (this.stopping) return false;
    if (this.o.clock.now() < this.campaignFrom) return false;
    const other = this.otherCount();
    if (other !== undefined) {
      this.say(
        'warn',
        `not taking shards while a replica of another shard count holds ${other}; this replica runs with ${this.o.shards}`,
      );
      return false;
    }
    if (this.o.shardId !== undefined) return true;
    return this.holds.size < this.o.share(this.liveMembers());
  }

  /** Campaigns until `signal` aborts; then releases every shard it holds and its member Lease. */
  async run(signal: AbortSignal): Promise<void> {
    const runs: Promise<void>[] = [];
    if (this.o.shardId === undefined) runs.push(this.runMember(signal), this.rebalance(signal));
    else this.campaignFrom = this.o.clock.now();
    for (const s of this.campaigned()) runs.push(this.campaign(s, signal));
    await Promise.all(runs);
  }

  /** The member Lease: held for the whole run; deleted on a graceful stop so peers count one fewer at once. */
  private async runMember(signal: AbortSignal): Promise<void> {
    const { clock, retryPeriodMs } = this.o;
    const name = memberLeaseName(this.o.id, this.o.identity);
    const log = this.o.logger.child({ lease: `${this.o.namespace}/${name}` });
    this.member = new LeaderElector({
      store: kubeLeaseStore(this.o.client, this.o.namespace, name),
      identity: this.o.identity,
      leaseDurationMs: this.o.leaseDurationMs,
      renewDeadlineMs: this.o.renewDeadlineMs,
      retryPeriodMs,
      clock,
      onStartedLeading: () => {
        // Replicas started together see each other before taking shards.
        this.campaignFrom = Math.min(this.campaignFrom, clock.now() + 2 * retryPeriodMs);
        log.info('joined the shard ring', { identity: this.o.identity, shards: this.o.shards });
      },
      onStoppedLeading: () => undefined,
      onError: (message, err) => this.campaignError(log, message, err),
    });
    await this.member.run(signal);
    await this.o.client
      .delete(LEASES, this.o.namespace, name)
      .catch((err: unknown) => log.debug('member lease not deleted', { error: toKubeError(err).message }));
  }

  private campaignError(log: Logger, message: string, err: KubeError | undefined): void {
    const problem = campaignProblem(err, this.o.namespace);
    if (problem) this.say('warn', problem);
    else log.debug(message);
  }

  /** One shard's Lease: campaigned for until `signal` aborts, again after each hand-over. */
  private async campaign(shard: number, signal: AbortSignal): Promise<void> {
    const { clock } = this.o;
    const name = shardLeaseName(this.o.id, shard);
    const log = this.o.logger.child({ lease: `${this.o.namespace}/${name}`, shard });
    while (!signal.aborted) {
      const handOver = new AbortController();
      this.handOvers.set(shard, handOver);
      const elector = new LeaderElector({
        store: kubeLeaseStore(this.o.client, this.o.namespace, name),
        identity: this.o.identity,
        leaseDurationMs: this.o.leaseDurationMs,
        renewDeadlineMs: this.o.renewDeadlineMs,
        retryPeriodMs: this.o.retryPeriodMs,
        clock,
        annotations: { [SHARDS_ANNOTATION]: String(this.o.shards) },
        mayAcquire: () => this.mayAcquire(),
        onStartedLeading: () => this.acquired(shard, log),
        onStoppedLeading: () =>
          this.released(shard, log, signal.aborted ? 'stop' : handOver.signal.aborted ? 'hand-over' : 'lost'),
        onError: (message, err) => this.campaignError(log, message, err),
      });
      this.electors.set(shard, elector);
      await elector.run(AbortSignal.any([signal, handOver.signal]));
    }
  }

  /**
   * A shard taken: held at once (the gate lets its writes through), but its passes start only once
   * the caches hold its objects from a list begun now (syncShard): before that a pass could find
   * none of its ReplicaSets and create one again, or miss pods. A hold lost meanwhile is not synced.
   */
  private acquired(shard: number, log: Logger): void {
    const hold: Hold = { epoch: ++this.epochs, synced: false, releasing: false };
    this.holds.set(shard, hold);
    this.o.metrics?.shardHeld.set({ shard: String(shard) }, 1);
    log.info('acquired shard', { shard, held: this.held(), identity: this.o.identity });
    const synced = (): void => {
      if (this.holds.get(shard) !== hold) return;
      hold.synced = true;
      this.o.onAcquired(shard);
    };
    if (!this.o.syncShard) {
      synced();
      return;
    }
    const began = this.o.clock.now();
    this.o.syncShard(shard).then(
      () => {
        if (this.holds.get(shard) === hold)
          log.info('shard caches synced', { shard, ms: Math.round(this.o.clock.now() - began) });
        synced();
      },
      (err: unknown) => log.error('shard caches not synced', { shard, error: toKubeError(err).message }),
    );
  }

  /**
   * A hold ends. Lost: the gate shuts at once (no write of this shard leaves this replica from
   * now). Handed over: no new pass starts, those in flight end (for at most the renew deadline,
   * while the Lease is still held), then the gate shuts and the elector releases the Lease. On a
   * stop the manager has already stopped every pass.
   */
  private async released(shard: number, log: Logger, why: 'lost' | 'hand-over' | 'stop'): Promise<void> {
    const hold = this.holds.get(shard);
    if (!hold) return;
    if (why === 'lost') {
      this.holds.delete(shard);
      log.error('lost shard: its lease was not renewed in time; stopped writing its objects', {
        shard,
        held: this.held(),
      });
    } else {
      hold.releasing = true;
      if ((this.inFlight.get(shard) ?? 0) > 0) {
        const ended = new Promise<void>((resolve) => this.idle.set(shard, [...(this.idle.get(shard) ?? []), resolve]));
        const timeout = new AbortController();
        await Promise.race([ended, this.o.clock.sleep(this.o.renewDeadlineMs, timeout.signal).catch(() => undefined)]);
        timeout.abort();
      }
      this.holds.delete(shard);
      log.info(why === 'hand-over' ? 'handing shard over' : 'releasing shard', { shard, held: this.held() });
    }
    this.o.metrics?.shardHeld.set({ shard: String(shard) }, 0);
    if (why !== 'stop') this.o.onDropped?.(shard);
  }

  /**
   * Every retry period: over the fair share for two looks in a row (members come and go: one look
   * could be a moment), hand the most recently taken shard over; and delete member Leases that have
   * not changed for three lease durations (replicas killed without a stop).
   */
  private async rebalance(signal: AbortSignal): Promise<void> {
    const { clock, retryPeriodMs, leaseDurationMs } = this.o;
    while (!signal.aborted) {
      try {
        await clock.sleep(retryPeriodMs, signal);
      } catch {
        return;
      }
      const share = this.o.share(this.liveMembers());
      const handingOver = [...this.holds.values()].some((h) => h.releasing);
      if (this.holds.size > share && !handingOver) {
        if (this.overShareSince === undefined) this.overShareSince = clock.now();
        else {
          this.overShareSince = undefined;
          const last = [...this.holds.entries()].sort((a, b) => b[1].epoch - a[1].epoch)[0]![0];
          this.o.logger.info('over the fair share: handing a shard over', {
            shard: last,
            held: this.held(),
            share,
            members: this.liveMembers(),
          });
          this.handOvers.get(last)?.abort();
        }
      } else this.overShareSince = undefined;
      const prefix = `${this.o.id}-member-`;
      const now = clock.now();
      for (const l of this.o.leases.list()) {
        if (!l.metadata.name.startsWith(prefix)) continue;
        const at = this.changedAt.get(l.metadata.name)?.at ?? now;
        if (now - at < 3 * Math.max(leaseDurationMs, (l.spec?.leaseDurationSeconds ?? 0) * 1000)) continue;
        await this.o.client
          .delete(LEASES, this.o.namespace, l.metadata.name, {
            preconditions: { resourceVersion: l.metadata.resourceVersion },
          })
          .catch(() => undefined);
      }
    }
  }

  /** Stops taking shards (the manager then aborts run(), which releases them). */
  stop(): void {
    this.stopping = true;
  }
}
