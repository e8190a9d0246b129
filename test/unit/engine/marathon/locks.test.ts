// The lock rule and force planning (src/engine/marathon/locks.ts). Rows read like the examples of
// docs/semantics/marathon.md#one-deployment-per-app-locks-and-force: db ← app upgraded together, a further change to app while it is in the
// deployment plan, forced, metadata-only, creates and deletes, apps without relations.

import { expect } from 'chai';
import type { Deployment } from '../../../../src/api/types.ts';
import { activePlans } from '../../../../src/engine/marathon/deploymentplans.ts';
import {
  CANCELLED_PLAN_ANNOTATION,
  FORCE_ANNOTATION,
  checkLock,
  lockedMessage,
  planForce,
  shouldClearCancelled,
} from '../../../../src/engine/marathon/locks.ts';
import type { AdmissionOperation } from '../../../../src/engine/marathon/locks.ts';

const NOW = Date.parse('2026-03-01T11:00:00.000Z');

/**
 * An app stored as the controller leaves it: 'complete', 'rolling' (template change observed, old
 * replicas remain), 'upgrade' (not yet observed) or 'waiting' (observed, held back by its dependencies).
 */
function app(
  name: string,
  state: 'complete' | 'rolling' | 'upgrade' | 'waiting',
  deps?: string[],
  annotations: Record<string, string> = {},
): Deployment {
  const rolling = state === 'rolling';
  return {
    apiVersion: 'pacer.dev/v1alpha1',
    kind: 'Deployment',
    metadata: {
      name,
      namespace: 'default',
      uid: `uid-${name}`,
      generation: 2,
      creationTimestamp: '2026-03-01T10:00:00.000Z',
      annotations: { 'pacer.dev/revision': rolling ? '2' : '1', ...annotations },
    },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'v1' }] } },
      ...(deps ? { dependencies: deps } : {}),
    },
    status: {
      observedGeneration: state === 'upgrade' ? 1 : 2,
      replicas: rolling ? 4 : 3,
      updatedReplicas: rolling ? 1 : state === 'waiting' ? 0 : 3,
      availableReplicas: 3,
      conditions: [
        {
          type: 'Progressing',
          status: 'True',
          reason: rolling ? 'ReplicaSetUpdated' : 'NewReplicaSetAvailable',
          lastTransitionTime: '2026-03-01T10:00:01.000Z',
        },
      ],
    },
  };
}

const withImage = (d: Deployment, image: string, annotations: Record<string, string> = {}): Deployment => ({
  ...d,
  metadata: { ...d.metadata, annotations: { ...d.metadata.annotations, ...annotations } },
  spec: { ...d.spec, template: { ...d.spec.template, spec: { containers: [{ name: 'c', image }] } } },
});
const withLabel = (d: Deployment): Deployment => ({ ...d, metadata: { ...d.metadata, labels: { team: 'a' } } });

describe('locks: the lock rule (one deployment plan per app)', () => {
  const db = app('db', 'rolling');
  const appWaiting = app('app', 'upgrade', ['db']);
  const together = [db, appWaiting];
  const blockingId = activePlans(together, NOW).find((x) => x.affectedApps.includes('/default/app'))!.id;

  const rows: Array<{
    row: string;
    op: AdmissionOperation;
    old?: Deployment;
    obj?: Deployment;
    all: Deployment[];
    refused: boolean;
  }> = [
    {
      row: 'no relations: a further change supersedes the rollout (rollover)',
      op: 'UPDATE',
      old: app('web', 'rolling'),
      obj: withImage(app('web', 'rolling'), 'v3'),
      all: [app('web', 'rolling')],
      refused: false,
    },
    {
      row: 'db ← app upgrading: a further change to app is refused',
      op: 'UPDATE',
      old: appWaiting,
      obj: withImage(appWaiting, 'v3'),
      all: together,
      refused: true,
    },
    {
      row: 'db ← app upgrading: a further change to db is refused',
      op: 'UPDATE',
      old: db,
      obj: withImage(db, 'v3'),
      all: together,
      refused: true,
    },
    {
      row: 'forced change to app is accepted',
      op: 'UPDATE',
      old: appWaiting,
      obj: withImage(appWaiting, 'v3', { [FORCE_ANNOTATION]: 'true' }),
      all: together,
      refused: false,
    },
    {
      row: 'force annotation other than "true" does not force',
      op: 'UPDATE',
      old: appWaiting,
      obj: withImage(appWaiting, 'v3', { [FORCE_ANNOTATION]: 'yes' }),
      all: together,
      refused: true,
    },
    {
      row: 'metadata-only change (labels) is accepted',
      op: 'UPDATE',
      old: appWaiting,
      obj: withLabel(appWaiting),
      all: together,
      refused: false,
    },
    { row: 'create is accepted', op: 'CREATE', obj: withImage(appWaiting, 'v3'), all: together, refused: false },
    { row: 'delete is accepted', op: 'DELETE', old: appWaiting, all: together, refused: false },
    {
      row: 'app with relations, nothing in motion: accepted',
      op: 'UPDATE',
      old: app('app', 'complete', ['db']),
      obj: withImage(app('app', 'complete', ['db']), 'v3'),
      all: [app('db', 'complete'), app('app', 'complete', ['db'])],
      refused: false,
    },
    {
      row: 'db in motion, app complete: app is not a member, its change is accepted',
      op: 'UPDATE',
      old: app('app', 'complete', ['db']),
      obj: withImage(app('app', 'complete', ['db']), 'v3'),
      all: [db, app('app', 'complete', ['db'])],
      refused: false,
    },
  ];
  for (const r of rows) {
    it(r.row, () => {
      const v = checkLock({ operation: r.op, object: r.obj, oldObject: r.old, deployments: r.all, now: NOW });
      expect(v.allowed).to.equal(!r.refused);
      if (!v.allowed) {
        expect(v.code).to.equal(409);
        expect(v.reason).to.equal('Conflict');
        expect(v.deployments).to.deep.equal([{ id: blockingId }]);
        expect(v.message).to.equal(
          `App is locked by one or more deployments. Override with the annotation pacer.dev/force: "true". View details at '/v2/deployments/${blockingId}'.`,
        );
      }
    });
  }

  it('the message names every blocking deployment plan', () => {
    expect(lockedMessage(['a', 'b'])).to.contain(`'/v2/deployments/a', '/v2/deployments/b'`);
  });
});

