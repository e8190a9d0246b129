// Dependency-ordered Deployments: references, the gate and its condition, cycles, levels, the
// dependents finalizer, the progress deadline while waiting, and decide() with db ← app.

import { expect } from 'chai';
import type { Deployment, DeploymentStatus } from '../../../../src/api/types.ts';
import { dependencyKeys, parseDependency } from '../../../../src/api/dependencies.ts';
import { formatFieldError, validateDependencies, validateDeployment } from '../../../../src/api/validation.ts';
import { withDefaults } from '../../../../src/api/defaults.ts';
import { newCondition } from '../../../../src/engine/kubernetes/conditions.ts';
import {
  DEPENDENTS_FINALIZER,
  dependencyGate,
  dependencyLevels,
  desiredFinalizers,
  findDependencyCycle,
  incompleteReason,
  levelGroups,
  setDependenciesCondition,
} from '../../../../src/engine/marathon/dependencies.ts';
import {
  deploymentTimedOut,
  progressDeadlineStart,
  requeueStuckDeployment,
} from '../../../../src/engine/kubernetes/progress.ts';
import { decide } from '../../../../src/engine/decide.ts';
import type { Snapshot } from '../../../../src/engine/types.ts';
import { NOW, deployment, iso, next, summary } from '../fixtures.ts';

/** A Deployment named `name` (namespace default) depending on `deps`, with a status. */
function named(name: string, deps: string[] = [], status?: DeploymentStatus, namespace = 'default'): Deployment {
  const d = deployment({ replicas: 3, ...(status ? { status } : {}) });
  return {
    ...d,
    metadata: { ...d.metadata, name, namespace, uid: `uid-${name}` },
    spec: { ...d.spec, ...(deps.length ? { dependencies: deps } : {}) },
  };
}

/** A status as the upstream examples say it: "3 replicas, 2 updated, 1 available". */
function st(replicas: number, updated: number, available: number, observedGeneration = 1): DeploymentStatus {
  return {
    replicas,
    updatedReplicas: updated,
    availableReplicas: available,
    readyReplicas: available,
    observedGeneration,
  };
}

const complete = st(3, 3, 3);

