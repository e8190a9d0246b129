// `pacer plan -f` with a Deployment under analysis: the AnalysisRun and the template in the file are
// read as the controller reads them from the cluster, so a run's recorded measurements show what
// the next pass would decide (docs/semantics/analysis.md#a-rollout-under-analysis).

import { expect } from 'chai';
import { stringify } from 'yaml';
import { runPlan, type PlanDocument } from '../../../src/cli/dryrun.ts';

const NOW = '2025-03-01T10:00:00.000Z';
const owner = [{ apiVersion: 'pacer.dev/v1alpha1', kind: 'Deployment', name: 'web', uid: 'web-uid', controller: true }];

function rs(hash: string, image: string, revision: string, replicas: number) {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `web-${hash}`,
      labels: { app: 'web', 'pod-template-hash': hash },
      annotations: { 'pacer.dev/revision': revision },
      ownerReferences: owner,
    },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web', 'pod-template-hash': hash } },
      template: {
        metadata: { labels: { app: 'web', 'pod-template-hash': hash } },
        spec: { containers: [{ name: 'web', image }] },
      },
    },
    status: { replicas, readyReplicas: replicas, availableReplicas: replicas, observedGeneration: 1 },
  };
}

function input(runPhase: string | undefined): string {
  const docs: object[] = [
    {
      apiVersion: 'pacer.dev/v1alpha1',
      kind: 'Deployment',
      metadata: { name: 'web', uid: 'web-uid', generation: 2 },
      spec: {
        replicas: 4,
        selector: { matchLabels: { app: 'web' } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:2' }] } },
        analysis: { templates: [{ templateName: 'error-rate' }] },
      },
      status: { observedGeneration: 2, stableRS: 'aaa' },
    },
    rs('aaa', 'nginx:1', '1', 1),
    rs('bbb', 'nginx:2', '2', 3),
    {
      apiVersion: 'pacer.dev/v1alpha1',
      kind: 'AnalysisTemplate',
      metadata: { name: 'error-rate' },
      spec: { metrics: [{ name: 'errors', provider: { prometheus: { address: 'http://p:9090', query: 'x' } } }] },
    },
  ];
  if (runPhase)
    docs.push({
      apiVersion: 'pacer.dev/v1alpha1',
      kind: 'AnalysisRun',
      metadata: {
        name: 'web-bbb-1',
        labels: { 'pacer.dev/deployment': 'web', 'pacer.dev/pod-template-hash': 'bbb', 'pacer.dev/attempt': '1' },
        ownerReferences: owner,
      },
      spec: { metrics: [{ name: 'errors', provider: { prometheus: { address: 'http://p:9090', query: 'x' } } }] },
      status: { phase: runPhase, message: 'metric "errors" assessed Failed: 2 of 2 measurements failed' },
    });
  return docs.map((d) => stringify(d)).join('---\n');
}

function plan(text: string): PlanDocument {
  const r = runPlan(text, 'deploy.yaml', { now: NOW });
  expect(r.stderr).to.equal('');
  expect(r.code).to.equal(0);
  return JSON.parse(r.stdout) as PlanDocument;
}

describe('pacer plan -f: a Deployment under analysis', () => {
  it('a Failed run in the file: the next pass goes back to the stable revision (Progressing False AnalysisFailed)', () => {
    const doc = plan(input('Failed'));
    expect(
      doc.actions.filter((a) => a.verb === 'scale').map((a) => `${a.name} ${a.from}->${a.replicas}`),
    ).to.deep.equal(['web-aaa 1->2']);
    const progressing = doc.status.conditions?.find((c) => c.type === 'Progressing');
    expect(progressing).to.include({ status: 'False', reason: 'AnalysisFailed' });
    expect(progressing?.message).to.equal(
      'Analysis run web-bbb-1 failed: metric "errors" assessed Failed: 2 of 2 measurements failed; the rollout was aborted to revision 1 (ReplicaSet "web-aaa")',
    );
  });

  it('no run yet but a new pod available: the next pass starts one', () => {
    const doc = plan(input(undefined));
    expect(doc.actions.map((a) => `${a.verb} ${a.name}`)).to.include('createAnalysisRun web-bbb-1');
  });

  it('a Running run: the rollout goes on', () => {
    const doc = plan(input('Running'));
    expect(doc.actions.filter((a) => a.verb === 'scale').map((a) => a.name)).to.deep.equal(['web-bbb']);
    expect(doc.actions.find((a) => a.verb === 'scale')).to.include({ from: 3, replicas: 4 });
  });
});
