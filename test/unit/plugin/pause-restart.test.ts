import { expect } from 'chai';
import { PAUSE_MESSAGES, pausePatch } from '../../../src/plugin/pause.ts';
import { RESTART_MESSAGES, restartPatch } from '../../../src/plugin/restart.ts';
import { deployment } from './fixtures.ts';

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
