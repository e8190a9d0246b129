// The deploy plan derived from the cluster: the SDK's walk-through service (hello, then world
// depending on it) as Deployments, ReplicaSets and pods, each step's status read from its pod.

import { expect } from 'chai';
import type { Deployment, Pod, ReplicaSet } from '../../../../src/api/types.ts';
import { buildNewReplicaSet } from '../../../../src/engine/kubernetes/newreplicaset.ts';
import { coordinate } from '../../../../src/engine/dcos/assets.ts';
import { deployPlan, podStepStatus, serviceMembers } from '../../../../src/engine/dcos/deploy.ts';
import { recoveryPlan } from '../../../../src/engine/dcos/recovery.ts';
import { planTree } from '../../../../src/engine/dcos/render.ts';
import { viewPlan } from '../../../../src/engine/dcos/tree.ts';

const NOW = Date.parse('2026-03-01T10:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

function deployment(
  name: string,
  replicas: number,
  containers: string[],
  deps: string[] = [],
  o: { minReadySeconds?: number } = {},
): Deployment {
  return {
    apiVersion: 'pacer.dev/v1alpha1',
    kind: 'Deployment',
    metadata: { name, namespace: 'svc', uid: `uid-${name}`, generation: 1 },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      ...(deps.length ? { dependencies: deps } : {}),
      minReadySeconds: o.minReadySeconds ?? 0,
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: containers.map((c) => ({ name: c, image: `${c}:1` })) },
      },
    },
  };
}

type PodState = 'created' | 'scheduled' | 'running' | 'ready' | 'crashloop' | 'failed' | 'terminating';
function pod(rs: ReplicaSet, i: number, state: PodState, readySince = NOW - 60_000): Pod {
  const hash = rs.metadata.labels!['pod-template-hash'];
  return {
    metadata: {
      name: `${rs.metadata.name}-${i}`,
      namespace: 'svc',
      creationTimestamp: iso(NOW - 100_000 + i * 1000),
      labels: { ...rs.spec.template!.metadata!.labels, 'pod-template-hash': hash },
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs.metadata.name!, uid: rs.metadata.uid!, controller: true },
      ],
      ...(state === 'terminating' ? { deletionTimestamp: iso(NOW) } : {}),
    },
    spec: state === 'created' ? {} : { nodeName: 'node-1' },
    status: {
      phase: state === 'created' || state === 'scheduled' ? 'Pending' : state === 'failed' ? 'Failed' : 'Running',
      conditions: [
        {
          type: 'Ready',
          status: state === 'ready' || state === 'terminating' ? 'True' : 'False',
          lastTransitionTime: iso(readySince),
        },
      ],
      ...(state === 'crashloop'
        ? { containerStatuses: [{ name: 'server', state: { waiting: { reason: 'CrashLoopBackOff' } } }] }
        : {}),
    },
  };
}

