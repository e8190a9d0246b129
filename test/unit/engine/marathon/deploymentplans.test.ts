// Deployment plans (src/engine/marathon/deploymentplans.ts): Marathon's plan shape derived from stored
// Deployments. Rows read like the examples of docs/semantics/marathon.md#the-active-deployments-view: db ← app created, upgraded, scaled
// and deleted together, independent apps, the levels example a; b→a; c→a; d→b.

import { expect } from 'chai';
import type { Deployment, DeploymentCondition } from '../../../../src/api/types.ts';
import {
  activePlans,
  appAction,
  inMotion,
  planById,
  planId,
  planOfApp,
  unknownPlanMessage,
} from '../../../../src/engine/marathon/deploymentplans.ts';
import type { DeploymentPlan } from '../../../../src/engine/marathon/deploymentplans.ts';
import { setDependenciesCondition } from '../../../../src/engine/marathon/dependencies.ts';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const NOW = T0 + 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

type State =
  | 'new' // created, not yet observed
  | 'starting' // observed, first revision rolling out (or waiting)
  | 'started' // first revision complete
  | 'complete' // a later revision complete
  | 'upgrade' // template changed, not yet observed
  | 'rolling' // template change observed, old replicas remain
  | 'waiting' // template change observed, held back by its dependencies (no new RS yet)
  | 'scale' // replicas changed, not yet observed
  | 'scaling' // replicas change observed, not complete
  | 'deleting';

interface AppOpts {
  deps?: string[];
  replicas?: number;
  /** DependenciesReady: 'waiting' False; 'waited' True stamped with the current generation; 'ready' True from an older generation. */
  gate?: 'waiting' | 'waited' | 'ready';
  paused?: boolean;
  timedOut?: boolean;
}

/** An app in `state`, as the controller leaves it stored. */
function app(name: string, state: State, o: AppOpts = {}): Deployment {
  const n = o.replicas ?? 3;
  const first = state === 'new' || state === 'starting' || state === 'started';
  const generation = first ? 1 : 2;
  const observed = state === 'new' || state === 'upgrade' || state === 'scale' ? generation - 1 : generation;
  const revision = state === 'new' ? undefined : first ? '1' : state === 'rolling' || state === 'complete' ? '2' : '1';
  const counts: Record<State, [number, number, number]> = {
    // replicas, updated, available
    new: [0, 0, 0],
    starting: [1, 1, 0],
    started: [n, n, n],
    complete: [n, n, n],
    upgrade: [n, n, n],
    rolling: [n + 1, 1, n],
    waiting: [n, 0, n],
    scale: [2, 2, 2],
    scaling: [2, 2, 2],
    deleting: [n, n, n],
  };
  const [replicas, updated, available] = counts[state];
  const conditions: DeploymentCondition[] = [];
  const progressing = o.timedOut
    ? 'ProgressDeadlineExceeded'
    : state === 'new'
      ? undefined
      : state === 'starting'
        ? 'NewReplicaSetCreated'
        : state === 'rolling'
          ? 'ReplicaSetUpdated'
          : 'NewReplicaSetAvailable';
  if (progressing) {
    conditions.push({
      type: 'Progressing',
      status: o.timedOut ? 'False' : 'True',
      reason: progressing,
      lastUpdateTime: iso(T0 + 60_000),
      lastTransitionTime: iso(T0 + 1000),
    });
  }
  if (o.gate) {
    conditions.push({
      type: 'DependenciesReady',
      status: o.gate === 'waiting' ? 'False' : 'True',
      reason: o.gate === 'waiting' ? 'DependenciesNotReady' : 'DependenciesReady',
      lastTransitionTime: iso(T0 + 2000),
      observedGeneration: o.gate === 'ready' ? generation - 1 : generation,
    });
  }
  return {
    apiVersion: 'pacer.dev/v1alpha1',
    kind: 'Deployment',
    metadata: {
      name,
      namespace: 'default',
      uid: `uid-${name}`,
      generation,
      creationTimestamp: iso(T0),
      ...(revision ? { annotations: { 'pacer.dev/revision': revision } } : {}),
      ...(state === 'deleting' ? { deletionTimestamp: iso(T0 + 5000), finalizers: ['pacer.dev/dependents'] } : {}),
    },
    spec: {
      replicas: state === 'scale' || state === 'scaling' ? 5 : n,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      ...(o.deps ? { dependencies: o.deps } : {}),
      ...(o.paused ? { paused: true } : {}),
    },
    status:
      state === 'new'
        ? {}
        : {
            observedGeneration: observed,
            replicas,
            updatedReplicas: updated,
            availableReplicas: available,
            readyReplicas: available,
            conditions,
          },
  };
}

