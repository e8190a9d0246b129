// core/v1 Events from the simulated controllers, so that `kubectl describe` shows what happened
// (SuccessfulCreate, Scheduled, FailedScheduling, ...). A real cluster expires events after an
// hour; here the oldest ones go once the control plane has written `cap` of them, which keeps
// memory bounded in large simulations.

import { REF } from '../resources.ts';
import type { KubeObject, StoreApi } from '../types.ts';
import { isoTime } from './util.ts';

export interface EventRecorder {
  record(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string, component: string): void;
}

export const noEvents: EventRecorder = { record: () => {} };

export function eventRecorder(store: StoreApi, now: () => number, cap = 5000): EventRecorder {
  const written: Array<{ namespace: string; name: string }> = [];
  let seq = 0;
  return {
    record(obj, type, reason, message, component) {
      const namespace = obj.metadata.namespace ?? 'default';
      const t = now();
      // Upstream names events "<object>.<nanoseconds in hex>".
      const name = `${obj.metadata.name}.${(BigInt(t) * 1_000_000n + BigInt(seq++ % 1_000_000)).toString(16)}`;
      const ts = isoTime(t);
      try {
        store.create(
          REF.events,
          namespace,
          {
            apiVersion: 'v1',
            kind: 'Event',
            metadata: { name, namespace },
            involvedObject: {
              kind: obj.kind,
              namespace,
              name: obj.metadata.name,
              uid: obj.metadata.uid,
              apiVersion: obj.apiVersion,
              resourceVersion: obj.metadata.resourceVersion,
            },
            reason,
            message,
            source: { component },
            firstTimestamp: ts,
            lastTimestamp: ts,
            count: 1,
            type,
            eventTime: null,
            reportingComponent: component,
            reportingInstance: '',
          },
          { actor: `sim/${component}` },
        );
      } catch {
        return; // e.g. the namespace is terminating: events are best effort
      }
      written.push({ namespace, name });
      while (written.length > cap) {
        const old = written.shift()!;
        try {
          store.delete(REF.events, old.namespace, old.name, { actor: `sim/${component}` });
        } catch {
          // Already gone.
        }
      }
    },
  };
}
