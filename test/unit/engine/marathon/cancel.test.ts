// Cancelling a deployment plan on the server side (src/engine/marathon/cancel.ts, src/engine/marathon/requests.ts).
// Rows read like docs/semantics/marathon.md#cancelling-a-deployment: db ← app upgraded
// together and cancelled, rolled back or stopped; a fan-out interrupted and resumed; a request for
// a plan that moved on; each app's own write and Event. Every snapshot is deep-frozen: the requests
// never change their input either.

import { expect } from 'chai';
import type { Deployment, DeploymentStatus } from '../../../../src/api/types.ts';
import { activePlans } from '../../../../src/engine/marathon/deploymentplans.ts';
import {
  CANCEL_ANNOTATION,
  CANCEL_REQUEST_ANNOTATION,
  cancelOrder,
  carryOutCancel,
  consumesCancelStamp,
  fanOutCancel,
  parseCancel,
} from '../../../../src/engine/marathon/cancel.ts';
import type { CancelRequest } from '../../../../src/engine/marathon/cancel.ts';
import { checkLock } from '../../../../src/engine/marathon/locks.ts';
import { decide } from '../../../../src/engine/decide.ts';
import type { Action, PatchAction, UpdateAction } from '../../../../src/engine/types.ts';
import { T0, deployment, replicaSet } from '../../plugin/fixtures.ts';
import { deepFreeze } from '../fixtures.ts';

/** A rollout under way: revision 2, one old replica left. */
const rolling: DeploymentStatus = {
  observedGeneration: 2,
  replicas: 4,
  updatedReplicas: 1,
  availableReplicas: 3,
  conditions: [
    {
      type: 'Progressing',
      status: 'True',
      reason: 'ReplicaSetUpdated',
      lastTransitionTime: new Date(T0).toISOString(),
    },
  ],
};

function app(
  name: string,
  o: {
    deps?: string[];
    paused?: boolean;
    deleting?: boolean;
    annotations?: Record<string, string>;
    image?: string;
  } = {},
): Deployment {
  const d = deployment(name, {
    generation: 2,
    status: rolling,
    annotations: { 'pacer.dev/revision': '2', ...o.annotations },
    ...(o.paused ? { paused: true } : {}),
    ...(o.image ? { image: o.image } : {}),
  });
  if (o.deps) d.spec.dependencies = o.deps;
  if (o.deleting) d.metadata.deletionTimestamp = new Date(T0 + 1000).toISOString();
  return d;
}

/** The first container's image of a Deployment's template. */
const imageOf = (d: Deployment): string | undefined =>
  (d.spec.template?.spec as { containers?: Array<{ image?: string }> } | undefined)?.containers?.[0]?.image;

/** An app whose rollout is done. */
function complete(name: string, deps?: string[]): Deployment {
  const d = deployment(name, {
    generation: 2,
    annotations: { 'pacer.dev/revision': '2' },
    status: {
      observedGeneration: 2,
      replicas: 3,
      updatedReplicas: 3,
      availableReplicas: 3,
      readyReplicas: 3,
      conditions: [
        {
          type: 'Progressing',
          status: 'True',
          reason: 'NewReplicaSetAvailable',
          lastTransitionTime: new Date(T0).toISOString(),
        },
      ],
    },
  });
  if (deps) d.spec.dependencies = deps;
  return d;
}

/** How an action reads in a row: `patch ns/name k=v k-`, `update Deployment name`. */
function line(a: Action): string {
  if (a.verb === 'patch')
    return `patch ${a.namespace}/${a.name} ${Object.entries(a.annotations)
      .map(([k, v]) => (v === null ? `${k}-` : `${k}=${v}`))
      .join(' ')}${a.resourceVersion ? ' (guarded)' : ''}`;
  return `${a.verb} ${a.kind} ${a.name}`;
}