/** A view in the notation of the rows: steps as "Action app" lists, currentStep, apps. */
function shape(
  plans: DeploymentPlan[],
): Array<{ apps: string[]; steps: string[][]; current: number; currentActions: string[] }> {
  return plans.map((p) => ({
    apps: p.affectedApps,
    steps: p.steps.map((s) =>
      s.actions.map((a) => `${a.action.replace('Application', '')} ${a.app.replace('/default/', '')}`),
    ),
    current: p.currentStep,
    currentActions: p.currentActions.map(
      (a) => `${a.action.replace('Application', '')} ${a.app.replace('/default/', '')}`,
    ),
  }));
}

describe('engine/plans: the deployment plans', () => {
  const rows: Array<[string, Deployment[], ReturnType<typeof shape>]> = [
    [
      'nothing in motion: no plans',
      [app('db', 'complete'), app('app', 'complete', { deps: ['db'], gate: 'ready' })],
      [],
    ],
    [
      'db ← app created together, not yet observed: start, then db, then app',
      [app('db', 'new'), app('app', 'new', { deps: ['db'] })],
      [
        {
          apps: ['/default/app', '/default/db'],
          steps: [['Start app', 'Start db'], ['Scale db'], ['Scale app']],
          current: 1,
          currentActions: ['Start app', 'Start db'],
        },
      ],
    ],
    [
      'created together, both observed, db starting, app waiting: step 2',
      [app('db', 'starting'), app('app', 'starting', { deps: ['db'], gate: 'waiting' })],
      [
        {
          apps: ['/default/app', '/default/db'],
          steps: [['Start app', 'Start db'], ['Scale db'], ['Scale app']],
          current: 2,
          currentActions: ['Scale db'],
        },
      ],
    ],
    [
      'created together, db complete, app starting after waiting for it: step 3',
      [app('db', 'started'), app('app', 'starting', { deps: ['db'], gate: 'waited' })],
      [
        {
          apps: ['/default/app', '/default/db'],
          steps: [['Start app', 'Start db'], ['Scale db'], ['Scale app']],
          current: 3,
          currentActions: ['Scale app'],
        },
      ],
    ],
    [
      'upgraded together, not yet observed: restart db, then app',
      [app('db', 'upgrade'), app('app', 'upgrade', { deps: ['db'], gate: 'ready' })],
      [
        {
          apps: ['/default/app', '/default/db'],
          steps: [['Restart db'], ['Restart app']],
          current: 1,
          currentActions: ['Restart db'],
        },
      ],
    ],
    [
      'upgraded together, db rolling, app waiting: step 1',
      [app('db', 'rolling'), app('app', 'waiting', { deps: ['db'], gate: 'waiting' })],
      [
        {
          apps: ['/default/app', '/default/db'],
          steps: [['Restart db'], ['Restart app']],
          current: 1,
          currentActions: ['Restart db'],
        },
      ],
    ],
    [
      'upgraded together, db done, app rolling after waiting: step 2 of the same two',
      [app('db', 'complete'), app('app', 'rolling', { deps: ['db'], gate: 'waited' })],
      [
        {
          apps: ['/default/app', '/default/db'],
          steps: [['Restart db'], ['Restart app']],
          current: 2,
          currentActions: ['Restart app'],
        },
      ],
    ],
    [
      'db done, app not yet re-evaluated (still False): db stays',
      [app('db', 'complete'), app('app', 'waiting', { deps: ['db'], gate: 'waiting' })],
      [
        {
          apps: ['/default/app', '/default/db'],
          steps: [['Restart db'], ['Restart app']],
          current: 2,
          currentActions: ['Restart app'],
        },
      ],
    ],
    [
      'app upgraded alone later (its gate opened at an older generation): db is not part of it',
      [app('db', 'complete'), app('app', 'rolling', { deps: ['db'], gate: 'ready' })],
      [{ apps: ['/default/app'], steps: [['Restart app']], current: 1, currentActions: ['Restart app'] }],
    ],
    [
      'scaled together, not yet observed: scale db, then app',
      [app('db', 'scale'), app('app', 'scale', { deps: ['db'], gate: 'ready' })],
      [
        {
          apps: ['/default/app', '/default/db'],
          steps: [['Scale db'], ['Scale app']],
          current: 1,
          currentActions: ['Scale db'],
        },
      ],
    ],
    [
      'scaled together, observed: still scales',
      [app('db', 'scaling'), app('app', 'scaling', { deps: ['db'], gate: 'waiting' })],
      [
        {
          apps: ['/default/app', '/default/db'],
          steps: [['Scale db'], ['Scale app']],
          current: 1,
          currentActions: ['Scale db'],
        },
      ],
    ],
    [
      'db scaled alone: app has nothing to do and is not part of it',
      [app('db', 'scaling'), app('app', 'complete', { deps: ['db'], gate: 'waiting' })],
      [{ apps: ['/default/db'], steps: [['Scale db']], current: 1, currentActions: ['Scale db'] }],
    ],
    [
      'deleted together: one stop step for both',
      [app('db', 'deleting'), app('app', 'deleting', { deps: ['db'], gate: 'ready' })],
      [
        {
          apps: ['/default/app', '/default/db'],
          steps: [['Stop app', 'Stop db']],
          current: 1,
          currentActions: ['Stop app', 'Stop db'],
        },
      ],
    ],
    [
      'independent apps: separate plans',
      [app('web', 'rolling'), app('api', 'upgrade')],
      [
        { apps: ['/default/api'], steps: [['Restart api']], current: 1, currentActions: ['Restart api'] },
        { apps: ['/default/web'], steps: [['Restart web']], current: 1, currentActions: ['Restart web'] },
      ],
    ],
    [
      'a paused app mid-rollout and one past its deadline are still in motion',
      [app('web', 'rolling', { paused: true }), app('api', 'rolling', { timedOut: true })],
      [
        { apps: ['/default/api'], steps: [['Restart api']], current: 1, currentActions: ['Restart api'] },
        { apps: ['/default/web'], steps: [['Restart web']], current: 1, currentActions: ['Restart web'] },
      ],
    ],
    [
      'levels: a; b→a; c→a; d→b upgraded together gives {a}, {b, c}, {d}',
      [
        app('a', 'upgrade'),
        app('b', 'upgrade', { deps: ['a'] }),
        app('c', 'upgrade', { deps: ['a'] }),
        app('d', 'upgrade', { deps: ['b'] }),
      ],
      [
        {
          apps: ['/default/a', '/default/b', '/default/c', '/default/d'],
          steps: [['Restart a'], ['Restart b', 'Restart c'], ['Restart d']],
          current: 1,
          currentActions: ['Restart a'],
        },
      ],
    ],
    [
      'levels come from the whole graph: d alone is at level 3, one step',
      [
        app('a', 'complete'),
        app('b', 'complete', { deps: ['a'] }),
        app('d', 'upgrade', { deps: ['b'], gate: 'ready' }),
      ],
      [{ apps: ['/default/d'], steps: [['Restart d']], current: 1, currentActions: ['Restart d'] }],
    ],
    [
      'a deleted app and a new one that depends on nothing: stop first, then start',
      [app('old', 'deleting'), app('web', 'new', { deps: ['old'] })],
      [
        {
          apps: ['/default/old', '/default/web'],
          steps: [['Stop old'], ['Start web'], ['Scale web']],
          current: 1,
          currentActions: ['Stop old'],
        },
      ],
    ],
    ['finished: gone', [app('db', 'complete'), app('app', 'complete', { deps: ['db'], gate: 'waited' })], []],
  ];
  for (const [name, ds, want] of rows) {
    it(name, () => expect(shape(activePlans(ds, NOW))).to.deep.equal(want));
  }

  describe('the action of an app in motion', () => {
    const actionRows: Array<[string, Deployment, string, boolean]> = [
      ['created, not observed', app('x', 'new'), 'ScaleApplication', true],
      ['first revision rolling out', app('x', 'starting'), 'ScaleApplication', true],
      ['template changed, not observed', app('x', 'upgrade'), 'RestartApplication', true],
      ['old replicas remain', app('x', 'rolling'), 'RestartApplication', true],
      [
        'held back by its dependencies',
        app('x', 'waiting', { deps: ['db'], gate: 'waiting' }),
        'RestartApplication',
        true,
      ],
      ['replica count changed, not observed', app('x', 'scale'), 'ScaleApplication', true],
      ['replica count changed, observed', app('x', 'scaling'), 'ScaleApplication', true],
      [
        'scaled to 0 with a template change: a scale, as Marathon',
        (() => {
          const d = app('x', 'upgrade');
          d.spec.replicas = 0;
          return d;
        })(),
        'ScaleApplication',
        true,
      ],
      ['being deleted', app('x', 'deleting'), 'StopApplication', true],
      ['complete', app('x', 'complete'), 'ScaleApplication', false],
    ];
    for (const [name, d, action, moving] of actionRows) {
      it(name, () => {
        expect(inMotion(d)).to.equal(moving);
        expect(appAction(d)).to.equal(action);
      });
    }
  });

  it('the JSON of GET /v2/deployments: every field, readinessCheckResults empty', () => {
    const [plan] = activePlans([app('db', 'rolling'), app('app', 'waiting', { deps: ['db'], gate: 'waiting' })], NOW);
    expect(Object.keys(plan)).to.deep.equal([
      'id',
      'version',
      'affectedApps',
      'affectedPods',
      'steps',
      'currentActions',
      'currentStep',
      'totalSteps',
    ]);
    expect(plan.id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(plan.steps).to.deep.equal([
      { actions: [{ action: 'RestartApplication', app: '/default/db' }] },
      { actions: [{ action: 'RestartApplication', app: '/default/app' }] },
    ]);
    expect(plan.currentActions).to.deep.equal([
      { action: 'RestartApplication', app: '/default/db', readinessCheckResults: [] },
    ]);
    expect(plan.totalSteps).to.equal(2);
    // Restart: the Progressing condition's lastTransitionTime, the latest of the members.
    expect(plan.version).to.equal(iso(T0 + 1000));
  });

  it('version: deletion time for a stop, creation time for a start, `now` when nothing is known', () => {
    expect(activePlans([app('x', 'deleting')], NOW)[0].version).to.equal(iso(T0 + 5000));
    expect(activePlans([app('x', 'new')], NOW)[0].version).to.equal(iso(T0));
    const bare = app('x', 'new');
    delete bare.metadata.creationTimestamp;
    expect(activePlans([bare], NOW)[0].version).to.equal(iso(NOW));
  });

  it('the id stays while the plan runs and changes when a further change joins', () => {
    const start = activePlans([app('db', 'rolling'), app('app', 'waiting', { deps: ['db'], gate: 'waiting' })], NOW)[0];
    const later = activePlans([app('db', 'complete'), app('app', 'rolling', { deps: ['db'], gate: 'waited' })], NOW)[0];
    expect(later.id).to.equal(start.id);
    const bumped = app('app', 'rolling', { deps: ['db'], gate: 'waited' });
    bumped.metadata.generation = 3;
    bumped.status!.conditions!.find((c) => c.type === 'DependenciesReady')!.observedGeneration = 3;
    expect(activePlans([app('db', 'complete'), bumped], NOW)[0].id).to.not.equal(start.id);
    expect(planId([app('db', 'rolling')])).to.not.equal(start.id);
  });

  it('an app on a dependency cycle has no level: its step comes last', () => {
    const ds = [app('web', 'new', { deps: ['api'] }), app('api', 'new', { deps: ['web'] }), app('db', 'new')];
    ds[0].spec.dependencies = ['api', 'db'];
    expect(shape(activePlans(ds, NOW))).to.deep.equal([
      {
        apps: ['/default/api', '/default/db', '/default/web'],
        steps: [['Start api', 'Start db', 'Start web'], ['Scale db'], ['Scale api', 'Scale web']],
        current: 1,
        currentActions: ['Start api', 'Start db', 'Start web'],
      },
    ]);
  });

  it("finds the plan of an app and by id; the 404 message is Marathon's", () => {
    const active = activePlans(
      [app('db', 'rolling'), app('app', 'waiting', { deps: ['db'], gate: 'waiting' }), app('web', 'upgrade')],
      NOW,
    );
    expect(planOfApp(active, '/default/app')?.affectedApps).to.deep.equal(['/default/app', '/default/db']);
    expect(planOfApp(active, '/default/none')).to.equal(undefined);
    expect(planById(active, active[1].id)).to.equal(active[1]);
    expect(unknownPlanMessage('abc')).to.equal('DeploymentPlan abc does not exist');
  });

  it('is pure: the input is not changed and the same input gives the same view', () => {
    const ds = [app('db', 'rolling'), app('app', 'waiting', { deps: ['db'], gate: 'waiting' })];
    const copy = structuredClone(ds);
    const a = activePlans(ds, NOW);
    expect(ds).to.deep.equal(copy);
    expect(activePlans(ds, NOW + 1000)).to.deep.equal(a);
  });

  it('the engine stamps DependenciesReady with the generation at each transition and keeps it in between', () => {
    const status = {};
    const waiting = {
      ready: false as const,
      reason: 'DependenciesNotReady' as const,
      message: 'waiting for default/db: 1 of 3 new replicas have been updated',
    };
    setDependenciesCondition(status, waiting, T0, 1);
    setDependenciesCondition(
      status,
      { ...waiting, message: 'waiting for default/db: 2 of 3 new replicas have been updated' },
      T0 + 1000,
      2,
    );
    expect((status as { conditions: DeploymentCondition[] }).conditions[0]).to.include({
      status: 'False',
      observedGeneration: 1,
    });
    setDependenciesCondition(
      status,
      { ready: true, reason: 'DependenciesReady', message: 'default/db is complete' },
      T0 + 2000,
      2,
    );
    expect((status as { conditions: DeploymentCondition[] }).conditions[0]).to.include({
      status: 'True',
      observedGeneration: 2,
    });
    setDependenciesCondition(
      status,
      { ready: true, reason: 'DependenciesReady', message: 'default/db is complete' },
      T0 + 3000,
      3,
    );
    expect(
      (status as { conditions: DeploymentCondition[] }).conditions[0],
      'no transition: the stamp stays',
    ).to.include({ observedGeneration: 2 });
  });
});