describe('plans: the deploy plan of a service, from its pods', () => {
  const hello = deployment('hello', 1, ['server']);
  const world = deployment('world', 2, ['server', 'sidecar'], ['hello']);
  const helloRS = buildNewReplicaSet(hello, 'aaaa', NOW);
  const worldRS = buildNewReplicaSet(world, 'bbbb', NOW);
  const plan = (pods: Pod[]) =>
    planTree(viewPlan(deployPlan({ deployments: [world, hello], replicaSets: [helloRS, worldRS], pods, now: NOW })));

  it('no pods yet: every step PENDING, hello before world (dependency order), steps named as the SDK names them', () => {
    expect(plan([])).to.deep.equal([
      'deploy (serial strategy) (PENDING)',
      '├─ hello (parallel strategy) (PENDING)',
      '│  └─ hello-0:[server] (PENDING)',
      '└─ world (parallel strategy) (PENDING)',
      '   ├─ world-0:[server, sidecar] (PENDING)',
      '   └─ world-1:[server, sidecar] (PENDING)',
    ]);
  });

  const rows: Array<[string, PodState, string, string]> = [
    ['a pod created, not scheduled → PREPARED; the plan IN_PROGRESS', 'created', 'PREPARED', 'IN_PROGRESS'],
    ['scheduled, containers not running → STARTING', 'scheduled', 'STARTING', 'STARTING'],
    ['running, not ready → STARTED', 'running', 'STARTED', 'STARTED'],
    ['ready → COMPLETE; the plan moves on to world', 'ready', 'COMPLETE', 'IN_PROGRESS'],
    [
      "crash-looping → DELAYED; the plan beside PENDING world falls through the SDK's rules to ERROR (rule 15)",
      'crashloop',
      'DELAYED',
      'ERROR',
    ],
    ['being deleted: the slot is empty → PENDING', 'terminating', 'PENDING', 'PENDING'],
  ];
  for (const [name, state, step, top] of rows) {
    it(name, () => {
      const lines = plan([pod(helloRS, 0, state)]);
      expect(lines[2]).to.equal(`│  └─ hello-0:[server] (${step})`);
      expect(lines[0]).to.equal(`deploy (serial strategy) (${top})`);
    });
  }

  it('every pod available: COMPLETE', () => {
    expect(plan([pod(helloRS, 0, 'ready'), pod(worldRS, 0, 'ready'), pod(worldRS, 1, 'ready')])[0]).to.equal(
      'deploy (serial strategy) (COMPLETE)',
    );
  });

  it('pods of an older template fill no slot of the current one', () => {
    const older = buildNewReplicaSet(
      {
        ...hello,
        spec: {
          ...hello.spec,
          template: { ...hello.spec.template!, spec: { containers: [{ name: 'server', image: 'server:0' }] } },
        },
      },
      'old0',
      NOW,
    );
    const d = deployPlan({
      deployments: [hello],
      replicaSets: [helloRS, older],
      pods: [pod(older, 0, 'ready')],
      now: NOW,
    });
    expect(viewPlan(d).phases[0].steps[0].status).to.equal('PENDING');
  });

  it('minReadySeconds: ready but not for long enough → STARTED', () => {
    expect(podStepStatus(pod(helloRS, 0, 'ready', NOW - 5_000), 10, NOW)).to.equal('STARTED');
    expect(podStepStatus(pod(helloRS, 0, 'ready', NOW - 15_000), 10, NOW)).to.equal('COMPLETE');
    expect(podStepStatus(pod(helloRS, 0, 'failed'), 0, NOW)).to.equal('DELAYED');
  });

  it('an invalid spec or a dependency cycle: the steps are ERROR with the reason', () => {
    const a = deployment('a', 1, ['x'], ['b']);
    const b = deployment('b', 1, ['x'], ['a']);
    const v = viewPlan(deployPlan({ deployments: [a, b], replicaSets: [], pods: [], now: NOW }));
    expect(v.status).to.equal('ERROR');
    expect(v.errors).to.include('dependency cycle: a → b → a');
    const bad = {
      ...hello,
      status: {
        conditions: [
          {
            type: 'InvalidSpec',
            status: 'True' as const,
            reason: 'InvalidSpec',
            message: 'spec.replicas: Invalid value',
          },
        ],
      },
    };
    expect(
      viewPlan(deployPlan({ deployments: [bad], replicaSets: [], pods: [], now: NOW })).phases[0].steps[0].status,
    ).to.equal('ERROR');
  });

  it("with spec.plan serial on both, the SDK's own initial tree", () => {
    const serial = (d: Deployment): Deployment => ({ ...d, spec: { ...d.spec, plan: { strategy: 'serial' } } });
    const v = viewPlan(
      deployPlan({ deployments: [serial(hello), serial(world)], replicaSets: [helloRS, worldRS], pods: [], now: NOW }),
    );
    expect(planTree(v)).to.deep.equal([
      'deploy (serial strategy) (PENDING)',
      '├─ hello (serial strategy) (PENDING)',
      '│  └─ hello-0:[server] (PENDING)',
      '└─ world (serial strategy) (PENDING)',
      '   ├─ world-0:[server, sidecar] (PENDING)',
      '   └─ world-1:[server, sidecar] (PENDING)',
    ]);
  });

  it('serial-canary: the canary slots wait (WAITING) until continues release them; the plan state for this revision', () => {
    const web = {
      ...deployment('web', 4, ['app']),
      spec: { ...deployment('web', 4, ['app']).spec, plan: { strategy: 'serial-canary' as const } },
    };
    const rs = {
      ...buildNewReplicaSet(web, 'cccc', NOW),
      metadata: { ...buildNewReplicaSet(web, 'cccc', NOW).metadata, annotations: { 'pacer.dev/revision': '2' } },
    };
    rs.spec.replicas = 0;
    const show = (d: Deployment) => viewPlan(deployPlan({ deployments: [d], replicaSets: [rs], pods: [], now: NOW }));
    expect(show(web).phases[0].steps.map((x) => x.status)).to.deep.equal(['WAITING', 'WAITING', 'PENDING', 'PENDING']);
    expect(show(web).phases[0].status).to.equal('WAITING');
    const once = {
      ...web,
      metadata: { ...web.metadata, annotations: { 'pacer.dev/plan-state': '{"revision":2,"proceeds":1}' } },
    };
    expect(show(once).phases[0].steps.map((x) => x.status)).to.deep.equal(['PENDING', 'WAITING', 'PENDING', 'PENDING']);
    expect(show(once).phases[0].status).to.equal('PENDING');
    const stale = {
      ...web,
      metadata: { ...web.metadata, annotations: { 'pacer.dev/plan-state': '{"revision":1,"proceeds":2}' } },
    };
    expect(show(stale).phases[0].status, "another rollout's continues do not count").to.equal('WAITING');
    const paused = {
      ...web,
      metadata: {
        ...web.metadata,
        annotations: { 'pacer.dev/plan-state': '{"revision":2,"proceeds":2}', 'pacer.dev/plan-interrupted': 'true' },
      },
    };
    expect(show(paused).status).to.equal('WAITING');
  });

  it('a force-completed slot shows COMPLETE (forced) until its pod completes by itself', () => {
    const rs = { ...helloRS, metadata: { ...helloRS.metadata, annotations: { 'pacer.dev/revision': '1' } } };
    const forced = {
      ...hello,
      metadata: { ...hello.metadata, annotations: { 'pacer.dev/plan-state': '{"revision":1,"forced":[0]}' } },
    };
    const show = (pods: Pod[]) =>
      viewPlan(deployPlan({ deployments: [forced], replicaSets: [rs], pods, now: NOW })).phases[0].steps[0];
    expect(show([pod(rs, 0, 'running')])).to.include({ status: 'COMPLETE', forced: true });
    expect(show([pod(rs, 0, 'ready')])).to.include({ status: 'COMPLETE', forced: false });
    expect(
      planTree(
        viewPlan(deployPlan({ deployments: [forced], replicaSets: [rs], pods: [pod(rs, 0, 'running')], now: NOW })),
      )[2],
    ).to.equal('   └─ hello-0:[server] (COMPLETE) (forced)');
  });

  it('a service: the Deployments joined through spec.dependencies either way', () => {
    const lone = deployment('lone', 1, ['x']);
    const all = [hello, world, lone, deployment('client', 1, ['x'], ['world'])];
    expect(serviceMembers(all, 'svc', 'hello').map((d) => d.metadata.name)).to.deep.equal(['client', 'hello', 'world']);
    expect(serviceMembers(all, 'svc', 'lone').map((d) => d.metadata.name)).to.deep.equal(['lone']);
    expect(serviceMembers(all, 'svc', 'nope')).to.deep.equal([]);
  });
});

