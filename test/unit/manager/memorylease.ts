// An in-memory Lease for leader election tests: every candidate shares it, and writes check the
// resourceVersion as the API server does (409 when stale).

import { KubeError } from '../../../src/kube/errors.ts';
import type { Lease, LeaseSpec, LeaseStore } from '../../../src/manager/leaderelection.ts';

export class MemoryLease {
  lease?: Lease;
  rv = 0;
  /** While set, every request fails (the API server unreachable for that candidate). */
  down = new Set<string>();
  writes: Array<{ by: string; spec: LeaseSpec }> = [];
  /** The watches open now (a store made with { watch: true }), each told of every change. */
  private watchers = new Set<(lease: Lease | undefined) => void>();
  /** While set, a watch fails at once with this error (RBAC without the watch verb, say). */
  watchError?: KubeError;
  /** How many watches were asked for. */
  watches = 0;

  private changed(): void {
    for (const w of this.watchers) w(this.lease && structuredClone(this.lease));
  }

  /** A candidate's store; with `watch`, it can also watch the Lease, as kubeLeaseStore can. */
  store(who: string, opts: { watch?: boolean } = {}): LeaseStore {
    const check = (signal: AbortSignal): void => {
      if (this.down.has(who)) throw new KubeError('Unreachable', 'connection refused');
      if (signal.aborted) throw new KubeError('Unreachable', 'aborted');
    };
    const watch: LeaseStore['watch'] = async (signal, onChange) => {
      this.watches++;
      check(signal);
      if (this.watchError) throw this.watchError;
      onChange(this.lease && structuredClone(this.lease));
      this.watchers.add(onChange);
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      this.watchers.delete(onChange);
    };
    return {
      ...(opts.watch ? { watch } : {}),
      namespace: 'pacer-system',
      name: 'pacer-controller',
      get: async (signal) => {
        check(signal);
        return this.lease && structuredClone(this.lease);
      },
      create: async (lease, signal) => {
        check(signal);
        if (this.lease) throw new KubeError('AlreadyExists', 'leases "pacer-controller" already exists', { code: 409 });
        this.lease = { ...structuredClone(lease), metadata: { ...lease.metadata, resourceVersion: String(++this.rv) } };
        this.writes.push({ by: who, spec: structuredClone(lease.spec!) });
        this.changed();
        return structuredClone(this.lease);
      },
      update: async (lease, signal) => {
        check(signal);
        if (!this.lease) throw new KubeError('NotFound', 'not found', { code: 404 });
        if (lease.metadata.resourceVersion !== this.lease.metadata.resourceVersion) {
          throw new KubeError('Conflict', 'the object has been modified', { code: 409 });
        }
        this.lease = { ...structuredClone(lease), metadata: { ...lease.metadata, resourceVersion: String(++this.rv) } };
        this.writes.push({ by: who, spec: structuredClone(lease.spec!) });
        this.changed();
        return structuredClone(this.lease);
      },
    };
  }
}
