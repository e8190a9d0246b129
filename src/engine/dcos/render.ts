// A plan as people and programs read it: the tree the DC/OS SDK's CLI draws, and the JSON its plans
// API returns (no name or id on the plan itself; each phase and step with an id, a step with a
// message). Element ids are stable: derived from the service, plan, phase and step names, so the
// same element keeps its id across controller restarts (the SDK's are random UUIDs per run).

import { generatedUid } from '../kubernetes/newreplicaset.ts';
import type { PlanView } from './tree.ts';

/** The tree as the SDK's CLI prints it. */
export function planTree(v: PlanView): string[] {
  const lines = [`${v.name} (${v.strategy} strategy) (${v.status})`];
  v.phases.forEach((p, i) => {
    const lastPhase = i === v.phases.length - 1;
    lines.push(`${lastPhase ? '└─' : '├─'} ${p.name} (${p.strategy} strategy) (${p.status})`);
    p.steps.forEach((s, j) => {
      const forced = s.forced ? ' (forced)' : '';
      lines.push(
        `${lastPhase ? '   ' : '│  '}${j === p.steps.length - 1 ? '└─' : '├─'} ${s.name} (${s.status})${forced}`,
      );
    });
  });
  return lines;
}

export interface StepJson {
  id: string;
  status: string;
  name: string;
  message: string;
}
export interface PhaseJson {
  id: string;
  name: string;
  steps: StepJson[];
  strategy: string;
  status: string;
}
export interface PlanJson {
  phases: PhaseJson[];
  errors: string[];
  status: string;
  strategy: string;
}

/** The SDK's plan JSON; `scope` (e.g. namespace/service) makes the ids unique across services. */
export function planJson(v: PlanView, scope: string): PlanJson {
  return {
    phases: v.phases.map((p) => ({
      id: generatedUid('plan', scope, v.name, p.name),
      name: p.name,
      steps: p.steps.map((s) => {
        const id = generatedUid('plan', scope, v.name, p.name, s.name);
        const display = s.status !== s.stored ? ` (display:${s.status})` : '';
        return {
          id,
          status: s.status,
          name: s.name,
          message: `DeploymentStep: '${s.name} [${id}]' has status: '${s.stored}'${display}${s.forced ? ', forced complete' : ''}`,
        };
      }),
      strategy: p.strategy,
      status: p.status,
    })),
    errors: [...v.errors],
    status: v.status,
    strategy: v.strategy,
  };
}