describe('cancel: the request and the stamps', () => {
  it('reads "<mode>:<id>" back, and says when a value is not one', () => {
    expect(parseCancel('rollback:0b6a2a4c-1d2e-8f00-9abc-0123456789ab')).to.deep.equal({
      mode: 'rollback',
      id: '0b6a2a4c-1d2e-8f00-9abc-0123456789ab',
    });
    expect(parseCancel('stop:abc')).to.deep.equal({ mode: 'stop', id: 'abc' });
    expect(parseCancel(undefined)).to.equal(undefined);
    for (const bad of ['', 'rollback', 'pause:abc', 'rollback:', 'stop:ABC', 'rollback:abc; rm'])
      expect(parseCancel(bad), bad).to.equal('invalid');
  });

  describe("the order: dependents first (what Marathon's rollback reverses)", () => {
    const rows: Array<[string, Deployment[], string[]]> = [
      ['db ← app: app first', [app('db'), app('app', { deps: ['db'] })], ['default/app', 'default/db']],
      [
        'a; b→a; c→a; d→b: d, then b and c, then a',
        [app('a'), app('b', { deps: ['a'] }), app('c', { deps: ['a'] }), app('d', { deps: ['b'] })],
        ['default/d', 'default/b', 'default/c', 'default/a'],
      ],
      ['one being deleted: left out', [app('db'), app('app', { deps: ['db'], deleting: true })], ['default/db']],
    ];
    for (const [name, items, want] of rows) {
      it(name, () => {
        const [plan] = activePlans(items, T0);
        expect(cancelOrder(items, plan).map((d) => `${d.metadata.namespace}/${d.metadata.name}`)).to.deep.equal(want);
      });
    }
  });

  describe('the fan-out, on the app that carries the request', () => {
    const together = [app('db'), app('app', { deps: ['db'] })];
    const id = activePlans(together, T0)[0].id;
    const request: CancelRequest = { mode: 'rollback', id };
    const value = `rollback:${id}`;
    const carrying = (d: Deployment, v = value) => ({
      ...d,
      metadata: { ...d.metadata, annotations: { ...d.metadata.annotations, [CANCEL_REQUEST_ANNOTATION]: v } },
    });
    const stamped = (d: Deployment, v = value) => ({
      ...d,
      metadata: { ...d.metadata, annotations: { ...d.metadata.annotations, [CANCEL_ANNOTATION]: v } },
    });

    const rows: Array<{ row: string; carrier: string; all: Deployment[]; want: string[]; event: string }> = [
      {
        row: 'db ← app, the request on app: db stamped, then app swaps its request for the stamp',
        carrier: 'app',
        all: [together[0], carrying(together[1])],
        want: [
          `patch default/db ${CANCEL_ANNOTATION}=${value}`,
          `patch default/app ${CANCEL_REQUEST_ANNOTATION}- ${CANCEL_ANNOTATION}=${value} (guarded)`,
        ],
        event: `Normal DeploymentPlanCancelling: Deployment plan ${id}: cancelling (rollback) /default/app, /default/db`,
      },
      {
        row: "resumed after a restart that came after db's stamp: db is not stamped again",
        carrier: 'app',
        all: [stamped(together[0]), carrying(together[1])],
        want: [`patch default/app ${CANCEL_REQUEST_ANNOTATION}- ${CANCEL_ANNOTATION}=${value} (guarded)`],
        event: `Normal DeploymentPlanCancelling: Deployment plan ${id}: cancelling (rollback) /default/app, /default/db`,
      },
      {
        row: "the plan moved on (app complete): nothing cancelled, db's stamp taken back, the request removed",
        carrier: 'app',
        all: [stamped(together[0]), carrying(complete('app', ['db']))],
        want: [`patch default/db ${CANCEL_ANNOTATION}-`, `patch default/app ${CANCEL_REQUEST_ANNOTATION}- (guarded)`],
        event: `Warning DeploymentPlanCancelFailed: Deployment plan ${id}: not cancelled: no such active deployment plan (it finished or changed since the request)`,
      },
      {
        row: 'the carrier is being deleted since the request: the others are still stamped, it only loses its request',
        carrier: 'app',
        all: [
          together[0],
          carrying({
            ...together[1],
            metadata: { ...together[1].metadata, deletionTimestamp: new Date(T0).toISOString() },
          }),
        ],
        want: [
          `patch default/db ${CANCEL_ANNOTATION}=${value}`,
          `patch default/app ${CANCEL_REQUEST_ANNOTATION}- (guarded)`,
        ],
        event: `Normal DeploymentPlanCancelling: Deployment plan ${id}: cancelling (rollback) /default/db`,
      },
      {
        row: 'the request on an app outside the plan: refused, nothing stamped',
        carrier: 'web',
        all: [...together, carrying(deployment('web'))],
        want: [`patch default/web ${CANCEL_REQUEST_ANNOTATION}- (guarded)`],
        event: `Warning DeploymentPlanCancelFailed: Deployment plan ${id}: not cancelled: /default/web is not one of its apps (the request must be on one of them)`,
      },
    ];
    for (const r of rows) {
      it(r.row, () => {
        const carrier = r.all.find((d) => d.metadata.name === r.carrier)!;
        const actions = fanOutCancel(carrier, request, r.all, T0);
        expect(actions.map(line)).to.deep.equal(r.want);
        const e = actions.at(-1)!.event!;
        expect(`${e.type} ${e.reason}: ${e.message}`).to.equal(r.event);
      });
    }

    it("decide(): the carrier's pass is the fan-out only (no ReplicaSet write, no status write)", () => {
      const all = [together[0], carrying(together[1])];
      const decision = decide(deepFreeze({ deployment: all[1], replicaSets: [], pods: [], now: T0, deployments: all }));
      expect(decision.actions.map(line)).to.deep.equal(rows[0].want);
      expect(decision.objects.deployment.metadata.annotations)
        .to.include({ [CANCEL_ANNOTATION]: value })
        .and.not.have.property(CANCEL_REQUEST_ANNOTATION);
    });

    it('decide(): a stamped app waits while the request stands (an ordinary pass, a look again in 1 s), then acts', () => {
      const db = stamped(together[0]);
      const waiting = decide(
        deepFreeze({ deployment: db, replicaSets: [], pods: [], now: T0, deployments: [db, carrying(together[1])] }),
      );
      expect(waiting.actions.some((a) => a.verb === 'patch')).to.equal(false);
      expect(waiting.objects.deployment.metadata.annotations, 'the stamp stays').to.include({
        [CANCEL_ANNOTATION]: value,
      });
      expect(imageOf(waiting.objects.deployment), 'not rolled back yet').to.equal('nginx:1.27');
      expect(waiting.requeueAfterSeconds).to.equal(1);
      const acting = decide(
        deepFreeze({ deployment: db, replicaSets: [], pods: [], now: T0, deployments: [db, stamped(together[1])] }),
      );
      expect(acting.actions.map(line)).to.deep.equal([`patch default/db ${CANCEL_ANNOTATION}- (guarded)`]);
      expect(acting.actions[0].event?.message).to.equal(
        `Deployment plan ${id}: cannot roll back: no rollout history found for deployment "db"`,
      );
    });

    it('decide(): an invalid request is removed with a Warning that names the annotation and the shape wanted', () => {
      const bad = carrying(together[1], 'undo please');
      const decision = decide(
        deepFreeze({ deployment: bad, replicaSets: [], pods: [], now: T0, deployments: [together[0], bad] }),
      );
      expect(decision.actions.map(line)).to.deep.equal([`patch default/app ${CANCEL_REQUEST_ANNOTATION}- (guarded)`]);
      expect(decision.actions[0].event).to.deep.include({ type: 'Warning', reason: 'DeploymentPlanCancelFailed' });
      expect(decision.actions[0].event!.message).to.equal(
        `invalid ${CANCEL_REQUEST_ANNOTATION} "undo please": want "rollback:<id>" or "stop:<id>" (the ID from kubectl pacer deployments); removed`,
      );
    });
  });

  describe('each stamped app carries out its own cancel, in one write with one Event', () => {
    const ID = '0b6a2a4c-1d2e-8f00-9abc-0123456789ab';
    const stop: CancelRequest = { mode: 'stop', id: ID };
    const rollback: CancelRequest = { mode: 'rollback', id: ID };
    const withStamp = (d: Deployment, r: CancelRequest) => ({
      ...d,
      metadata: { ...d.metadata, annotations: { ...d.metadata.annotations, [CANCEL_ANNOTATION]: `${r.mode}:${r.id}` } },
    });
    const history = (d: Deployment) => [
      replicaSet(d, 'aaa', { revision: 1, image: 'nginx:1.27' }),
      replicaSet(d, 'bbb', { revision: 2, image: 'nginx:1.28' }),
    ];

    const rows: Array<{
      row: string;
      d: Deployment;
      r: CancelRequest;
      rss?: 'history' | 'one';
      write: string;
      event: string;
      image?: string;
      paused?: boolean;
    }> = [
      {
        row: 'stop: paused where it stands',
        d: app('db'),
        r: stop,
        write: 'update Deployment db',
        event: 'Normal DeploymentPlanCancelled: paused',
        paused: true,
      },
      {
        row: 'stop: already paused, only the stamp goes',
        d: app('db', { paused: true }),
        r: stop,
        write: `patch default/db ${CANCEL_ANNOTATION}- (guarded)`,
        event: 'Normal DeploymentPlanCancelled: already paused',
      },
      {
        row: 'stop: being deleted, not paused',
        d: app('db', { deleting: true }),
        r: stop,
        write: `patch default/db ${CANCEL_ANNOTATION}- (guarded)`,
        event: 'Normal DeploymentPlanCancelled: is being deleted: not paused',
      },
      {
        row: 'rollback: rolled out (its template has revision 2): back to revision 1',
        d: app('db', { image: 'nginx:1.28' }),
        r: rollback,
        rss: 'history',
        write: 'update Deployment db',
        event: 'Normal DeploymentPlanCancelled: rolled back to revision 1',
        image: 'nginx:1.27',
      },
      {
        row: 'rollback: waited on its dependencies (no ReplicaSet for its template): back to the latest, revision 2',
        d: app('app', { image: 'nginx:1.29' }),
        r: rollback,
        rss: 'history',
        write: 'update Deployment app',
        event: 'Normal DeploymentPlanCancelled: rolled back to revision 2',
        image: 'nginx:1.28',
      },
      {
        row: 'rollback: no earlier revision: not rolled back (Warning)',
        d: app('db'),
        r: rollback,
        rss: 'one',
        write: `patch default/db ${CANCEL_ANNOTATION}- (guarded)`,
        event: 'Warning DeploymentPlanCancelFailed: cannot roll back: no rollout history found for deployment "db"',
      },
      {
        row: "rollback: paused: not rolled back (Warning, kubectl's words)",
        d: app('db', { paused: true, image: 'nginx:1.28' }),
        r: rollback,
        rss: 'history',
        write: `patch default/db ${CANCEL_ANNOTATION}- (guarded)`,
        event:
          "Warning DeploymentPlanCancelFailed: cannot roll back: you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again",
      },
      {
        row: 'rollback: being deleted: not rolled back',
        d: app('db', { deleting: true, image: 'nginx:1.28' }),
        r: rollback,
        rss: 'history',
        write: `patch default/db ${CANCEL_ANNOTATION}- (guarded)`,
        event: 'Normal DeploymentPlanCancelled: is being deleted: not rolled back',
      },
    ];
    for (const r of rows) {
      it(r.row, () => {
        const d = withStamp(r.d, r.r);
        const rss = r.rss === 'history' ? history(d) : r.rss === 'one' ? [replicaSet(d, 'aaa', { revision: 1 })] : [];
        const action = carryOutCancel(deepFreeze({ deployment: d, replicaSets: rss, pods: [], now: T0 }), r.r);
        expect(line(action)).to.equal(r.write);
        expect(`${action.event!.type} ${action.event!.reason}: ${action.event!.message}`).to.equal(
          `${r.event.replace(/: /, `: Deployment plan ${ID}: `)}`,
        );
        if (action.verb !== 'update') return;
        const after = (action as UpdateAction).object as Deployment;
        expect(after.metadata.annotations, 'the stamp goes in the same write').to.not.have.property(CANCEL_ANNOTATION);
        if (r.paused) expect(after.spec.paused).to.equal(true);
        if (r.image) {
          expect(imageOf(after)).to.equal(r.image);
          expect(after.spec.template?.metadata?.labels, 'no pod-template-hash label').to.deep.equal({
            app: d.metadata.name,
          });
          expect(after.metadata.annotations, 'it no longer waits on the plan it left').to.include({
            'pacer.dev/cancelled-deployment': ID,
          });
        }
      });
    }

    it("a stale copy of Pacer's requests on the old ReplicaSet does not come back with the rollback", () => {
      const d = withStamp(app('db', { image: 'nginx:1.28' }), rollback);
      const rss = history(d);
      rss[0].metadata.annotations = {
        ...rss[0].metadata.annotations,
        'pacer.dev/force': 'true',
        [CANCEL_REQUEST_ANNOTATION]: 'stop:abc',
        [CANCEL_ANNOTATION]: 'stop:abc',
      };
      const action = carryOutCancel(
        deepFreeze({ deployment: d, replicaSets: rss, pods: [], now: T0 }),
        rollback,
      ) as UpdateAction;
      expect(Object.keys((action.object as Deployment).metadata.annotations ?? {})).to.not.include.members([
        'pacer.dev/force',
        CANCEL_REQUEST_ANNOTATION,
        CANCEL_ANNOTATION,
      ]);
    });
  });

  describe('the lock admits the write that carries out a cancel', () => {
    const db = app('db');
    const appRolling = app('app', { deps: ['db'] });
    const stampedDb = {
      ...db,
      metadata: { ...db.metadata, annotations: { ...db.metadata.annotations, [CANCEL_ANNOTATION]: 'stop:abc' } },
    };
    const paused = (d: Deployment, annotations: Record<string, string>) => ({
      ...d,
      metadata: { ...d.metadata, annotations },
      spec: { ...d.spec, paused: true },
    });
    const rows: Array<[string, Deployment, Deployment, boolean]> = [
      [
        'a stamped app paused, its stamp removed: admitted',
        stampedDb,
        paused(stampedDb, { 'pacer.dev/revision': '2' }),
        true,
      ],
      [
        'a stamped app paused, its stamp kept: refused',
        stampedDb,
        paused(stampedDb, stampedDb.metadata.annotations!),
        false,
      ],
      ['an app without a stamp paused: refused (it is in the plan)', db, paused(db, db.metadata.annotations!), false],
    ];
    for (const [name, old, obj, allowed] of rows) {
      it(name, () => {
        expect(consumesCancelStamp(old, obj)).to.equal(allowed);
        expect(
          checkLock({ operation: 'UPDATE', oldObject: old, object: obj, deployments: [old, appRolling], now: T0 })
            .allowed,
        ).to.equal(allowed);
      });
    }
  });

  it("decide(): force stamps the other app as actions of the forced app's pass", () => {
    const db = app('db');
    // app's change is not yet observed (generation 3 > observedGeneration 2), and forced.
    const forced = app('app', { deps: ['db'], annotations: { 'pacer.dev/force': 'true' } });
    forced.metadata.generation = 3;
    const id = activePlans([db, app('app', { deps: ['db'] })], T0)[0].id;
    const decision = decide(
      deepFreeze({ deployment: forced, replicaSets: [], pods: [], now: T0, deployments: [db, forced] }),
    );
    expect(decision.actions.map(line)).to.deep.equal([
      `patch default/db pacer.dev/cancelled-deployment=${id}`,
      `patch default/app pacer.dev/force- pacer.dev/cancelled-deployment=${id} (guarded)`,
    ]);
    expect((decision.actions[0] as PatchAction).event?.reason).to.equal('DeploymentCancelled');
  });
});
