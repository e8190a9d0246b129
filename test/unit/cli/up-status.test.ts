// The status line of `pacer up` on the simulated cluster: what it counts, how it reads, and how it
// is written (in place on a TTY, a plain line per change otherwise).

import { expect } from 'chai';
import type { Deployment } from '../../../src/api/types.ts';
import { LiveStatus, countDeployments, statusLine } from '../../../src/cli/up.ts';

function deployment(
  name: string,
  o: {
    replicas?: number;
    generation?: number;
    status?: Deployment['status'];
    paused?: boolean;
    deleting?: boolean;
  } = {},
): Deployment {
  return {
    apiVersion: 'pacer.dev/v1alpha1',
    kind: 'Deployment',
    metadata: {
      name,
      namespace: 'default',
      generation: o.generation ?? 1,
      ...(o.deleting ? { deletionTimestamp: '2025-01-01T00:00:00Z' } : {}),
    },
    spec: { replicas: o.replicas ?? 2, ...(o.paused ? { paused: true } : {}) },
    ...(o.status ? { status: o.status } : {}),
  };
}

const done = { observedGeneration: 1, replicas: 2, updatedReplicas: 2, availableReplicas: 2 };
const halfway = { observedGeneration: 1, replicas: 3, updatedReplicas: 1, availableReplicas: 2 };
const deadline = {
  ...halfway,
  conditions: [{ type: 'Progressing', status: 'False' as const, reason: 'ProgressDeadlineExceeded', message: 'x' }],
};

/** A stream that records what is written; `isTTY` as asked. */
function sink(isTTY: boolean): NodeJS.WritableStream & { text: string } {
  const s = {
    text: '',
    isTTY,
    columns: 80,
    write(chunk: string) {
      s.text += chunk;
      return true;
    },
  };
  return s as unknown as NodeJS.WritableStream & { text: string };
}

describe('cli/up: the status line', () => {
  it('counts complete, progressing, paused and past-deadline Deployments', () => {
    const c = countDeployments([
      deployment('a', { status: done }),
      deployment('b', { status: halfway }),
      deployment('c'), // not observed yet
      deployment('d', { status: done, generation: 2 }), // a change not yet observed
      deployment('e', { status: halfway, paused: true }),
      deployment('f', { status: deadline }),
      deployment('g', { status: done, deleting: true }),
    ]);
    expect(c).to.deep.equal({ total: 7, complete: 1, failed: 1, paused: 1, progressing: 4 });
  });

  it('reads as a sentence, naming paused and failed ones only when there are some', () => {
    expect(statusLine({ total: 0, complete: 0, failed: 0, paused: 0, progressing: 0 })).to.equal(
      'pacer: 0 Deployments: 0 complete, 0 progressing',
    );
    expect(statusLine({ total: 1, complete: 1, failed: 0, paused: 0, progressing: 0 })).to.equal(
      'pacer: 1 Deployment: 1 complete, 0 progressing',
    );
    expect(statusLine({ total: 6, complete: 3, failed: 1, paused: 1, progressing: 1 })).to.equal(
      'pacer: 6 Deployments: 3 complete, 1 progressing, 1 paused, 1 past its progress deadline',
    );
    expect(statusLine({ total: 2, complete: 0, failed: 2, paused: 0, progressing: 0 })).to.equal(
      'pacer: 2 Deployments: 0 complete, 0 progressing, 2 past their progress deadline',
    );
  });

  it('not a TTY: a plain line each time it changes, nothing when it does not', () => {
    let items = [deployment('a', { status: halfway })];
    const out = sink(false);
    const status = new LiveStatus(out, () => items, { inPlace: false, intervalMs: 60_000 });
    status.refresh();
    items = [deployment('a', { status: done })];
    status.refresh();
    status.refresh();
    status.stop();
    status.refresh();
    expect(out.text).to.equal(
      'pacer: 1 Deployment: 0 complete, 1 progressing\npacer: 1 Deployment: 1 complete, 0 progressing\n',
    );
  });

  it('on a TTY: one line rewritten in place, ended with a newline on stop', () => {
    let items = [deployment('a', { status: halfway })];
    const out = sink(true);
    const status = new LiveStatus(out, () => items, { inPlace: true, intervalMs: 60_000 });
    items = [deployment('a', { status: done })];
    status.refresh();
    expect(status.current).to.equal('pacer: 1 Deployment: 1 complete, 0 progressing');
    status.stop();
    status.stop();
    expect(out.text).to.equal(
      '\r\x1b[2Kpacer: 1 Deployment: 0 complete, 1 progressing\r\x1b[2Kpacer: 1 Deployment: 1 complete, 0 progressing\n',
    );
  });

  it('a failed read keeps the last line', () => {
    let fail = false;
    const out = sink(false);
    const status = new LiveStatus(
      out,
      () => {
        if (fail) throw new Error('store stopped');
        return [];
      },
      { inPlace: false, intervalMs: 60_000 },
    );
    fail = true;
    status.refresh();
    status.stop();
    expect(out.text).to.equal('pacer: 0 Deployments: 0 complete, 0 progressing\n');
  });
});
