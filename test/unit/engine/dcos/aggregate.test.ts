// The aggregate status of a plan or phase (PlanUtils.getAggregateStatus in the DC/OS SDK,
// https://github.com/mesosphere/dcos-commons/blob/master/sdk/scheduler/src/main/java/com/mesosphere/sdk/scheduler/plan/PlanUtils.java,
// and its PlanUtilsTest): the first of fifteen rules wins. Rows: children, candidates, errors,
// interrupted → status (rule).

import { expect } from 'chai';
import { aggregate, isRunning, stepDisplayStatus, stepStatusFromTasks } from '../../../../src/engine/dcos/status.ts';
import type { Status, StepStatus } from '../../../../src/engine/dcos/types.ts';

describe('plans: aggregate status', () => {
  const rows: Array<[string, Status[], Status[], { errors?: string[]; interrupted?: boolean }, Status, number]> = [
    ['errors on the parent → ERROR', ['COMPLETE'], [], { errors: ['bad config'] }, 'ERROR', 1],
    ['a child in ERROR → ERROR', ['ERROR', 'PENDING'], ['PENDING'], {}, 'ERROR', 1],
    ['no children → COMPLETE', [], [], {}, 'COMPLETE', 2],
    [
      'all children COMPLETE → COMPLETE, even when interrupted',
      ['COMPLETE', 'COMPLETE'],
      [],
      { interrupted: true },
      'COMPLETE',
      2,
    ],
    ['interrupted with a child STARTING → WAITING', ['STARTING', 'PENDING'], [], { interrupted: true }, 'WAITING', 3],
    ['every child and candidate DELAYED → DELAYED', ['DELAYED', 'DELAYED'], ['DELAYED'], {}, 'DELAYED', 4],
    ['a child PREPARED (not a candidate) → IN_PROGRESS', ['PREPARED', 'PENDING'], ['PENDING'], {}, 'IN_PROGRESS', 5],
    ['a candidate WAITING → WAITING', ['WAITING', 'PENDING'], ['WAITING'], {}, 'WAITING', 6],
    ['a candidate IN_PROGRESS → IN_PROGRESS', ['IN_PROGRESS', 'PENDING'], ['IN_PROGRESS'], {}, 'IN_PROGRESS', 7],
    ['a child COMPLETE, a candidate PENDING → IN_PROGRESS', ['COMPLETE', 'PENDING'], ['PENDING'], {}, 'IN_PROGRESS', 8],
    [
      'a child COMPLETE, a candidate STARTING → IN_PROGRESS',
      ['COMPLETE', 'STARTING'],
      ['STARTING'],
      {},
      'IN_PROGRESS',
      9,
    ],
    [
      'a child COMPLETE, a candidate STARTED → IN_PROGRESS',
      ['COMPLETE', 'STARTED'],
      ['STARTED'],
      {},
      'IN_PROGRESS',
      10,
    ],
    [
      'parallel [STARTING, PENDING]: PENDING is a candidate and nothing is COMPLETE → PENDING',
      ['STARTING', 'PENDING'],
      ['STARTING', 'PENDING'],
      {},
      'PENDING',
      11,
    ],
    ['a child WAITING, no candidate → WAITING', ['WAITING', 'PENDING'], [], {}, 'WAITING', 12],
    [
      'serial: the running step STARTING, the rest PENDING → STARTING',
      ['STARTING', 'PENDING', 'PENDING'],
      ['STARTING'],
      {},
      'STARTING',
      13,
    ],
    ['serial: the running step STARTED → STARTED', ['STARTED', 'PENDING'], ['STARTED'], {}, 'STARTED', 14],
    [
      'back-off: the only candidate DELAYED beside PENDING steps falls through → ERROR',
      ['DELAYED', 'PENDING'],
      ['DELAYED'],
      {},
      'ERROR',
      15,
    ],
  ];
  for (const [name, children, candidates, o, status, rule] of rows) {
    it(`${name} (rule ${rule})`, () => {
      expect(
        aggregate({ children, candidates, errors: o.errors ?? [], interrupted: o.interrupted ?? false }),
      ).to.deep.equal({ status, rule });
    });
  }
});

describe("plans: a step's status", () => {
  const rows: Array<
    [string, StepStatus[], { errors?: boolean; prepared?: boolean; current?: StepStatus }, StepStatus]
  > = [
    ['errors → ERROR', ['COMPLETE'], { errors: true }, 'ERROR'],
    ['no task, offers not evaluated → PENDING', [], {}, 'PENDING'],
    ['no task, offers being evaluated → PREPARED', [], { prepared: true }, 'PREPARED'],
    ['a task ERROR beside a DELAYED one → ERROR', ['DELAYED', 'ERROR'], {}, 'ERROR'],
    ['a task DELAYED beside a STARTING one → DELAYED', ['STARTING', 'DELAYED'], {}, 'DELAYED'],
    ['one task STARTING, one COMPLETE → STARTING', ['COMPLETE', 'STARTING'], {}, 'STARTING'],
    ['one task STARTED, one COMPLETE → STARTED', ['STARTED', 'COMPLETE'], {}, 'STARTED'],
    ['every task COMPLETE → COMPLETE', ['COMPLETE', 'COMPLETE'], {}, 'COMPLETE'],
  ];
  for (const [name, tasks, o, want] of rows) it(name, () => expect(stepStatusFromTasks(tasks, o)).to.equal(want));

  it('an interrupted step shows WAITING while PENDING or PREPARED, its stored status once launched', () => {
    expect(stepDisplayStatus({ name: 's', status: 'PENDING', interrupted: true })).to.equal('WAITING');
    expect(stepDisplayStatus({ name: 's', status: 'PREPARED', interrupted: true })).to.equal('WAITING');
    expect(stepDisplayStatus({ name: 's', status: 'STARTING', interrupted: true })).to.equal('STARTING');
    expect(stepDisplayStatus({ name: 's', status: 'PENDING' })).to.equal('PENDING');
  });

  it('isRunning: PREPARED, STARTING, STARTED and IN_PROGRESS', () => {
    const all: Status[] = [
      'ERROR',
      'WAITING',
      'PENDING',
      'PREPARED',
      'STARTING',
      'STARTED',
      'COMPLETE',
      'IN_PROGRESS',
      'DELAYED',
    ];
    expect(all.filter(isRunning)).to.deep.equal(['PREPARED', 'STARTING', 'STARTED', 'IN_PROGRESS']);
  });
});