describe('engine/dependencies', () => {
  describe('references: name or namespace/name', () => {
    const rows: Array<[string, string, string | undefined, string]> = [
      ["a bare name is in the holder's namespace", 'db', 'shop', 'shop/db'],
      ['namespace/name names another namespace', 'data/db', 'shop', 'data/db'],
      ['no namespace on the holder means default', 'db', undefined, 'default/db'],
    ];
    for (const [name, ref, ns, key] of rows) {
      it(name, () => {
        const r = parseDependency(ref, ns);
        expect(`${r.namespace}/${r.name}`).to.equal(key);
      });
    }
    it('dependencyKeys resolves and drops repeats, in the order written', () => {
      const d = named('app', ['db', 'default/db', 'cache', 'other/db']);
      expect(dependencyKeys(d)).to.deep.equal(['default/db', 'default/cache', 'other/db']);
    });
  });

  describe('validation with field paths', () => {
    const rows: Array<[string, unknown, string[]]> = [
      ['names and namespace/name are fine', ['db', 'data/db', 'a.b-c'], []],
      [
        'upper case is refused',
        ['Db'],
        [
          "spec.dependencies[0]: Invalid value: \"Db\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        ],
      ],
      [
        'a namespace with a dot is refused',
        ['my.ns/db'],
        [
          "spec.dependencies[0]: Invalid value: \"my.ns/db\": namespace part a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        ],
      ],
      [
        'two slashes are refused',
        ['ns', 'a/b/c'],
        ['spec.dependencies[1]: Invalid value: "a/b/c": must be a name or namespace/name'],
      ],
      [
        'an empty name is refused',
        ['ns/'],
        [
          "spec.dependencies[0]: Invalid value: \"ns/\": name part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        ],
      ],
      [
        'a number is refused',
        [3],
        ['spec.dependencies[0]: Invalid value: 3: spec.dependencies[0] in body must be of type string'],
      ],
      [
        'not a list is refused',
        'db',
        ['spec.dependencies: Invalid value: "string": spec.dependencies in body must be of type array: "string"'],
      ],
    ];
    for (const [name, refs, want] of rows) {
      it(name, () => expect(validateDependencies(refs).map(formatFieldError)).to.deep.equal(want));
    }
    it('validateDeployment reports them', () => {
      const d = named('app', ['Bad']);
      expect(validateDeployment(withDefaults(d)).map((e) => e.field)).to.deep.equal(['spec.dependencies[0]']);
    });
  });

  describe('a dependency is complete when every replica is updated and available and the spec observed', () => {
    const rows: Array<[string, DeploymentStatus | undefined, number, string | undefined]> = [
      ['3 of 3 updated and available', complete, 1, undefined],
      ['no status yet', undefined, 1, 'spec update not yet observed'],
      ['a newer spec not yet observed', st(3, 3, 3, 1), 2, 'spec update not yet observed'],
      ['1 of 3 updated', st(4, 1, 3), 1, '1 of 3 new replicas have been updated'],
      ['old replicas still running', st(4, 3, 3), 1, '1 old replicas are pending termination'],
      ['2 of 3 updated available', st(3, 3, 2), 1, '2 of 3 updated replicas are available'],
      ['scaling down from 4 to 3 counts 4 updated', st(4, 4, 4), 1, '4 replicas, 3 wanted'],
    ];
    for (const [name, status, generation, want] of rows) {
      it(`${name} → ${want ?? 'complete'}`, () => {
        const db = named('db', [], status);
        db.metadata.generation = generation;
        expect(incompleteReason(db)).to.equal(want);
      });
    }
  });

  describe('the gate: reason and message', () => {
    const app = named('app', ['db', 'cache']);
    const rows: Array<
      [string, Array<{ key: string; deployment?: Deployment }>, string[] | undefined, boolean, string, string]
    > = [
      [
        'both complete',
        [
          { key: 'default/db', deployment: named('db', [], complete) },
          { key: 'default/cache', deployment: named('cache', [], complete) },
        ],
        undefined,
        true,
        'DependenciesReady',
        'dependencies are complete: default/db, default/cache',
      ],
      [
        'db not yet available',
        [{ key: 'default/db', deployment: named('db', [], st(3, 3, 2)) }],
        undefined,
        false,
        'DependenciesNotReady',
        'waiting for default/db: 2 of 3 updated replicas are available',
      ],
      [
        'db not found, cache not ready',
        [{ key: 'default/db' }, { key: 'default/cache', deployment: named('cache', [], st(1, 1, 0)) }],
        undefined,
        false,
        'DependencyMissing',
        'default/db not found; waiting for default/cache: 1 of 3 new replicas have been updated',
      ],
      [
        'a cycle wins over everything',
        [{ key: 'default/db' }],
        ['default/app', 'default/db', 'default/app'],
        false,
        'DependencyCycle',
        'dependency cycle: app → db → app',
      ],
      [
        'a cycle through another namespace names it',
        [],
        ['default/app', 'data/db', 'default/app'],
        false,
        'DependencyCycle',
        'dependency cycle: app → data/db → app',
      ],
      [
        'one dependency',
        [{ key: 'default/db', deployment: named('db', [], complete) }],
        undefined,
        true,
        'DependenciesReady',
        'default/db is complete',
      ],
    ];
    for (const [name, deps, cycle, ready, reason, message] of rows) {
      it(name, () => expect(dependencyGate(app, deps, cycle)).to.deep.equal({ ready, reason, message }));
    }
  });

  describe('the gate of an app whose deployment was cancelled by a forced change (pacer.dev/cancelled-deployment)', () => {
    const stamped = named('app', ['db']);
    stamped.metadata.annotations = { 'pacer.dev/cancelled-deployment': 'd-1' };
    const rows: Array<
      [string, Array<{ key: string; deployment?: Deployment }>, string[] | undefined, boolean, string, string]
    > = [
      [
        'db still rolling: not waited for',
        [{ key: 'default/db', deployment: named('db', [], st(3, 3, 2)) }],
        undefined,
        true,
        'DependenciesReady',
        'deployment d-1 was cancelled: not waiting for default/db',
      ],
      [
        'db missing: still held',
        [{ key: 'default/db' }],
        undefined,
        false,
        'DependencyMissing',
        'default/db not found',
      ],
      [
        'a cycle: still held',
        [],
        ['default/app', 'default/db', 'default/app'],
        false,
        'DependencyCycle',
        'dependency cycle: app → db → app',
      ],
      [
        'db complete: the usual message',
        [{ key: 'default/db', deployment: named('db', [], complete) }],
        undefined,
        true,
        'DependenciesReady',
        'default/db is complete',
      ],
    ];
    for (const [name, deps, cycle, ready, reason, message] of rows) {
      it(name, () => expect(dependencyGate(stamped, deps, cycle)).to.deep.equal({ ready, reason, message }));
    }
  });

  describe('the DependenciesReady condition', () => {
    const t0 = NOW - 60_000;
    const waiting = {
      ready: false as const,
      reason: 'DependenciesNotReady' as const,
      message: 'waiting for default/db: 1 of 3 updated replicas are available',
    };
    it('appears False with both times now', () => {
      const s: DeploymentStatus = {};
      setDependenciesCondition(s, waiting, NOW);
      expect(s.conditions).to.deep.equal([
        {
          type: 'DependenciesReady',
          status: 'False',
          reason: waiting.reason,
          message: waiting.message,
          lastUpdateTime: iso(NOW),
          lastTransitionTime: iso(NOW),
        },
      ]);
    });
    it('a new message is written, the transition time kept', () => {
      const s: DeploymentStatus = {};
      setDependenciesCondition(s, waiting, t0);
      setDependenciesCondition(
        s,
        { ...waiting, message: 'waiting for default/db: 2 of 3 updated replicas are available' },
        NOW,
      );
      expect(s.conditions![0]).to.include({
        message: 'waiting for default/db: 2 of 3 updated replicas are available',
        lastUpdateTime: iso(NOW),
        lastTransitionTime: iso(t0),
      });
    });
    it('the same gate again changes nothing', () => {
      const s: DeploymentStatus = {};
      setDependenciesCondition(s, waiting, t0);
      const before = s.conditions;
      setDependenciesCondition(s, waiting, NOW);
      expect(s.conditions).to.equal(before);
    });
    it('True moves the transition time; no dependencies removes it', () => {
      const s: DeploymentStatus = {};
      setDependenciesCondition(s, waiting, t0);
      setDependenciesCondition(s, { ready: true, reason: 'DependenciesReady', message: 'default/db is complete' }, NOW);
      expect(s.conditions![0]).to.include({ status: 'True', lastTransitionTime: iso(NOW) });
      setDependenciesCondition(s, undefined, NOW);
      expect(s.conditions).to.deep.equal([]);
    });
  });

  describe('cycles through a Deployment', () => {
    const graph: Record<string, string[]> = {
      'default/web': ['default/api'],
      'default/api': ['default/web', 'default/db'],
      'default/db': [],
      'default/a': ['default/b'],
      'default/b': ['default/c'],
      'default/c': ['default/a'],
      'default/self': ['default/self'],
      'default/above': ['default/web'],
    };
    const rows: Array<[string, string, string[] | undefined]> = [
      ['web → api → web', 'default/web', ['default/web', 'default/api', 'default/web']],
      ['api → web → api', 'default/api', ['default/api', 'default/web', 'default/api']],
      ['a → b → c → a', 'default/a', ['default/a', 'default/b', 'default/c', 'default/a']],
      ['a Deployment depending on itself', 'default/self', ['default/self', 'default/self']],
      ['none through db', 'default/db', undefined],
      ['none through one that only depends on a cycle', 'default/above', undefined],
      ['none through an unknown one', 'default/nope', undefined],
    ];
    for (const [name, start, want] of rows) {
      it(name, () => expect(findDependencyCycle(start, (k) => graph[k])).to.deep.equal(want));
    }
  });

  describe('levels: the longest dependency path below, itself included (Marathon)', () => {
    const rows: Array<[string, Deployment[], string[][], string[][]]> = [
      [
        "a; b → a; c → a; d → b gives 1: {a}, 2: {b, c}, 3: {d} (the reference's example)",
        [named('a'), named('b', ['a']), named('c', ['a']), named('d', ['b'])],
        [['default/a'], ['default/b', 'default/c'], ['default/d']],
        [],
      ],
      ['db ← app', [named('app', ['db']), named('db')], [['default/db'], ['default/app']], []],
      ['independent apps share level 1', [named('x'), named('y')], [['default/x', 'default/y']], []],
      [
        'the longest path counts: d → a and d → c → b → a',
        [named('a'), named('b', ['a']), named('c', ['b']), named('d', ['a', 'c'])],
        [['default/a'], ['default/b'], ['default/c'], ['default/d']],
        [],
      ],
      ['a missing dependency is ignored', [named('app', ['ghost'])], [['default/app']], []],
      [
        'a cycle gets no level and is reported; what depends on it neither',
        [named('web', ['api']), named('api', ['web']), named('front', ['web']), named('db')],
        [['default/db']],
        [['default/api', 'default/web', 'default/api']],
      ],
    ];
    for (const [name, ds, groups, cycles] of rows) {
      it(name, () => {
        const got = dependencyLevels(ds);
        expect(levelGroups(got.levels)).to.deep.equal(groups);
        expect(got.cycles).to.deep.equal(cycles);
      });
    }
  });

  describe('the pacer.dev/dependents finalizer', () => {
    const app = named('app', ['db']);
    const deleting = (d: Deployment, finalizers?: string[]): Deployment => ({
      ...d,
      metadata: { ...d.metadata, deletionTimestamp: iso(NOW), ...(finalizers ? { finalizers } : {}) },
    });
    const withF = (d: Deployment, finalizers: string[]): Deployment => ({
      ...d,
      metadata: { ...d.metadata, finalizers },
    });
    const rows: Array<[string, Deployment, Deployment[], string[] | undefined]> = [
      ['added when db gains a dependent', named('db'), [app], [DEPENDENTS_FINALIZER]],
      ['kept beside others', withF(named('db'), ['example.com/x']), [app], ['example.com/x', DEPENDENTS_FINALIZER]],
      ['nothing to do while it has one', withF(named('db'), [DEPENDENTS_FINALIZER]), [app], undefined],
      ['removed when it has none', withF(named('db'), ['example.com/x', DEPENDENTS_FINALIZER]), [], ['example.com/x']],
      ['a deleting db keeps it while app exists', deleting(named('db'), [DEPENDENTS_FINALIZER]), [app], undefined],
      [
        'a deleting db keeps it while app is itself being deleted',
        deleting(named('db'), [DEPENDENTS_FINALIZER]),
        [deleting(app)],
        undefined,
      ],
      ['a deleting db loses it once app is gone', deleting(named('db'), [DEPENDENTS_FINALIZER]), [], []],
      ['a deleting db never takes a new one', deleting(named('db')), [app], undefined],
      ['no dependents, no finalizer: nothing', named('db'), [], undefined],
    ];
    for (const [name, d, dependents, want] of rows) {
      it(name, () => expect(desiredFinalizers(d, dependents)).to.deep.equal(want));
    }
  });

  describe('the progress deadline starts at the later of Progressing.lastUpdateTime and DependenciesReady=True', () => {
    const at = (hms: string) => Date.parse(`2025-03-01T${hms}Z`);
    const status = (progress: string, deps?: { status: 'True' | 'False'; since: string }): DeploymentStatus => ({
      conditions: [
        newCondition('Progressing', 'True', 'ReplicaSetUpdated', 'm', at(progress)),
        ...(deps
          ? [
              newCondition(
                'DependenciesReady',
                deps.status,
                deps.status === 'True' ? 'DependenciesReady' : 'DependenciesNotReady',
                'm',
                at(deps.since),
              ),
            ]
          : []),
      ],
    });
    const rows: Array<[string, DeploymentStatus, number]> = [
      ['no dependencies: lastUpdateTime', status('10:00:00'), at('10:00:00')],
      [
        'ready since before the last update: lastUpdateTime',
        status('10:00:00', { status: 'True', since: '09:00:00' }),
        at('10:00:00'),
      ],
      [
        'ready only since later (it waited): the moment it became ready',
        status('10:00:00', { status: 'True', since: '10:20:00' }),
        at('10:20:00'),
      ],
      ['still waiting: lastUpdateTime', status('10:00:00', { status: 'False', since: '10:20:00' }), at('10:00:00')],
    ];
    for (const [name, s, want] of rows) it(name, () => expect(progressDeadlineStart(s)).to.equal(want));

    it('a rollout that waited 20 minutes has not timed out 5 minutes after its dependencies became ready (deadline 10 min)', () => {
      const d = deployment({ progressDeadlineSeconds: 600 });
      const s = status('10:00:00', { status: 'True', since: '10:20:00' });
      expect(deploymentTimedOut(d, s, at('10:25:00'))).to.equal(false);
      expect(requeueStuckDeployment(d, s, at('10:25:00'))).to.equal(300);
      expect(deploymentTimedOut(d, s, at('10:30:01'))).to.equal(true);
    });
  });

  describe('decide() with db ← app', () => {
    const app = (status?: DeploymentStatus, extra: Partial<Deployment['spec']> = {}) => {
      const d = named('app', ['db'], status);
      return { ...d, spec: { ...d.spec, ...extra } };
    };
    const snap = (d: Deployment, db: Deployment | undefined, more: Partial<Snapshot> = {}): Snapshot => ({
      deployment: d,
      replicaSets: [],
      pods: [],
      now: NOW,
      dependencies: [{ ref: 'db', ...(db ? { deployment: db } : {}) }],
      ...more,
    });
    const cond = (s: DeploymentStatus) => s.conditions?.find((c) => c.type === 'DependenciesReady');

    it('created together: app creates nothing while db is missing, and says so', () => {
      const dec = decide(snap(app(), undefined));
      expect(summary(dec)).to.deep.equal(['updateStatus Deployment app']);
      expect(cond(dec.status)).to.include({
        status: 'False',
        reason: 'DependencyMissing',
        message: 'default/db not found',
      });
      expect(dec.requeueAfterSeconds).to.equal(null);
    });
    it('db exists but is not yet available: still nothing', () => {
      const dec = decide(snap(app(), named('db', [], st(3, 3, 1))));
      expect(dec.actions.filter((a) => a.verb !== 'updateStatus')).to.deep.equal([]);
      expect(cond(dec.status)).to.include({
        reason: 'DependenciesNotReady',
        message: 'waiting for default/db: 1 of 3 updated replicas are available',
      });
    });
    it('db complete: app starts (its first ReplicaSet) and DependenciesReady=True', () => {
      const dec = decide(snap(app(), named('db', [], complete)));
      expect(dec.actions.some((a) => a.verb === 'create')).to.equal(true);
      expect(cond(dec.status)).to.include({
        status: 'True',
        reason: 'DependenciesReady',
        message: 'default/db is complete',
      });
    });
    it("upgraded together: app's rollout waits while db's new spec is unobserved, then begins", () => {
      // app at rest on nginx:1, then both get a new template.
      let dec = decide(snap(app(), named('db', [], complete)));
      for (let i = 0; i < 3; i++)
        dec = decide({ ...next(dec, NOW + i), dependencies: [{ ref: 'db', deployment: named('db', [], complete) }] });
      expect(dec.status.availableReplicas).to.equal(3);
      const rss = next(dec, NOW).replicaSets;
      const upgraded: Deployment = {
        ...dec.objects.deployment,
        metadata: { ...dec.objects.deployment.metadata, generation: 2 },
        spec: {
          ...dec.objects.deployment.spec,
          template: {
            ...dec.objects.deployment.spec.template,
            spec: { containers: [{ name: 'web', image: 'nginx:2' }] },
          },
        },
      };
      const dbUpgrading = named('db', [], complete);
      dbUpgrading.metadata.generation = 2;
      const waiting = decide(snap(upgraded, dbUpgrading, { replicaSets: rss }));
      expect(summary(waiting).filter((s) => !s.startsWith('updateStatus'))).to.deep.equal([]);
      expect(cond(waiting.status)).to.include({
        reason: 'DependenciesNotReady',
        message: 'waiting for default/db: spec update not yet observed',
      });
      const dbDone = named('db', [], st(3, 3, 3, 2));
      dbDone.metadata.generation = 2;
      const going = decide(snap(waiting.objects.deployment, dbDone, { replicaSets: rss }));
      expect(going.actions.some((a) => a.verb === 'create')).to.equal(true);
    });
    it('a scaling event of app waits for db too', () => {
      let dec = decide(snap(app(), named('db', [], complete)));
      for (let i = 0; i < 3; i++)
        dec = decide({ ...next(dec, NOW + i), dependencies: [{ ref: 'db', deployment: named('db', [], complete) }] });
      const rss = next(dec, NOW).replicaSets;
      const scaled: Deployment = {
        ...dec.objects.deployment,
        metadata: { ...dec.objects.deployment.metadata, generation: 2 },
        spec: { ...dec.objects.deployment.spec, replicas: 5 },
      };
      const dbScaling = named('db', [], complete);
      dbScaling.spec.replicas = 5;
      const waiting = decide(snap(scaled, dbScaling, { replicaSets: rss }));
      expect(waiting.actions.filter((a) => a.verb === 'scale')).to.deep.equal([]);
      const dbScaled = named('db', [], st(5, 5, 5));
      dbScaled.spec.replicas = 5;
      const going = decide(snap(scaled, dbScaled, { replicaSets: rss }));
      expect(going.actions.filter((a) => a.verb === 'scale').length).to.be.greaterThan(0);
    });
    it("the condition's changes are announced: Normal while waiting or ready, Warning for a cycle", () => {
      const waiting = decide(snap(app(), undefined));
      const st1 = waiting.actions.find((a) => a.verb === 'updateStatus');
      expect(st1?.verb === 'updateStatus' && st1.events?.find((e) => e.reason === 'DependencyMissing')).to.deep.equal({
        type: 'Normal',
        reason: 'DependencyMissing',
        message: 'default/db not found',
      });
      const cyc = decide({
        ...snap(app(), named('db', ['app'])),
        dependencyCycle: ['default/app', 'default/db', 'default/app'],
      });
      const st2 = cyc.actions.find((a) => a.verb === 'updateStatus');
      expect(st2?.verb === 'updateStatus' && st2.events?.find((e) => e.reason === 'DependencyCycle')).to.deep.equal({
        type: 'Warning',
        reason: 'DependencyCycle',
        message: 'dependency cycle: app → db → app',
      });
    });
    it('a cycle: no progress, the cycle named', () => {
      const web = named('web', ['api']);
      const dec = decide({
        deployment: web,
        replicaSets: [],
        pods: [],
        now: NOW,
        dependencies: [{ ref: 'api', deployment: named('api', ['web'], complete) }],
        dependencyCycle: ['default/web', 'default/api', 'default/web'],
      });
      expect(summary(dec)).to.deep.equal(['updateStatus Deployment web']);
      expect(cond(dec.status)).to.include({
        status: 'False',
        reason: 'DependencyCycle',
        message: 'dependency cycle: web → api → web',
      });
    });
    it('no dependencies: no condition, and a stale one goes', () => {
      const d = named('web', [], {
        conditions: [newCondition('DependenciesReady', 'True', 'DependenciesReady', 'x', NOW - 1000)],
      });
      const dec = decide({ deployment: d, replicaSets: [], pods: [], now: NOW });
      expect(cond(dec.status)).to.equal(undefined);
    });
    /** db at rest: passes until one writes nothing. */
    const dbAtRest = (finalizers?: string[]): Snapshot => {
      const db = named('db');
      if (finalizers) db.metadata.finalizers = finalizers;
      let s: Snapshot = { deployment: db, replicaSets: [], pods: [], now: NOW };
      for (let i = 0; i < 5; i++) s = next(decide(s), NOW);
      expect(decide(s).actions).to.deep.equal([]);
      return s;
    };
    const deploymentUpdates = (dec: ReturnType<typeof decide>) =>
      dec.actions.filter((a) => a.verb === 'update' && a.kind === 'Deployment');

    it('db at rest gains the finalizer with a metadata-only update', () => {
      const dec = decide({ ...dbAtRest(), dependents: [app()] });
      expect(summary(dec)).to.deep.equal(['update Deployment db']);
      const upd = deploymentUpdates(dec)[0];
      expect(upd.verb === 'update' && (upd.object as Deployment).metadata.finalizers).to.deep.equal([
        DEPENDENTS_FINALIZER,
      ]);
      expect(dec.objects.deployment.metadata.finalizers).to.deep.equal([DEPENDENTS_FINALIZER]);
    });
    it('a new db gains it within the same update that sets its revision', () => {
      const dec = decide({ deployment: named('db'), replicaSets: [], pods: [], now: NOW, dependents: [app()] });
      const upd = deploymentUpdates(dec);
      expect(upd.length).to.equal(1);
      const obj = upd[0].verb === 'update' ? (upd[0].object as Deployment) : undefined;
      expect(obj?.metadata.finalizers).to.deep.equal([DEPENDENTS_FINALIZER]);
      expect(obj?.metadata.annotations?.['pacer.dev/revision']).to.equal('1');
    });
    it('a deleting db at rest loses it once app is gone: the last write', () => {
      const s = dbAtRest([DEPENDENTS_FINALIZER]);
      const deleting = { ...s.deployment, metadata: { ...s.deployment.metadata, deletionTimestamp: iso(NOW) } };
      expect(decide({ ...s, deployment: deleting, dependents: [app()] }).actions).to.deep.equal([]);
      const dec = decide({ ...s, deployment: deleting, dependents: [] });
      expect(summary(dec)).to.deep.equal(['update Deployment db']);
      expect(dec.objects.deployment.metadata.finalizers).to.equal(undefined);
    });
    it('without `dependents` in the snapshot, finalizers are left alone (pacer plan with one Deployment)', () => {
      const s = dbAtRest([DEPENDENTS_FINALIZER]);
      expect(decide(s).actions).to.deep.equal([]);
    });
  });
});
