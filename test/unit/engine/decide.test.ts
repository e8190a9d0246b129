import { expect } from 'chai';
import type { Deployment, Pod, ReplicaSet } from '../../../src/api/types.ts';
import { decide, onCreateConflict, onCreateError } from '../../../src/engine/decide.ts';
import type { Decision, Snapshot } from '../../../src/engine/types.ts';
import { NOW, deployment, iso, next, replicaSet, settle, snapshot, summary, template } from './fixtures.ts';

/** Runs passes (the world settling between them) until one has no actions. */
function converge(s: Snapshot, max = 40): { passes: Decision[]; last: Snapshot } {
  const passes: Decision[] = [];
  for (let i = 0; i < max; i++) {
    const d = decide(s);
    passes.push(d);
    if (d.actions.length === 0) return { passes, last: s };
    s = next(d, s.now + 1000);
  }
  throw new Error(`no convergence in ${max} passes: ${JSON.stringify(passes.slice(-3).map(summary))}`);
}

function withSpec(d: Deployment, spec: Partial<Deployment['spec']>): Deployment {
  return {
    ...d,
    metadata: { ...d.metadata, generation: (d.metadata.generation ?? 1) + 1 },
    spec: { ...d.spec, ...spec },
  };
}

function progressingReason(d: Decision): string | undefined {
  return d.status.conditions?.find((c) => c.type === 'Progressing')?.reason;
}