describe('plans: the recovery plan of a service, from its pods', () => {
  const web = deployment('web', 2, ['app']);
  const oldRS = {
    ...buildNewReplicaSet(
      {
        ...web,
        spec: {
          ...web.spec,
          template: { ...web.spec.template!, spec: { containers: [{ name: 'app', image: 'app:0' }] } },
        },
      },
      'old0',
      NOW,
    ),
    metadata: {
      ...buildNewReplicaSet(web, 'old0', NOW).metadata,
      name: 'web-old0',
      uid: 'uid-web-old0',
      annotations: { 'pacer.dev/revision': '1' },
    },
  };
  const newRS = {
    ...buildNewReplicaSet(web, 'new1', NOW),
    metadata: { ...buildNewReplicaSet(web, 'new1', NOW).metadata, annotations: { 'pacer.dev/revision': '2' } },
  };
  const restarting = (p: Pod): Pod => ({
    ...p,
    status: {
      ...p.status,
      containerStatuses: [{ name: 'app', restartCount: 3, state: { waiting: { reason: 'CrashLoopBackOff' } } }],
    },
  });
  const show = (pods: Pod[]) => {
    const plans = [
      deployPlan({ deployments: [web], replicaSets: [oldRS, newRS], pods, now: NOW }),
      recoveryPlan({ deployments: [web], replicaSets: [oldRS, newRS], pods, now: NOW }),
    ];
    const picked = new Map(coordinate(plans).map((x) => [x.plan, x.steps]));
    return plans.map((p) => planTree(viewPlan(p, picked.get(p.name))));
  };

  it('nothing to recover: an empty recovery plan, COMPLETE (an empty parent is COMPLETE)', () => {
    expect(show([pod(oldRS, 0, 'ready'), pod(newRS, 0, 'ready')])[1]).to.deep.equal([
      'recovery (parallel strategy) (COMPLETE)',
    ]);
  });

  it('an old pod replaced mid-rollout by its own ReplicaSet: a recovery phase in its revision; the deploy plan goes on', () => {
    const [deploy, recovery] = show([pod(oldRS, 1, 'scheduled'), pod(newRS, 0, 'ready')]);
    expect(recovery).to.deep.equal([
      'recovery (parallel strategy) (STARTING)',
      '└─ web-old0-1 (serial strategy) (STARTING)',
      '   └─ web-old0-1:[app] (STARTING)',
    ]);
    expect(deploy.slice(1)).to.deep.equal([
      '└─ web (parallel strategy) (IN_PROGRESS)',
      '   ├─ web-0:[app] (COMPLETE)',
      '   └─ web-1:[app] (PENDING)',
    ]);
  });

  it('a current pod crash-looping in place: a recovery phase, DELAYED (the kubelet backs off), handed to no plan', () => {
    const pods = [restarting(pod(newRS, 0, 'crashloop'))];
    const plans = [
      deployPlan({ deployments: [web], replicaSets: [oldRS, newRS], pods, now: NOW }),
      recoveryPlan({ deployments: [web], replicaSets: [oldRS, newRS], pods, now: NOW }),
    ];
    expect(viewPlan(plans[1]).phases.map((p) => `${p.name} ${p.steps[0].status}`)).to.deep.equal([
      'web-new1-0 DELAYED',
    ]);
    // The recovery step names the deploy plan's slot web-0 (one pod instance); the deploy plan goes on with its other slot.
    expect(plans[1].phases[0].steps[0].requirement).to.deep.equal({ pod: 'web', index: 0, tasks: ['app'] });
    expect(Object.fromEntries(coordinate(plans).map((x) => [x.plan, x.steps.map((st) => st.name)]))).to.deep.equal({
      deploy: ['web-1:[app]'],
      recovery: [],
    });
  });
});
