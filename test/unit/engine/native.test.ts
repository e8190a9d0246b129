// Pacer's additions on an apps/v1 Deployment (src/api/native.ts, through decide()): each
// annotation makes the engine do what the field of Pacer's own kind does (its twin, side by side),
// and a bad value is reported on the annotation, with the value given.

import { expect } from 'chai';
import type { AnalysisTemplate } from '../../../src/api/analysis.ts';
import type { Deployment, ReplicaSet } from '../../../src/api/types.ts';
import { dependencyKeys } from '../../../src/api/dependencies.ts';
import { decide } from '../../../src/engine/decide.ts';
import type { Snapshot } from '../../../src/engine/types.ts';
import { NOW, deployment, replicaSet, summary } from './fixtures.ts';

/** web (4 replicas, image nginx:2) rolling out from nginx:1: Pacer's kind with `spec`, or apps/v1 with `annotations`. */
function twins(
  spec: Partial<Deployment['spec']>,
  annotations: Record<string, string>,
  newRS?: [replicas: number, available: number],
): [Snapshot, Snapshot] {
  const rss = (): ReplicaSet[] => [
    replicaSet('web-old', { replicas: newRS ? 3 : 4, revision: 1, age: 60 }),
    ...(newRS
      ? [replicaSet('web-new', { replicas: newRS[0], available: newRS[1], image: 'nginx:2', revision: 2, age: 1 })]
      : []),
  ];
  // Under analysis the old revision is the stable one: in status, or an apps/v1 Deployment's annotation.
  const stable = spec.analysis ? 'old' : undefined;
  const pacer = deployment({ replicas: 4, image: 'nginx:2', status: { observedGeneration: 1, stableRS: stable } });
  pacer.spec = { ...pacer.spec, ...spec };
  if (spec.strategy) pacer.spec.strategy = spec.strategy;
  const apps: Deployment = {
    ...deployment({
      replicas: 4,
      image: 'nginx:2',
      annotations: { ...annotations, ...(stable ? { 'pacer.dev/stable-rs': stable } : {}) },
      status: { observedGeneration: 1 },
    }),
    apiVersion: 'apps/v1',
  };
  // A dependency named and looked up, not found (what the snapshot builder gives).
  const dependencies = spec.dependencies?.map((ref) => ({ ref: `default/${ref}` }));
  // Each template named is found: one Prometheus metric.
  const analysis = spec.analysis && {
    runs: [],
    templates: spec.analysis.templates.map((ref) => ({
      ref,
      template: {
        apiVersion: 'pacer.dev/v1alpha1',
        kind: 'AnalysisTemplate',
        metadata: { name: ref.templateName, namespace: 'default' },
        spec: {
          metrics: [
            {
              name: 'errors',
              interval: '10s',
              successCondition: 'result < 0.05',
              provider: { prometheus: { address: 'http://prometheus:9090', query: 'errors' } },
            },
          ],
        },
      } satisfies AnalysisTemplate,
    })),
  };
  return [
    { deployment: pacer, replicaSets: rss(), pods: [], now: NOW, ...(dependencies ? { dependencies } : {}), analysis },
    { deployment: apps, replicaSets: rss(), pods: [], now: NOW, ...(dependencies ? { dependencies } : {}), analysis },
  ];
}

const scalings = (s: Snapshot) =>
  summary(decide(s)).filter((x) => x.startsWith('scale') || x.startsWith('create') || x.includes('AnalysisRun'));
const invalid = (s: Snapshot) =>
  decide(s).status.conditions?.find((c) => c.type === 'InvalidSpec' && c.status === 'True')?.message;