describe('engine/sync decide()', () => {
  it('a new Deployment: create the ReplicaSet with the upstream event, record the revision, write status', () => {
    const d = decide(snapshot(deployment({ replicas: 3 }), []));
    expect(d.deployment).to.equal('default/web');
    expect(d.actions.map((a) => a.verb)).to.deep.equal(['create', 'update', 'updateStatus']);
    const create = d.actions[0];
    expect(create.event).to.deep.equal({
      type: 'Normal',
      reason: 'ScalingReplicaSet',
      message: `Scaled up replica set ${create.name} from 0 to 3`,
    });
    expect(d.objects.deployment.metadata.annotations!['pacer.dev/revision']).to.equal('1');
    expect(d.objects.replicaSets.map((r) => r.metadata.name)).to.deep.equal([create.name]);
    expect(d.requeueAfterSeconds).to.equal(600);
  });

  it('a steady Deployment costs no writes', () => {
    const { passes } = converge(snapshot(deployment({ replicas: 3 }), []));
    const last = passes[passes.length - 1];
    expect(last.actions).to.deep.equal([]);
    expect(progressingReason(last)).to.equal('NewReplicaSetAvailable');
    expect(last.requeueAfterSeconds).to.equal(null);
    expect(last.status.ready).to.equal('3/3');
    expect(last.status.selector).to.equal('app=web');
  });

  it('a ReplicaSet whose template the API server defaulted stays the new ReplicaSet (found by its hash label)', () => {
    // The API server fills in pod defaults on a ReplicaSet's template, not on the template inside
    // the custom resource, so after the create the two never compare equal again.
    const serverDefaults = (rss: readonly ReplicaSet[]): ReplicaSet[] =>
      settle(rss).map((rs) => {
        const t = structuredClone(rs.spec.template!);
        t.spec = { ...t.spec, dnsPolicy: 'ClusterFirst', restartPolicy: 'Always', terminationGracePeriodSeconds: 30 };
        return { ...rs, spec: { ...rs.spec, template: t } };
      });
    let s = snapshot(deployment({ replicas: 3 }), []);
    const created = new Set<string>();
    let last: Decision | undefined;
    for (let i = 0; i < 10; i++) {
      last = decide(s);
      for (const a of last.actions) if (a.verb === 'create') created.add(a.name);
      if (last.actions.length === 0) break;
      s = next(last, s.now + 1000, serverDefaults);
    }
    expect(created.size).to.equal(1);
    expect(last!.actions).to.deep.equal([]);
    expect(last!.status.collisionCount).to.equal(undefined);
    expect(progressingReason(last!)).to.equal('NewReplicaSetAvailable');
    // And the AlreadyExists path agrees: our ReplicaSet with that hash is not a collision.
    const ours = s.replicaSets[0];
    expect(onCreateConflict(snapshot(deployment({ replicas: 3 }), []), ours).status.collisionCount).to.equal(undefined);
  });

  it('a rolling update: one step per pass, never over replicas + maxSurge, ends on one ReplicaSet', () => {
    const { last } = converge(snapshot(deployment({ replicas: 4, maxSurge: 1, maxUnavailable: 1 }), []));
    const s = { ...last, deployment: withSpec(last.deployment, { template: template('nginx:2') }) };
    const { passes, last: end } = converge(s);
    for (const p of passes) {
      const shrank = p.actions.some((a) => a.verb === 'scale' && a.replicas < a.from);
      if (p.actions.some((a) => a.verb === 'scale' && a.replicas > a.from)) expect(shrank).to.equal(false);
      const total = p.objects.replicaSets.reduce((n, r) => n + (r.spec.replicas ?? 0), 0);
      expect(total).to.be.at.most(5);
    }
    const active = end.replicaSets.filter((r) => (r.spec.replicas ?? 0) > 0);
    expect(active.map((r) => [r.spec.replicas, r.metadata.annotations!['pacer.dev/revision']])).to.deep.equal([
      [4, '2'],
    ]);
    expect(end.deployment.metadata.annotations!['pacer.dev/revision']).to.equal('2');
  });

  it('scaling mid-rollout converges (Pacer refreshes desired-replicas) with a final pass without actions', () => {
    const { last } = converge(snapshot(deployment({ replicas: 4 }), []));
    let s: Snapshot = { ...last, deployment: withSpec(last.deployment, { template: template('nginx:2') }) };
    const first = decide(s);
    s = next(first, s.now + 1000, (rss) => rss.map((r) => r)); // nothing becomes ready yet
    s = { ...s, deployment: withSpec(s.deployment, { replicas: 2 }) };
    const scaled = decide(s);
    expect(scaled.actions.some((a) => a.verb === 'scale')).to.equal(true);
    const { passes, last: end } = converge(next(scaled, s.now + 1000));
    expect(passes[passes.length - 1].actions).to.deep.equal([]);
    expect(end.replicaSets.filter((r) => (r.spec.replicas ?? 0) > 0).map((r) => r.spec.replicas)).to.deep.equal([2]);
  });

  it('scaling down when only the new ReplicaSet is active, already at the new size, still finishes', () => {
    const rs = replicaSet('web-a', { replicas: 2, desired: 5, max: 6, revision: 1 });
    const d = deployment({ replicas: 2 });
    const { passes } = converge(snapshot(d, [rs]));
    expect(passes.length).to.be.at.most(4);
    expect(passes[0].actions.map((a) => a.verb)).to.include('update');
  });

  it('Recreate: old to 0, wait for old pods to go, then create the new one at full size', () => {
    const old = replicaSet('web-old', { replicas: 3, image: 'v1', revision: 1, desired: 3, max: 3 });
    const d = deployment({ replicas: 3, type: 'Recreate', image: 'v2' });
    const p1 = decide(snapshot(d, [old]));
    expect(summary(p1)).to.deep.include('scale web-old 3->0');
    expect(p1.actions.some((a) => a.verb === 'create')).to.equal(false);
    const scaledDown = p1.objects.replicaSets.map((r) => ({
      ...r,
      status: { replicas: 0, availableReplicas: 0, observedGeneration: r.metadata.generation },
    }));
    const running: Pod = {
      metadata: {
        name: 'p',
        labels: { app: 'web' },
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-old', uid: 'uid-web-old', controller: true },
        ],
      },
      status: { phase: 'Running' },
    };
    const p2 = decide({ ...snapshot(p1.objects.deployment, scaledDown), pods: [running] });
    expect(p2.actions.some((a) => a.verb === 'create')).to.equal(false);
    const p3 = decide(snapshot(p1.objects.deployment, scaledDown));
    const create = p3.actions.find((a) => a.verb === 'create');
    expect(create && create.verb === 'create' ? create.replicas : -1).to.equal(3);
  });

  it('Recreate paused while old pods terminate, the new ReplicaSet already there at 0: it waits for them (Pacer; upstream scales it up beside them)', () => {
    // A template edited back (v2 → v1): web-v1 is the new ReplicaSet again, at 0; web-v2 went to 0
    // and its pod is still terminating when the Deployment is paused. Upstream's scale() grows the
    // latest ReplicaSet when none is active (the chaos run: pods of two templates for 50 ms).
    const back = replicaSet('web-v1', { replicas: 0, image: 'v1', revision: 3, age: 20 });
    const old = replicaSet('web-v2', { replicas: 0, image: 'v2', revision: 2, age: 5 });
    const d = deployment({ replicas: 3, type: 'Recreate', image: 'v1', paused: true });
    const terminating: Pod = {
      metadata: {
        name: 'p',
        labels: { app: 'web' },
        deletionTimestamp: iso(NOW - 1000),
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-v2', uid: 'uid-web-v2', controller: true },
        ],
      },
      status: { phase: 'Running' },
    };
    const waiting = decide({ ...snapshot(d, [back, old]), pods: [terminating] });
    expect(summary(waiting).filter((a) => a.startsWith('scale'))).to.deep.equal([]);
    const gone = decide(snapshot(d, [back, old]));
    expect(summary(gone)).to.deep.include('scale web-v1 0->3');
  });

  it('paused: template changes do not roll out, the Progressing condition says paused, scaling still works', () => {
    const { last } = converge(snapshot(deployment({ replicas: 2 }), []));
    const s = {
      ...last,
      deployment: withSpec(last.deployment, { paused: true, template: template('nginx:2'), replicas: 3 }),
    };
    const p = decide(s);
    expect(p.actions.some((a) => a.verb === 'create')).to.equal(false);
    expect(summary(p)).to.deep.include(`scale ${last.replicaSets[0].metadata.name} 2->3`);
    expect(p.status.conditions!.find((c) => c.type === 'Progressing')).to.deep.include({
      status: 'Unknown',
      reason: 'DeploymentPaused',
      message: 'Deployment is paused',
    });
    expect(p.requeueAfterSeconds).to.equal(null);
  });

  it('a stuck rollout exceeds its deadline: Progressing=False ProgressDeadlineExceeded', () => {
    const { last } = converge(snapshot(deployment({ replicas: 2, progressDeadlineSeconds: 60 }), []));
    let s: Snapshot = { ...last, deployment: withSpec(last.deployment, { template: template('nginx:bad') }) };
    const stuck = (rss: readonly ReplicaSet[]) =>
      rss.map((r) =>
        r.spec.template?.spec && JSON.stringify(r.spec.template.spec).includes('bad')
          ? {
              ...r,
              status: {
                replicas: r.spec.replicas ?? 0,
                availableReplicas: 0,
                readyReplicas: 0,
                observedGeneration: r.metadata.generation,
              },
            }
          : settle([r])[0],
      );
    let d = decide(s);
    for (let i = 0; i < 5 && d.actions.length > 0; i++) {
      s = next(d, s.now + 1000, stuck);
      d = decide(s);
    }
    expect(d.requeueAfterSeconds).to.be.greaterThan(50);
    const later = decide({ ...s, now: s.now + 61_000 });
    const c = later.status.conditions!.find((x) => x.type === 'Progressing')!;
    expect([c.status, c.reason]).to.deep.equal(['False', 'ProgressDeadlineExceeded']);
    expect(c.message).to.match(/^ReplicaSet "web-.*" has timed out progressing\.$/);
    expect(later.requeueAfterSeconds).to.equal(null);
  });

  it('going back to an earlier template reuses its ReplicaSet and renumbers it (1 → 3, history "1")', () => {
    const { last } = converge(snapshot(deployment({ replicas: 2 }), []));
    const v2 = converge({ ...last, deployment: withSpec(last.deployment, { template: template('nginx:2') }) }).last;
    const back = converge({ ...v2, deployment: withSpec(v2.deployment, { template: template('nginx:1') }) });
    const rss = back.last.replicaSets;
    expect(rss).to.have.length(2);
    const restored = rss.find((r) => (r.spec.replicas ?? 0) > 0)!;
    expect(restored.metadata.annotations!['pacer.dev/revision']).to.equal('3');
    expect(restored.metadata.annotations!['pacer.dev/revision-history']).to.equal('1');
    expect(back.last.deployment.metadata.annotations!['pacer.dev/revision']).to.equal('3');
    expect(back.passes.some((p) => p.actions.some((a) => a.verb === 'create'))).to.equal(false);
  });

  it('cleans up old ReplicaSets beyond revisionHistoryLimit once complete', () => {
    let s = converge(snapshot(deployment({ replicas: 1, revisionHistoryLimit: 1 }), [])).last;
    const deletes: Decision['actions'] = [];
    for (const image of ['v2', 'v3']) {
      const run = converge({ ...s, deployment: withSpec(s.deployment, { template: template(image) }) });
      deletes.push(...run.passes.flatMap((p) => p.actions.filter((a) => a.verb === 'delete')));
      s = run.last;
    }
    expect(s.replicaSets.map((r) => r.metadata.annotations!['pacer.dev/revision']).sort()).to.deep.equal(['2', '3']);
    expect(deletes.map((a) => a.event)).to.deep.equal([
      {
        type: 'Normal',
        reason: 'SuccessfulDelete',
        message: `Deleted old replica set ${deletes[0].name} (revision 1)`,
      },
    ]);
  });

  it('adopts a matching orphan with an update action', () => {
    const orphan = replicaSet('web-a', { replicas: 3, owned: false, revision: 1, desired: 3, max: 4 });
    const d = decide(snapshot(deployment({ replicas: 3 }), [orphan]));
    expect(d.actions[0]).to.deep.include({ verb: 'update', kind: 'ReplicaSet', name: 'web-a' });
    expect(d.objects.replicaSets[0].metadata.ownerReferences![0].uid).to.equal('d-uid-1');
  });

  it('a Deployment being deleted only has its status synced', () => {
    const rs = replicaSet('web-a', { replicas: 3, revision: 1 });
    const dep = deployment({ replicas: 5 });
    dep.metadata.deletionTimestamp = iso(NOW);
    const d = decide(snapshot(dep, [rs]));
    expect(d.actions.map((a) => a.verb)).to.deep.equal(['update', 'updateStatus']);
    expect(d.actions[0].kind).to.equal('Deployment');
  });

  describe('invalid spec', () => {
    const invalid = () => [
      {
        field: 'spec.strategy.rollingUpdate.maxUnavailable',
        type: 'Invalid' as const,
        value: 0,
        detail: 'may not be 0 when `maxSurge` is 0',
      },
    ];
    it('sets InvalidSpec with the formatted errors and observedGeneration, and changes nothing else', () => {
      const rs = replicaSet('web-a', { replicas: 1, revision: 1 });
      const d = decide(snapshot(deployment({ replicas: 3, generation: 7 }), [rs]), { validate: invalid });
      expect(d.actions.map((a) => a.verb)).to.deep.equal(['updateStatus']);
      expect(d.status.observedGeneration).to.equal(7);
      expect(d.status.conditions).to.deep.equal([
        {
          type: 'InvalidSpec',
          status: 'True',
          reason: 'InvalidSpec',
          message: 'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0',
          lastUpdateTime: iso(NOW),
          lastTransitionTime: iso(NOW),
        },
      ]);
      expect(d.objects.replicaSets).to.deep.equal([rs]);
      // the same problem on the next pass: nothing to write
      expect(decide(snapshot(d.objects.deployment, [rs]), { validate: invalid }).actions).to.deep.equal([]);
    });
    it('the condition goes away once the spec is valid again', () => {
      const bad = decide(snapshot(deployment(), []), { validate: invalid });
      const good = decide(snapshot(bad.objects.deployment, []));
      expect(good.status.conditions!.some((c) => c.type === 'InvalidSpec')).to.equal(false);
    });
    it('a template value the pod-template-hash cannot read (a quantity that is not one): InvalidSpec naming the field, nothing created', () => {
      const dep = deployment({ replicas: 3 });
      (dep.spec.template!.spec!.containers as Array<Record<string, unknown>>)[0].resources = {
        limits: { cpu: 'lots' },
      };
      const d = decide(snapshot(dep, []));
      expect(d.actions.map((a) => a.verb)).to.deep.equal(['updateStatus']);
      const cond = d.status.conditions!.find((c) => c.type === 'InvalidSpec');
      expect(cond?.message).to.match(
        /^spec\.template\.spec\.containers\[0\]\.resources\.limits\[cpu\]: Invalid value: "lots": quantities must match the regular expression/,
      );
    });
  });

  it('an empty selector: Warning SelectingAll and nothing else', () => {
    const dep = deployment({ generation: 2 });
    dep.spec.selector = {};
    const d = decide(snapshot(dep, []), { validate: () => [] });
    expect(d.events).to.deep.equal([
      {
        type: 'Warning',
        reason: 'SelectingAll',
        message: 'This deployment is selecting all pods. A non-empty selector is required.',
      },
    ]);
    expect(d.actions.map((a) => a.verb)).to.deep.equal(['updateStatus']);
    expect(d.status.observedGeneration).to.equal(2);
  });

  it('defaults a hand-written Deployment (no strategy, no replicas)', () => {
    const dep: Deployment = {
      metadata: { name: 'web', namespace: 'default', uid: 'u', generation: 1 },
      spec: { selector: { matchLabels: { app: 'web' } }, template: template('x') },
    };
    const d = decide(snapshot(dep, []));
    const create = d.actions[0];
    expect(create.verb === 'create' && create.replicas).to.equal(1);
    expect(dep.spec.replicas).to.equal(undefined); // input untouched
  });

  describe('create failures (reported by the controller)', () => {
    const dep = deployment({ replicas: 3 });
    it("AlreadyExists with someone else's ReplicaSet: collisionCount nil → 1, then +1", () => {
      const existing = replicaSet('web-x', { replicas: 1, owned: false });
      const d1 = onCreateConflict(snapshot(dep, []), existing);
      expect(d1.actions.map((a) => a.verb)).to.deep.equal(['updateStatus']);
      expect(d1.status.collisionCount).to.equal(1);
      const d2 = onCreateConflict(snapshot(d1.objects.deployment, []), existing);
      expect(d2.status.collisionCount).to.equal(2);
    });
    it('AlreadyExists with our own ReplicaSet of the same template: nothing to write, look again', () => {
      const existing = replicaSet('web-x', { replicas: 1 });
      const d = onCreateConflict(snapshot(deployment({ replicas: 3 }), []), existing);
      expect(d.actions).to.deep.equal([]);
      expect(d.requeueAfterSeconds).to.equal(0);
    });
    it('another error: Progressing=False ReplicaSetCreateError and a Warning event', () => {
      const d = onCreateError(snapshot(dep, []), 'web-x', 'quota exceeded');
      const msg = 'Failed to create new replica set "web-x": quota exceeded';
      expect(d.status.conditions!.find((c) => c.type === 'Progressing')).to.deep.include({
        status: 'False',
        reason: 'ReplicaSetCreateError',
        message: msg,
      });
      expect(d.events).to.deep.equal([{ type: 'Warning', reason: 'ReplicaSetCreateError', message: msg }]);
    });
  });
});
