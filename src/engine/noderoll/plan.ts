// A node roll as a DC/OS SDK plan (docs/semantics/node-roll.md#the-roll-as-a-plan), from its
// spec and its checkpoint (status) alone: plan "node-roll", serial, of up to three phases.
//
//   scale-up    (Replace) one step, "scale-GROUP": PENDING before the scale-up is asked for,
//               STARTING while the new nodes are awaited, COMPLETE once the first node is taken
//               out (or the roll is done)
//   roll        a step per original node, in the roll's order (serial at one node at a time,
//               parallel beyond): Pending → PENDING, Draining → STARTING, Terminating,
//               Deregistered and Drained → STARTED, Done → COMPLETE; before the roll starts one step "nodes"
//               PENDING (the nodes are fixed when it starts)
//   rebalance   (Replace) a step per zone move once they are planned ("move-1", ...: PENDING, STARTING
//               while its node is launched, then its node's step as above); "zones" PENDING before
//               they are planned, COMPLETE when none was needed
// A step the roll paused on (a wait that timed out) is ERROR with the pause's message; paused by an
// operator (spec.paused), the plan is interrupted (the SDK shows WAITING), which is what a pause is.

import type { NodeRollSpec, NodeRollStatus, NodeStep } from '../../api/noderoll.ts';
import { buildPhase } from '../dcos/strategy.ts';
import { buildPlan } from '../dcos/tree.ts';
import type { Phase, Plan, Step, StepStatus } from '../dcos/types.ts';

export const NODE_ROLL_PLAN = 'node-roll';

const STEP_STATUS: Record<NodeStep, StepStatus> = {
  Pending: 'PENDING',
  Draining: 'STARTING',
  Terminating: 'STARTED',
  Deregistered: 'STARTED',
  Drained: 'STARTED',
  Done: 'COMPLETE',
};

/** The roll's plan. */
export function rollPlan(spec: NodeRollSpec, status: NodeRollStatus | undefined): Plan {
  const st = status ?? {};
  const replace = (spec.mode ?? 'Replace') === 'Replace';
  const byNode = new Map((st.nodes ?? []).map((n) => [n.name, n]));
  const pausedOn = st.paused?.node;
  const step = (name: string, status: StepStatus, error?: string): Step => ({
    name,
    status: error ? 'ERROR' : status,
    ...(error ? { errors: [error] } : {}),
  });
  const nodeStep = (stepName: string, node: string): Step =>
    step(
      stepName,
      st.done ? 'COMPLETE' : STEP_STATUS[byNode.get(node)?.step ?? 'Pending'],
      pausedOn === node ? st.paused!.message : undefined,
    );
  const phases: Phase[] = [];
  if (replace) {
    const started = (st.nodes ?? []).some((n) => n.step !== 'Pending') || st.done === true;
    const status: StepStatus = started ? 'COMPLETE' : st.scaledUpTo !== undefined ? 'STARTING' : 'PENDING';
    const waitedOn = st.paused?.wait === 'scaleUp' && !st.zoneMoves ? st.paused.message : undefined;
    phases.push(buildPhase('scale-up', 'serial', [step(`scale-${spec.nodeGroup ?? ''}`, status, waitedOn)]));
  }
  const original = st.originalNodes ?? [];
  const skipped = new Set(st.skipped ?? []);
  const order = [...original].sort((a, b) => Number(skipped.has(a)) - Number(skipped.has(b)));
  // Before it starts, the nodes are not known yet (the selector's, when it starts): one step stands for them.
  const rollSteps = st.originalNodes ? order.map((n) => nodeStep(n, n)) : [step('nodes', 'PENDING')];
  phases.push(buildPhase('roll', (spec.nodesAtATime ?? 1) > 1 ? 'parallel' : 'serial', rollSteps));
  if (replace) {
    const zm = st.zoneMoves;
    let steps: Step[];
    if (!zm) steps = [step('zones', st.done ? 'COMPLETE' : 'PENDING')];
    else if (zm.planned === 0) steps = [step('zones', 'COMPLETE')];
    else {
      steps = Array.from({ length: zm.planned }, (_, i) => {
        const name = `move-${i + 1}`;
        const node = zm.moved[i];
        if (node !== undefined) return nodeStep(name, node);
        if (i === zm.moved.length && zm.launch)
          return step(name, 'STARTING', st.paused?.wait === 'scaleUp' ? st.paused.message : undefined);
        return step(name, st.done ? 'COMPLETE' : 'PENDING');
      });
    }
    phases.push(buildPhase('rebalance', 'serial', steps));
  }
  return buildPlan(NODE_ROLL_PLAN, 'serial', phases, { interrupted: spec.paused === true && !st.done });
}
