import { expect } from 'chai';
import type { Deployment } from '../../../src/api/types.ts';
import { KubeError } from '../../../src/kube/errors.ts';
import { PAUSE_MESSAGES, pausePatch, runPause } from '../../../src/plugin/pause.ts';
import { RESTART_MESSAGES, restartPatch, runRestart } from '../../../src/plugin/restart.ts';
import { deployment, racingSession } from './fixtures.ts';

describe('plugin/pause, resume and restart', () => {
  const rows: Array<[string, boolean | undefined, boolean, string | null]> = [
    ['pause a running Deployment', undefined, true, null],
    ['pause a paused one', true, true, 'deployments.pacer.dev "web" is already paused'],
    ['resume a paused one', true, false, null],
    ['resume one that is not paused', false, false, 'deployments.pacer.dev "web" is not paused'],
  ];
  for (const [name, current, want, error] of rows) {
    it(name, () => {
      const d = deployment('web', current === undefined ? {} : { paused: current });
      if (error) expect(() => pausePatch(d, want)).to.throw(error);
      else expect(pausePatch(d, want)).to.deep.equal({ metadata: { resourceVersion: '42' }, spec: { paused: want } });
    });
  }

  it('pause/resume messages', () => {
    expect(PAUSE_MESSAGES.paused('web')).to.equal('deployment.pacer.dev/web paused');
    expect(PAUSE_MESSAGES.resumed('web')).to.equal('deployment.pacer.dev/web resumed');
  });

  const now = Date.parse('2025-03-01T10:04:05.250Z');
  it('restart sets the template annotation restartedAt to RFC 3339 now', () => {
    expect(restartPatch(deployment('web'), now, 0)).to.deep.equal({
      metadata: { resourceVersion: '42' },
      spec: {
        template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': '2025-03-01T10:04:05Z' } } },
      },
    });
    expect(RESTART_MESSAGES.restarted('web')).to.equal('deployment.pacer.dev/web restarted');
  });

  it("a second restart within the same second is refused with kubectl's message", () => {
    const d = deployment('web');
    d.spec.template!.metadata!.annotations = { 'kubectl.kubernetes.io/restartedAt': '2025-03-01T10:04:05Z' };
    expect(() => restartPatch(d, now + 500, 0)).to.throw(
      'failed to create patch for web: if restart has already been triggered within the past second, please wait before attempting to trigger another',
    );
    expect(() => restartPatch(d, now + 1000, 0)).not.to.throw();
  });

  it('a paused Deployment cannot be restarted', () => {
    expect(() => restartPatch(deployment('web', { paused: true }), now, 0)).to.throw(
      "can't restart paused deployment (run rollout resume first)",
    );
  });
});

describe('plugin/pause, resume and restart: a patch that lost a race with the controller is decided again', () => {
  const conflict = () =>
    new KubeError('Conflict', 'patch', {
      code: 409,
      reason: 'Conflict',
      status: {
        code: 409,
        reason: 'Conflict',
        message:
          'Operation cannot be fulfilled on deployments.pacer.dev "web": the object has been modified; please apply your changes to the latest version and try again',
      },
    });
  const forbidden = () => new KubeError('Forbidden', 'patch', { code: 403, reason: 'Forbidden' });

  /** The controller's status writes between a read and a patch: racingSession (fixtures.ts). */
  const session = (answers: Array<() => Error>, reads: Array<(d: Deployment) => Deployment> = []) => {
    const r = racingSession('web', answers, reads);
    return { ...r, sent: r.sent as Array<{ metadata: { resourceVersion?: string } }> };
  };
  const rvs = (sent: Array<{ metadata: { resourceVersion?: string } }>) => sent.map((p) => p.metadata.resourceVersion);
  const failure = async (run: () => Promise<unknown>): Promise<unknown> => {
    try {
      await run();
    } catch (e) {
      return e;
    }
    throw new Error('expected the command to fail');
  };

  it('restart: two Conflicts (status written between the read and the patch), then sent with the latest resourceVersion', async () => {
    const { s, sent, out } = session([conflict, conflict]);
    expect(await runRestart(s, 'web')).to.equal(0);
    expect(rvs(sent)).to.deep.equal(['41', '42', '43']);
    expect(out()).to.equal('deployment.pacer.dev/web restarted\n');
  });

  it('pause and resume: a Conflict, then sent with the latest resourceVersion', async () => {
    const paused = session([conflict]);
    expect(await runPause(paused.s, 'web', true)).to.equal(0);
    expect(rvs(paused.sent)).to.deep.equal(['41', '42']);
    expect(paused.out()).to.equal('deployment.pacer.dev/web paused\n');
    const p = (d: Deployment) => ({ ...d, spec: { ...d.spec, paused: true } });
    const resumed = session([conflict], [p, p]);
    expect(await runPause(resumed.s, 'web', false)).to.equal(0);
    expect(resumed.sent.map((x) => (x as unknown as { spec: { paused: boolean } }).spec.paused)).to.deep.equal([
      false,
      false,
    ]);
    expect(resumed.out()).to.equal('deployment.pacer.dev/web resumed\n');
  });

  it('decided again on the fresh read: a Deployment paused in between is refused a restart, and is already paused for a pause', async () => {
    const p = (d: Deployment) => ({ ...d, spec: { ...d.spec, paused: true } });
    const restart = session([conflict], [(d) => d, p]);
    expect(((await failure(() => runRestart(restart.s, 'web'))) as Error).message).to.equal(
      "can't restart paused deployment (run rollout resume first)",
    );
    expect(restart.sent).to.have.length(1);
    const pause = session([conflict], [(d) => d, p]);
    expect(((await failure(() => runPause(pause.s, 'web', true))) as Error).message).to.equal(
      'deployments.pacer.dev "web" is already paused',
    );
    expect(pause.sent).to.have.length(1);
  });

  it('any other refusal is the answer at once; five lost races give up with the last Conflict', async () => {
    const denied = session([forbidden]);
    expect(((await failure(() => runRestart(denied.s, 'web'))) as KubeError).kind).to.equal('Forbidden');
    expect(denied.sent).to.have.length(1);
    const busy = session([conflict, conflict, conflict, conflict, conflict, conflict]);
    expect(((await failure(() => runPause(busy.s, 'web', true))) as KubeError).kind).to.equal('Conflict');
    expect(rvs(busy.sent)).to.deep.equal(['41', '42', '43', '44', '45']);
    expect(busy.out()).to.equal('');
  });
});
