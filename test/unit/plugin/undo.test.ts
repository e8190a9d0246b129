import { expect } from 'chai';
import { parseDryRun, patchAsPlanned, planUndo, UNDO_MESSAGES } from '../../../src/plugin/undo.ts';
import type { UndoPlan } from '../../../src/plugin/undo.ts';
import type { Deployment } from '../../../src/api/types.ts';
import { JSON_PATCH_NOT_APPLIED, KubeError, isStalePatch } from '../../../src/kube/errors.ts';
import { computeHash } from '../../../src/engine/kubernetes/hash.ts';
import { deployment, racingSession, replicaSet } from './fixtures.ts';

describe('plugin/undo: kubectl rollout undo', () => {
  // Revision 1 runs nginx:1.27, revision 2 (current) runs nginx:1.28.
  const d = deployment('web', {
    image: 'nginx:1.28',
    annotations: {
      'pacer.dev/revision': '2',
      'kubernetes.io/change-cause': 'to 1.28',
      'kubectl.kubernetes.io/last-applied-configuration': '{}',
    },
  });
  const rev1 = replicaSet(d, 'aaa', { revision: 1, image: 'nginx:1.27', changeCause: 'first' });
  const rev2 = replicaSet(d, 'bbb', { revision: 2, image: 'nginx:1.28', replicas: 3 });
  // The ReplicaSet created for the current template is labelled with its hash.
  rev2.metadata.labels!['pod-template-hash'] = computeHash(d.spec.template);
  const rss = [rev2, rev1];

  it('default: the previous revision; a JSON patch that tests the resourceVersion, then replaces template and annotations', () => {
    const plan = planUndo(d, rss);
    expect(plan.kind).to.equal('patch');
    if (plan.kind !== 'patch') return;
    expect(plan.target.metadata.name).to.equal('web-aaa');
    expect(plan.patch).to.deep.equal([
      { op: 'test', path: '/metadata/resourceVersion', value: '42' },
      {
        op: 'replace',
        path: '/spec/template',
        value: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', imagePullPolicy: 'IfNotPresent' }] },
        },
      },
      {
        op: 'replace',
        path: '/metadata/annotations',
        value: {
          'pacer.dev/revision': '2',
          'kubectl.kubernetes.io/last-applied-configuration': '{}',
          'kubernetes.io/change-cause': 'first',
        },
      },
    ]);
    expect(plan.warning).to.match(
      /^Warning: resource deployments\.pacer\.dev\/web was previously managed with 'kubectl apply'/,
    );
  });

  it("--to-revision of the running template: skipped, naming the revision (matched by hash, since the API server defaulted the ReplicaSet's template)", () => {
    const plan = planUndo(d, rss, 2);
    expect(plan).to.include({
      kind: 'skip',
      message: 'deployment.pacer.dev/web skipped rollback (current template already matches revision 2)',
    });
  });

  it('skipped when the templates are equal (ignoring the hash label)', () => {
    const same = deployment('web', { image: 'nginx:1.27' });
    same.spec.template!.spec = structuredClone(rev1.spec.template!.spec);
    expect(planUndo(same, [rev1, replicaSet(same, 'ccc', { revision: 2, image: 'nginx:1.29' })]).kind).to.equal('skip');
  });

  const errors: Array<[string, () => unknown, string]> = [
    ['an unknown revision', () => planUndo(d, rss, 9), 'unable to find specified revision 9 in history'],
    ['no previous revision', () => planUndo(d, [rev2]), 'no rollout history found for deployment "web"'],
    [
      'a paused Deployment',
      () => planUndo({ ...d, spec: { ...d.spec, paused: true } }, rss),
      "you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again",
    ],
  ];
  for (const [name, fn, message] of errors) it(`${name}: "${message}"`, () => expect(fn).to.throw(message));

  it('a Deployment without annotations gets them with "add"', () => {
    const bare = deployment('web', { image: 'nginx:1.28' });
    const plan = planUndo(bare, [
      replicaSet(bare, 'aaa', { revision: 1 }),
      replicaSet(bare, 'bbb', { revision: 2, image: 'nginx:1.28' }),
    ]);
    expect(plan.kind === 'patch' && plan.patch[2]).to.deep.include({ op: 'add', path: '/metadata/annotations' });
    expect(plan.kind === 'patch' && plan.warning).to.equal(undefined);
  });

  it("kubectl's messages with Pacer's resource", () => {
    expect(UNDO_MESSAGES.rolledBack('web')).to.equal('deployment.pacer.dev/web rolled back');
  });

  it('--dry-run values', () => {
    expect(parseDryRun('client')).to.equal('client');
    expect(parseDryRun('server')).to.equal('server');
    expect(parseDryRun('none')).to.equal('none');
    expect(() => parseDryRun('maybe')).to.throw(
      'Invalid dry-run value (maybe). Must be "none", "server", or "client".',
    );
  });
});

describe('plugin/undo: a patch that lost a race is planned again', () => {
  const stale = () =>
    new KubeError('Invalid', 'patch', {
      code: 422,
      reason: 'Invalid',
      status: { code: 422, reason: 'Invalid', message: JSON_PATCH_NOT_APPLIED },
    });
  const invalid = () =>
    new KubeError('Invalid', 'patch', {
      code: 422,
      reason: 'Invalid',
      status: {
        code: 422,
        reason: 'Invalid',
        message: 'Deployment.pacer.dev "web" is invalid: spec.replicas: Invalid value: -1',
      },
    });

  /** A session whose Deployment gets a new resourceVersion on every read, and whose patches fail as `answers` say. */
  function session(answers: Array<() => Error>) {
    const { s, sent } = racingSession('web', answers);
    const plan = async (d: Deployment): Promise<UndoPlan> => ({
      kind: 'patch',
      target: replicaSet(d, 'aaa'),
      patch: [{ op: 'test', path: '/metadata/resourceVersion', value: d.metadata.resourceVersion }],
    });
    return { s, sent, plan };
  }

  it('the generic 422 of a JSON patch that no longer applies, then a Conflict: read and sent again, the third time with the latest resourceVersion', async () => {
    const { s, sent, plan } = session([
      stale,
      () => new KubeError('Conflict', 'patch', { code: 409, reason: 'Conflict' }),
    ]);
    const done = await patchAsPlanned(s, 'web', plan);
    expect(done.kind).to.equal('patch');
    expect(sent.map((b) => (b as Array<{ value: string }>)[0].value)).to.deep.equal(['41', '42', '43']);
  });

  it('any other 422 is the answer: thrown at once', async () => {
    const { s, sent, plan } = session([invalid]);
    let err: unknown;
    try {
      await patchAsPlanned(s, 'web', plan);
    } catch (e) {
      err = e;
    }
    expect((err as Error).message).to.equal('patch');
    expect(sent).to.have.length(1);
  });

  it('gives up after five lost races with the last error', async () => {
    const { s, sent, plan } = session([stale, stale, stale, stale, stale, stale]);
    let err: unknown;
    try {
      await patchAsPlanned(s, 'web', plan);
    } catch (e) {
      err = e;
    }
    expect(isStalePatch(err)).to.equal(true);
    expect(sent).to.have.length(5);
  });
});
