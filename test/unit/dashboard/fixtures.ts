// Shared by the dashboard's server tests: an informer source fed by the test.

import type { WatchEvent } from '../../../src/kube/client.ts';
import type { ListWatchSource } from '../../../src/manager/informer.ts';
import { eventually } from '../../integration/fixtures/cluster.ts';

/** A source that lists `items` and then delivers what the test pushes. */
export function fakeSource<T extends { metadata: { resourceVersion?: string } }>(items: T[]) {
  let emit: ((e: WatchEvent<T>) => void) | undefined;
  let rv = 100;
  const source: ListWatchSource<T> = {
    list: async () => ({ items, resourceVersion: '1' }),
    watch: (_rv, onEvent, signal, onOpen) =>
      new Promise<void>((resolve) => {
        emit = onEvent;
        onOpen?.();
        signal.addEventListener('abort', () => resolve(), { once: true });
      }),
  };
  return {
    source,
    async push(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: T) {
      await eventually('the watch to be open', () => emit !== undefined);
      emit!({ type, object: { ...obj, metadata: { ...obj.metadata, resourceVersion: String(++rv) } } });
    },
  };
}
