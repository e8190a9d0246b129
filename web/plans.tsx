// A service's plans (deploy, recovery, the custom Plans naming its Deployments): phases and steps
// with their statuses, as `kubectl pacer plan show` draws them, and the operator's commands:
// continue and interrupt (the plan or a phase), restart (a phase, or a step), force-complete (a
// step), each confirmed first. The plans are built by the server from its caches; the page asks
// for them again whenever the stream brings a change of this namespace.

import { useEffect, useState } from 'preact/hooks';
import type { PlanAction, PlanView, ServicePlansView } from '../src/dashboard/api.ts';
import { useOperations } from './actions.tsx';
import type { Asked } from './actions.tsx';
import { fetchPlans } from './api.ts';
import { deploymentHref } from './home.tsx';
import type { Model } from './state.ts';

const WORDS: Record<PlanAction, string> = {
  continue: 'Continue',
  interrupt: 'Interrupt',
  forceComplete: 'Force complete',
  restart: 'Restart',
  start: 'Start',
  stop: 'Stop',
};

function statusClass(status: string): string {
  return `badge status status-${status.toLowerCase().replace(/[^a-z_]/g, '')}`;
}

function Plan({
  p,
  ns,
  service,
  readOnly,
  ask,
  busy,
}: {
  p: PlanView;
  ns: string;
  service: string;
  readOnly: boolean;
  ask: (a: Asked) => void;
  busy: boolean;
}) {
  const recovery = p.name === 'recovery';
  const button = (action: PlanAction, phase?: string, step?: string) => {
    const what =
      step !== undefined ? `step ${step} of phase ${phase}` : phase !== undefined ? `phase ${phase}` : 'the plan';
    return (
      <button
        type="button"
        class="small"
        data-action={action}
        disabled={busy}
        onClick={() =>
          ask({
            op: {
              kind: 'plan',
              namespace: ns,
              service,
              plan: p.name,
              action,
              ...(phase !== undefined ? { phase } : {}),
              ...(step !== undefined ? { step } : {}),
            },
            question: `${WORDS[action]} ${what} of plan ${p.name} (service ${ns}/${service})?`,
            yes: WORDS[action],
          })
        }
      >
        {WORDS[action]}
      </button>
    );
  };
  return (
    <section class="plan" data-plan={p.name} data-status={p.status}>
      <h2>
        {p.name} <span class={statusClass(p.status)}>{p.status}</span>
        <span class="muted">{p.strategy}</span>
        {readOnly || recovery ? null : (
          <span class="ops">
            {button('continue')}
            {button('interrupt')}
            <button
              type="button"
              class="small"
              data-action="start"
              disabled={busy}
              onClick={() =>
                ask({
                  op: { kind: 'plan', namespace: ns, service, plan: p.name, action: 'start' },
                  question: `Start plan ${p.name} (service ${ns}/${service})? Parameters become environment variables of every pod template of the service (a new rollout); a finished plan runs again.`,
                  yes: 'Start',
                  input: 'Parameters (KEY=VALUE, separated by spaces)',
                })
              }
            >
              Start…
            </button>
            <button
              type="button"
              class="small"
              data-action="stop"
              disabled={busy}
              onClick={() =>
                ask({
                  op: { kind: 'plan', namespace: ns, service, plan: p.name, action: 'stop' },
                  question: `Stop plan ${p.name} (service ${ns}/${service})? It is interrupted and every step starts again (a rollout restart), held until start or continue.`,
                  yes: 'Stop',
                })
              }
            >
              Stop
            </button>
          </span>
        )}
      </h2>
      {p.errors.length > 0 ? (
        <ul class="notice error">
          {p.errors.map((e) => (
            <li key={e}>{e}</li>
          ))}
        </ul>
      ) : null}
      {p.phases.map((ph) => (
        <div class="phase" key={ph.name} data-phase={ph.name} data-status={ph.status}>
          <h3>
            {ph.name} <span class={statusClass(ph.status)}>{ph.status}</span>
            <span class="muted">{ph.strategy}</span>
            {readOnly || recovery ? null : (
              <span class="ops">
                {button('continue', ph.name)}
                {button('interrupt', ph.name)}
                {button('restart', ph.name)}
              </span>
            )}
          </h3>
          <table class="steps">
            <tbody>
              {ph.steps.map((st) => (
                <tr key={st.name} data-step={st.name} data-status={st.status} title={st.message}>
                  <td>{st.name}</td>
                  <td>
                    <span class={statusClass(st.status)}>{st.status}</span>
                  </td>
                  <td class="step-ops">
                    <span class="ops">
                      {readOnly ? null : (
                        <>
                          {recovery ? null : button('forceComplete', ph.name, st.name)}
                          {button('restart', ph.name, st.name)}
                        </>
                      )}
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
    </section>
  );
}

export function PlansPage({ model, namespace, name }: { model: Model; namespace: string; name: string }) {
  const [plans, setPlans] = useState<ServicePlansView | { error: string } | undefined>(undefined);
  const { ask, busy, view } = useOperations();
  // Asked again (a quarter of a second after the last one) whenever the stream changes what the plans are built from.
  useEffect(() => {
    let gone = false;
    const t = window.setTimeout(async () => {
      const got = await fetchPlans(namespace, name);
      if (!gone) setPlans(got);
    }, 250);
    return () => {
      gone = true;
      window.clearTimeout(t);
    };
  }, [namespace, name, model.deployments, model.replicaSets, model.pods, model.planResources]);
  return (
    <main>
      <p class="back">
        <a href={deploymentHref({ namespace, name })}>← {name}</a>
      </p>
      <h1>Plans of {name}</h1>
      {view}
      {plans === undefined ? <p class="loading">Loading…</p> : null}
      {plans && 'error' in plans ? (
        <div class="notice error" role="alert" data-plans-error="">
          {plans.error}
        </div>
      ) : null}
      {plans && 'plans' in plans ? (
        <>
          <p class="muted" data-field="members">
            Service {namespace}/{name}: {plans.members.join(', ')}
          </p>
          {plans.plans.map((p) => (
            <Plan
              key={p.name}
              p={p}
              ns={namespace}
              service={name}
              readOnly={model.config.readOnly}
              ask={ask}
              busy={busy}
            />
          ))}
        </>
      ) : null}
    </main>
  );
}
