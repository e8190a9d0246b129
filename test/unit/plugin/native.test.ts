// kubectl pacer on apps/v1 Deployments (native mode, src/plugin/target.ts): the argument spelt as
// kubectl spells the kind with its group, and the shared code paths reading upstream's revision keys
// (deployment.kubernetes.io/...) with kubectl's `deployment.apps/` words.

import { expect } from 'chai';
import type { Deployment, ReplicaSet } from '../../../src/api/types.ts';
import { renderTree } from '../../../src/plugin/get.ts';
import { runPlugin } from '../../../src/plugin/program.ts';
import { historyTable, revisions } from '../../../src/plugin/history.ts';
import { pausePatch } from '../../../src/plugin/pause.ts';
import { APPS_KIND, PACER_KIND, parseDeploymentArg } from '../../../src/plugin/target.ts';
import { planUndo } from '../../../src/plugin/undo.ts';
import { T0, deployment, replicaSet } from './fixtures.ts';

describe('plugin/target: which Deployment an argument names', () => {
  const rows: Array<[string, string, 'apps' | 'pacer']> = [
    ['web', 'web', 'pacer'],
    ['deployment.apps/web', 'web', 'apps'],
    ['deployments.apps/web', 'web', 'apps'],
    ['deploy.apps/web', 'web', 'apps'],
    ['deployment.v1.apps/web', 'web', 'apps'],
    ['Deployment.apps/web', 'web', 'apps'],
    ['deployment.pacer.dev/web', 'web', 'pacer'],
    ['deployments.pacer.dev/web', 'web', 'pacer'],
    ['pdeploy/web', 'web', 'pacer'],
  ];
  for (const [arg, name, kind] of rows)
    it(`${arg}: ${kind === 'apps' ? 'the apps/v1 Deployment' : "Pacer's kind"} ${name}`, () => {
      const t = parseDeploymentArg(arg);
      expect([t.name, t.kind]).to.deep.equal([name, kind === 'apps' ? APPS_KIND : PACER_KIND]);
    });

  const refused: Array<[string, string]> = [
    [
      'deployment/web',
      "\"deployment/web\" is ambiguous here: kubectl reads deployment as apps/v1's Deployment, kubectl pacer reads a bare name as Pacer's; write deployment.apps/web for the apps/v1 Deployment (native mode) or web (deployment.pacer.dev/web) for Pacer's",
    ],
    ['deploy/web', '"deploy/web" is ambiguous here'],
    ['pod/web', '"pod/web" is not a Deployment: kubectl pacer acts on NAME or deployment.pacer.dev/NAME'],
    ['deployment.apps/', 'arguments in resource/name form must have a single resource and name: "deployment.apps/"'],
    ['deployment.apps/a/b', 'arguments in resource/name form must have a single resource and name'],
  ];
  for (const [arg, message] of refused)
    it(`${arg}: refused, saying what to write`, () => expect(() => parseDeploymentArg(arg)).to.throw(message));

  it('on the command line: one error line, exit 1, before any connection', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => err.push(t) } };
    const code = await runPlugin(['rollout', 'pause', 'deploy/web', '--kubeconfig', '/nonexistent/kubeconfig'], io);
    expect([code, out.join(''), err.join('')]).to.deep.equal([
      1,
      '',
      "error: \"deploy/web\" is ambiguous here: kubectl reads deploy as apps/v1's Deployment, kubectl pacer reads a bare name as Pacer's; write deployment.apps/web for the apps/v1 Deployment (native mode) or web (deployment.pacer.dev/web) for Pacer's\n",
    ]);
  });
});

/** web as apps/v1 serves it, and its ReplicaSets (controller apps/v1, upstream's revision key). */
function native(opts: Parameters<typeof deployment>[1] & { revision?: number } = {}): Deployment {
  const d = deployment('web', {
    ...opts,
    annotations: {
      ...(opts.revision !== undefined ? { 'deployment.kubernetes.io/revision': String(opts.revision) } : {}),
      ...opts.annotations,
    },
  });
  return { ...d, apiVersion: 'apps/v1' };
}
function nativeRS(owner: Deployment, hash: string, revision: number, image: string, replicas = 0): ReplicaSet {
  const rs = replicaSet(owner, hash, { image, replicas, available: replicas, statusReplicas: replicas });
  rs.metadata.annotations = { 'deployment.kubernetes.io/revision': String(revision) };
  rs.metadata.ownerReferences = rs.metadata.ownerReferences?.map((r) => ({ ...r, apiVersion: 'apps/v1' }));
  return rs;
}

describe('plugin on an apps/v1 Deployment: upstream keys, kubectl words', () => {
  const d = native({ revision: 2, image: 'nginx:2' });
  const rss = [nativeRS(d, 'aaa', 1, 'nginx:1'), nativeRS(d, 'bbb', 2, 'nginx:2', 3)];

  it('rollout history: the revisions under deployment.kubernetes.io/revision, headed deployment.apps/web', () => {
    expect(historyTable('web', revisions(rss), APPS_KIND)).to.equal(
      'deployment.apps/web \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n',
    );
    // Pacer's own kind does not read upstream's key on its ReplicaSets.
    const pacerOwned = replicaSet(deployment('web'), 'ccc');
    pacerOwned.metadata.annotations = { 'deployment.kubernetes.io/revision': '7' };
    expect(revisions([pacerOwned]).map((r) => r.revision)).to.deep.equal([0]);
  });

  it('rollout undo: the previous revision found by upstream key; its annotations written back in upstream keys', () => {
    const plan = planUndo(d, rss);
    expect(plan.kind).to.equal('patch');
    if (plan.kind !== 'patch') return;
    expect(plan.target.metadata.name).to.equal('web-aaa');
    const annotations = plan.patch.find((p) => p.path === '/metadata/annotations')?.value;
    expect(annotations).to.deep.equal({ 'deployment.kubernetes.io/revision': '2' });
    const image = (plan.patch.find((p) => p.path === '/spec/template')?.value as Deployment['spec']['template'])?.spec;
    expect(JSON.stringify(image)).to.include('nginx:1');
  });

  it("rollout undo to the running revision: skipped, in kubectl's words for deployment.apps", () => {
    const plan = planUndo(d, rss, 2);
    expect(plan.kind === 'skip' && plan.message).to.equal(
      'deployment.apps/web skipped rollback (current template already matches revision 2)',
    );
  });

  it('rollout pause of a paused one: deployments.apps "web" is already paused', () => {
    expect(() => pausePatch(native({ paused: true }), true)).to.throw('deployments.apps "web" is already paused');
  });

  it("get: revisions from upstream's key, and the annotations' additions as its strategy", () => {
    const mh = native({
      revision: 2,
      image: 'nginx:2',
      annotations: { 'pacer.dev/minimum-health-capacity': '0.5' },
      status: { observedGeneration: 1, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3 },
    });
    const lines = renderTree({ deployment: mh, replicaSets: rss, pods: [] }, T0 + 60_000);
    expect(lines.find((l) => l.startsWith('Strategy:'))).to.match(/^Strategy:\s+MinimumHealth$/);
    expect(lines.filter((l) => l.includes('revision:')).map((l) => l.replace(/^\W+/, ''))).to.deep.equal([
      'revision:2',
      'revision:1',
    ]);
  });
});