describe('locks: force plans the cancel of the deployment plan the app was in', () => {
  const db = app('db', 'rolling');
  const appWaiting = app('app', 'waiting', ['db']);
  const before = activePlans([db, appWaiting], NOW)[0];

  it('forced app (its change not yet observed): the other member is stamped with the id the 409 named, force consumed', () => {
    const forced = withImage({ ...appWaiting, metadata: { ...appWaiting.metadata, generation: 3 } }, 'v3', {
      [FORCE_ANNOTATION]: 'true',
    });
    const p = planForce(forced, [db, forced], NOW);
    expect(p.cancelled?.id).to.equal(before.id);
    expect(p.stamp).to.deep.equal(['default/db']);
    expect(p.consume).to.equal(true);
  });
  it('forced before the controller observed the change the 409 refused to follow: the plan the 409 named is cancelled all the same', () => {
    const upgrading = app('app', 'upgrade', ['db']); // generation 2 stored, 1 observed
    const named = activePlans([db, upgrading], NOW).find((x) => x.affectedApps.includes('/default/app'))!;
    const forced = withImage({ ...upgrading, metadata: { ...upgrading.metadata, generation: 3 } }, 'v3', {
      [FORCE_ANNOTATION]: 'true',
    });
    const p = planForce(forced, [db, forced], NOW);
    expect(p.cancelled?.id).to.equal(named.id);
    expect(p.stamp).to.deep.equal(['default/db']);
  });
  it('not forced: nothing', () => {
    expect(planForce(appWaiting, [db, appWaiting], NOW)).to.deep.equal({ stamp: [], consume: false });
  });
  it('forced app that was in no deployment plan: nothing to cancel, force consumed', () => {
    const done = app('app', 'complete', ['db']);
    const forced = withImage({ ...done, metadata: { ...done.metadata, generation: 3 } }, 'v3', {
      [FORCE_ANNOTATION]: 'true',
    });
    const p = planForce(forced, [app('db', 'complete'), forced], NOW);
    expect(p).to.deep.equal({ stamp: [], consume: true });
  });
  it('a member already stamped with that id is not stamped again', () => {
    const forced = withImage({ ...appWaiting, metadata: { ...appWaiting.metadata, generation: 3 } }, 'v3', {
      [FORCE_ANNOTATION]: 'true',
    });
    const stamped = {
      ...db,
      metadata: { ...db.metadata, annotations: { ...db.metadata.annotations, [CANCELLED_PLAN_ANNOTATION]: before.id } },
    };
    expect(planForce(forced, [stamped, forced], NOW).stamp).to.deep.equal([]);
  });
  it('the stamp is cleared once the app is complete, not before', () => {
    const stamp = { [CANCELLED_PLAN_ANNOTATION]: 'x' };
    expect(shouldClearCancelled(app('db', 'rolling', undefined, stamp))).to.equal(false);
    expect(shouldClearCancelled(app('db', 'complete', undefined, stamp))).to.equal(true);
    expect(shouldClearCancelled(app('db', 'complete'))).to.equal(false);
  });
});