describe('engine: native mode, Pacer additions by annotation', () => {
  const rows: Array<[string, Partial<Deployment['spec']>, Record<string, string>, [number, number]?]> = [
    [
      'pacer.dev/minimum-health-capacity "0.5": Marathon\'s minimum health',
      { strategy: { type: 'MinimumHealth', minimumHealth: { minimumHealthCapacity: 0.5 } } },
      { 'pacer.dev/minimum-health-capacity': '0.5' },
    ],
    [
      'with pacer.dev/maximum-over-capacity "0.25"',
      {
        strategy: { type: 'MinimumHealth', minimumHealth: { minimumHealthCapacity: 0.5, maximumOverCapacity: 0.25 } },
      },
      { 'pacer.dev/minimum-health-capacity': '0.5', 'pacer.dev/maximum-over-capacity': '0.25' },
    ],
    [
      'pacer.dev/plan-strategy "serial": no second new pod before the first is available',
      { plan: { strategy: 'serial' } },
      { 'pacer.dev/plan-strategy': 'serial' },
      [1, 0],
    ],
    [
      'pacer.dev/plan-strategy "serial-canary" with 3 required proceeds: waits for continue',
      { plan: { strategy: 'serial-canary', requiredProceeds: 3 } },
      { 'pacer.dev/plan-strategy': 'serial-canary', 'pacer.dev/plan-required-proceeds': '3' },
    ],
    ['pacer.dev/dependencies "db" (not found): waits', { dependencies: ['db'] }, { 'pacer.dev/dependencies': 'db' }],
    [
      'pacer.dev/analysis naming a template: its run starts with the first new pod available',
      { analysis: { templates: [{ templateName: 'success-rate' }], onFailure: 'Rollback' } },
      { 'pacer.dev/analysis': 'templates: [{templateName: success-rate}]\nonFailure: Rollback\n' },
      [1, 1],
    ],
    [
      'pacer.dev/windows (03:00 for an hour, not now): the rollout waits for its window',
      { windows: [{ start: '03:00', duration: '1h' }] },
      { 'pacer.dev/windows': '[{start: "03:00", duration: 1h}]' },
    ],
    [
      'pacer.dev/blackouts (today): the rollout waits',
      { blackouts: [{ start: '2025-03-01', end: '2025-03-01', reason: 'sale' }] },
      { 'pacer.dev/blackouts': '- {start: 2025-03-01, end: 2025-03-01, reason: sale}' },
    ],
    [
      'pacer.dev/analysis as JSON',
      { analysis: { templates: [{ templateName: 'success-rate' }] } },
      { 'pacer.dev/analysis': '{"templates": [{"templateName": "success-rate"}]}' },
      [1, 1],
    ],
  ];
  for (const [name, spec, annotations, newRS] of rows)
    it(`${name}, as its twin does`, () => {
      const [pacer, apps] = twins(spec, annotations, newRS);
      expect(scalings(apps)).to.deep.equal(scalings(pacer));
      // The addition changes what happens: without it the same apps/v1 Deployment would roll differently.
      const [, plain] = twins({}, {}, newRS);
      const conds = (s: Snapshot) => decide(s).status.conditions?.map((c) => `${c.type} ${c.status} ${c.reason}`);
      expect([scalings(plain), conds(plain)]).to.not.deep.equal([scalings(apps), conds(apps)]);
      const conditions = (s: Snapshot) => decide(s).status.conditions?.map((c) => `${c.type} ${c.status} ${c.reason}`);
      expect(conditions(apps)).to.deep.equal(conditions(pacer));
    });

  it('without annotations an apps/v1 Deployment rolls as RollingUpdate does (the additions change nothing)', () => {
    const [pacer, apps] = twins({}, {});
    expect(scalings(apps)).to.deep.equal(scalings(pacer));
    expect(scalings(apps)).to.not.deep.equal([]);
  });

  it('pacer.dev/dependencies: comma separated, name or namespace/name, read by the dependency index too', () => {
    const [, apps] = twins({}, { 'pacer.dev/dependencies': ' db, other/cache ,' });
    expect(dependencyKeys(apps.deployment)).to.deep.equal(['default/db', 'other/cache']);
    // Pacer's own kind reads its field, not the annotation.
    const [pacer] = twins({}, {});
    pacer.deployment.metadata.annotations = { 'pacer.dev/dependencies': 'db' };
    expect(dependencyKeys(pacer.deployment)).to.deep.equal([]);
  });

  const bad: Array<[Record<string, string>, string]> = [
    [
      { 'pacer.dev/minimum-health-capacity': 'half' },
      'metadata.annotations[pacer.dev/minimum-health-capacity]: Invalid value: "half": must be a number between 0.0 and 1.0',
    ],
    [
      { 'pacer.dev/minimum-health-capacity': '1.5' },
      'metadata.annotations[pacer.dev/minimum-health-capacity]: Invalid value: 1.5',
    ],
    [
      { 'pacer.dev/plan-strategy': 'zigzag' },
      'metadata.annotations[pacer.dev/plan-strategy]: Unsupported value: "zigzag"',
    ],
    [
      { 'pacer.dev/plan-strategy': 'serial-canary', 'pacer.dev/plan-required-proceeds': 'two' },
      'metadata.annotations[pacer.dev/plan-required-proceeds]: Invalid value: "two": must be a whole number of at least 1',
    ],
    [
      { 'pacer.dev/analysis': 'templates: [{templateName: a}' },
      'metadata.annotations[pacer.dev/analysis]: Invalid value: "templates: [{templateName: a}": must be YAML or JSON: ',
    ],
    [
      { 'pacer.dev/analysis': '- templateName: a' },
      'metadata.annotations[pacer.dev/analysis]: Invalid value: "- templateName: a": must be a mapping of spec.analysis\'s fields (templates, args, onFailure, ...), not a list',
    ],
    [
      { 'pacer.dev/analysis': 'templates: [{templateName: a}]\nonFailure: Retry' },
      'metadata.annotations[pacer.dev/analysis].onFailure: Unsupported value: "Retry"',
    ],
    [
      { 'pacer.dev/windows': '{start: "03:00", duration: 1h}' },
      'metadata.annotations[pacer.dev/windows]: Invalid value: "{start: \\"03:00\\", duration: 1h}": must be a list of maintenance windows (days, start, duration, timeZone), not a mapping',
    ],
    [
      { 'pacer.dev/windows': '[{start: "25:00", duration: 1h}]' },
      'metadata.annotations[pacer.dev/windows][0].start: Invalid value: "25:00"',
    ],
    [
      { 'pacer.dev/dependencies': 'Not_A_Name' },
      'metadata.annotations[pacer.dev/dependencies]: Invalid value: "Not_A_Name"',
    ],
  ];
  for (const [annotations, want] of bad)
    it(`${JSON.stringify(annotations)}: InvalidSpec on the annotation, nothing rolls`, () => {
      const [, apps] = twins({}, annotations);
      expect(invalid(apps)).to.include(want);
      expect(scalings(apps)).to.deep.equal([]);
    });

  it("upstream's bookkeeping keys: read as deployment.kubernetes.io/*, written as deployment.kubernetes.io/*, never pacer.dev/*", () => {
    const old = replicaSet('web-old', { replicas: 4, revision: 1, age: 60 });
    old.metadata.ownerReferences = old.metadata.ownerReferences?.map((r) => ({ ...r, apiVersion: 'apps/v1' }));
    old.metadata.annotations = {
      'deployment.kubernetes.io/revision': '7',
      'deployment.kubernetes.io/desired-replicas': '4',
    };
    const d: Deployment = {
      ...deployment({ replicas: 4, image: 'nginx:2', annotations: { 'deployment.kubernetes.io/revision': '7' } }),
      apiVersion: 'apps/v1',
    };
    const dec = decide({ deployment: d, replicaSets: [old], pods: [], now: NOW });
    const create = dec.actions.find((a) => a.verb === 'create');
    expect(create?.verb === 'create' && create.object.metadata.annotations).to.include({
      'deployment.kubernetes.io/revision': '8',
      'deployment.kubernetes.io/desired-replicas': '4',
      'deployment.kubernetes.io/max-replicas': '5',
    });
    const update = dec.actions.find((a) => a.verb === 'update' && a.kind === 'Deployment');
    expect(update?.verb === 'update' && update.object.metadata.annotations).to.include({
      'deployment.kubernetes.io/revision': '8',
    });
    const written = JSON.stringify(dec.actions);
    expect(written).to.not.include('pacer.dev/');
  });

  it('pacer.dev/analysis: the stable revision is kept in pacer.dev/stable-rs (apps/v1 status has no field for it), written with the status', () => {
    const done = (annotations: Record<string, string>): Snapshot => {
      const rs = replicaSet('web-new', { replicas: 4, available: 4, image: 'nginx:2', revision: 2, age: 60 });
      rs.metadata.ownerReferences = rs.metadata.ownerReferences?.map((r) => ({ ...r, apiVersion: 'apps/v1' }));
      const d: Deployment = {
        ...deployment({ replicas: 4, image: 'nginx:2', annotations, status: { observedGeneration: 1 } }),
        apiVersion: 'apps/v1',
      };
      return { deployment: d, replicaSets: [rs], pods: [], now: NOW, analysis: { runs: [], templates: [] } };
    };
    const analysis = { 'pacer.dev/analysis': 'podFailures: {}', 'deployment.kubernetes.io/revision': '2' };
    const first = decide(done(analysis));
    const write = first.actions.find((a) => a.verb === 'updateStatus');
    expect(write?.verb === 'updateStatus' && write.annotations).to.deep.equal({ 'pacer.dev/stable-rs': 'new' });
    expect(write?.verb === 'updateStatus' && write.status).to.not.have.property('stableRS');
    expect(first.status).to.not.have.property('stableRS');
    expect(first.objects.deployment.metadata.annotations).to.include({ 'pacer.dev/stable-rs': 'new' });
    // Read back from the annotation, the stable revision is known: nothing more to write about it.
    const again = decide({
      ...done({ ...analysis, 'pacer.dev/stable-rs': 'new' }),
      deployment: first.objects.deployment,
    });
    expect(again.actions.filter((a) => a.verb === 'updateStatus' && a.annotations)).to.deep.equal([]);
    // Pacer's own kind keeps it in its status, as before.
    const [pacer] = twins({ analysis: { templates: [], podFailures: {} } }, {});
    expect(JSON.stringify(decide(pacer).actions)).to.not.include('pacer.dev/stable-rs');
  });
});
