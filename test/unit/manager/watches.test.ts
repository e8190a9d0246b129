// A controller's watches (src/manager/watches.ts) as register() wires them to its queue: the keys of
// each change in order, only the changes asked for, an update only when its predicate holds; and the
// manager's one Event recorder, drained while the stopping leader still may write.

import { expect } from 'chai';
import type { KubeClient } from '../../../src/kube/client.ts';
import { settle } from '../../../src/kube/clock.ts';
import { register } from '../../../src/manager/controller.ts';
import type { InformerHandlers } from '../../../src/manager/informer.ts';
import { Manager } from '../../../src/manager/manager.ts';
import { resourceVersionChanged, watch } from '../../../src/manager/watches.ts';
import type { EventSource } from '../../../src/manager/watches.ts';
import type { WorkQueue } from '../../../src/manager/workqueue.ts';
import { silentLogger } from '../../../src/observe/logger.ts';

interface Obj {
  metadata: { name: string; resourceVersion: string };
}

/** A source whose events the test fires by hand. */
class FakeSource implements EventSource<Obj> {
  readonly handlers: InformerHandlers<Obj>[] = [];
  on(h: InformerHandlers<Obj>): void {
    this.handlers.push(h);
  }
  add(obj: Obj): void {
    for (const h of this.handlers) h.add?.(obj);
  }
  update(old: Obj, obj: Obj): void {
    for (const h of this.handlers) h.update?.(old, obj);
  }
  delete(obj: Obj): void {
    for (const h of this.handlers) h.delete?.(obj);
  }
}

const obj = (name: string, resourceVersion = '1'): Obj => ({ metadata: { name, resourceVersion } });

/** Every key queued so far, in order. */
async function queued(queue: WorkQueue): Promise<string[]> {
  const keys: string[] = [];
  while (queue.len() > 0) keys.push((await queue.get())!);
  return keys;
}

describe('manager/watches', () => {
  const noClient = {} as KubeClient;

  it('queues the keys of each change, in the order of the watches and of their keys', async () => {
    const mgr = new Manager({ client: noClient, logger: silentLogger() });
    const a = new FakeSource();
    const b = new FakeSource();
    const ctl = register(mgr, {
      name: 'test',
      reconcile: async () => ({}),
      watches: [
        watch(a, { keys: ({ type, obj: o }) => [`${type}:${o.metadata.name}`, 'shared'] }),
        watch(b, { keys: ({ obj: o }) => [`b:${o.metadata.name}`] }),
      ],
    });
    a.add(obj('x'));
    b.delete(obj('y'));
    a.update(obj('x'), obj('x', '2'));
    expect(await queued(ctl.queue)).to.deep.equal(['add:x', 'shared', 'b:y', 'update:x']);
  });

  it('wakes only on the changes in `on`, and on an update only when `changed` holds', async () => {
    const mgr = new Manager({ client: noClient, logger: silentLogger() });
    const src = new FakeSource();
    const ctl = register(mgr, {
      name: 'test',
      reconcile: async () => ({}),
      watches: [
        watch(src, {
          on: ['update', 'delete'],
          changed: resourceVersionChanged,
          keys: ({ type, obj: o }) => [`${type}:${o.metadata.name}`],
        }),
      ],
    });
    src.add(obj('added'));
    src.update(obj('resynced'), obj('resynced'));
    src.update(obj('stored'), obj('stored', '2'));
    src.delete(obj('gone'));
    expect(await queued(ctl.queue)).to.deep.equal(['update:stored', 'delete:gone']);
  });

  it('one Event recorder for every controller, drained when the leader-only runnables stopped, before the gate shuts', async () => {
    const written: Array<string | undefined> = [];
    let mgr: Manager | undefined;
    const sink = {
      // Each write takes a while: the second starts only once the first is done.
      createEvent: async () => {
        written.push(mgr!.writeRefusal() ?? 'open');
        await new Promise((resolve) => setTimeout(resolve, 20));
      },
      patchEvent: async () => undefined,
    };
    mgr = new Manager({ client: sink as unknown as KubeClient, logger: silentLogger() });
    const recorder = mgr.eventRecorder();
    expect(mgr.eventRecorder()).to.equal(recorder);
    mgr.add({
      name: 'reconciler',
      needLeaderElection: true,
      start: (signal) =>
        new Promise<void>((resolve) => {
          signal.addEventListener(
            'abort',
            () => {
              recorder.record({ metadata: { name: 'web', namespace: 'shop' } }, 'Normal', 'Stopping', 'the last pass');
              recorder.record({ metadata: { name: 'api', namespace: 'shop' } }, 'Normal', 'Stopping', 'the last pass');
              resolve();
            },
            { once: true },
          );
        }),
    });
    mgr.start();
    await settle();
    await mgr.stop();
    expect(written).to.deep.equal(['open', 'open']);
  });
});
