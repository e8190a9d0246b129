import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { startControlPlane } from '../../../../src/sim/control/index.ts';
import { Store } from '../../../../src/sim/store.ts';
import { REF } from '../../../../src/sim/resources.ts';
import type { KubeObject } from '../../../../src/sim/types.ts';
import { isReady, podsOf, replicaSet, statusOf, waitFor } from './helpers.ts';

const OPTS = { nodes: 2, zones: ['a', 'b'], podsPerNode: 10, podStartMs: 5, podReadyMs: 5 };

function newStore(): Store {
  const store = new Store();
  store.create(REF.namespaces, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  return store;
}

describe('sim/control plane', () => {
  let stop: (() => void) | undefined;
  afterEach(() => stop?.());

  it('picks up what the store already holds and keeps existing nodes', async () => {
    const store = newStore();
    store.create(REF.nodes, undefined, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'node-1', labels: { custom: 'yes' } },
    });
    store.create(REF.replicasets, 'default', replicaSet('web', 2));
    const plane = startControlPlane(store, OPTS);
    stop = () => plane.stop();
    await waitFor('2 available', () => statusOf(store.get(REF.replicasets, 'default', 'web')).availableReplicas === 2);
    const nodes = store.list(REF.nodes, undefined).items;
    expect(nodes.map((n) => n.metadata.name).sort()).to.deep.equal(['node-1', 'node-2']);
    expect(nodes.find((n) => n.metadata.name === 'node-1')!.metadata.labels).to.deep.equal({ custom: 'yes' });
    expect(statusOf(nodes.find((n) => n.metadata.name === 'node-2')).capacity.pods).to.equal('10');
  });

  it('records no events when asked not to, and settle() waits for queued work', async () => {
    const store = newStore();
    const plane = startControlPlane(store, { ...OPTS, events: false });
    stop = () => plane.stop();
    store.create(REF.replicasets, 'default', replicaSet('web', 2));
    await plane.settle();
    expect(podsOf(store, 'app=web')).to.have.length(2);
    await waitFor('2 ready', () => podsOf(store, 'app=web').filter(isReady).length === 2);
    expect(store.list(REF.events, 'default').items).to.have.length(0);
  });

  it('collects the ReplicaSets and pods of a deleted custom-resource owner', async () => {
    const store = newStore();
    const plane = startControlPlane(store, OPTS);
    stop = () => plane.stop();
    store.create(
      REF.customresourcedefinitions,
      undefined,
      parse(readFileSync('crds/deployments.pacer.dev.yaml', 'utf8')) as KubeObject,
    );
    const ref = { group: 'pacer.dev', version: 'v1alpha1', resource: 'deployments' };
    const owner = await waitFor('CRD served', () => {
      try {
        return store.create(ref, 'default', {
          apiVersion: 'pacer.dev/v1alpha1',
          kind: 'Deployment',
          metadata: { name: 'web' },
          spec: {
            replicas: 1,
            selector: { matchLabels: { app: 'web' } },
            template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } },
          },
        });
      } catch {
        return undefined;
      }
    });
    const rs = replicaSet('web-abc', 2, { labels: { app: 'web' } });
    rs.metadata.ownerReferences = [
      {
        apiVersion: 'pacer.dev/v1alpha1',
        kind: 'Deployment',
        name: 'web',
        uid: owner.metadata.uid!,
        controller: true,
        blockOwnerDeletion: true,
      },
    ];
    store.create(REF.replicasets, 'default', rs);
    await waitFor('2 ready', () => podsOf(store, 'app=web').filter(isReady).length === 2);
    store.delete(ref, 'default', 'web', { propagationPolicy: 'Background' });
    await waitFor(
      'rs and pods gone',
      () => !store.get(REF.replicasets, 'default', 'web-abc') && podsOf(store, 'app=web').length === 0,
    );
  });
});
