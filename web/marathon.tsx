// Marathon's active deployments (GET /v2/deployments' view, derived by the server from its cache as
// `kubectl pacer deployments` derives it): each one's apps and steps, the current step marked, and
// its cancel, with a rollback (Marathon's DELETE /v2/deployments/ID) or without (?force=true: every
// app paused where it stands), each confirmed first: `kubectl pacer deployment cancel ID [--force]`
// on the server. The list is asked for again whenever the stream changes a Deployment.

import { useEffect, useState } from 'preact/hooks';
import type { MarathonDeploymentView } from '../src/dashboard/api.ts';
import { useOperations } from './actions.tsx';
import type { Asked } from './actions.tsx';
import { fetchMarathon } from './api.ts';
import type { Model } from './state.ts';

/** The app id `/NAMESPACE/NAME` as the Deployment page's link. */
function appHref(app: string): string {
  const [, ns, name] = app.split('/');
  return `#/deployments/${encodeURIComponent(ns ?? '')}/${encodeURIComponent(name ?? '')}`;
}

function MarathonDeployment({
  p,
  readOnly,
  ask,
  busy,
}: {
  p: MarathonDeploymentView;
  readOnly: boolean;
  ask: (a: Asked) => void;
  busy: boolean;
}) {
  const apps = p.affectedApps.join(', ');
  return (
    <section class="marathon" data-marathon={p.id} data-apps={p.affectedApps.join(',')}>
      <h2>
        <code>{p.id}</code>{' '}
        <span class="badge status" data-field="step">
          step {p.currentStep} of {p.totalSteps}
        </span>
        {readOnly ? null : (
          <span class="ops">
            <button
              type="button"
              data-action="cancel"
              disabled={busy}
              onClick={() =>
                ask({
                  op: { kind: 'marathon', id: p.id, action: 'cancel', force: false },
                  question: `Cancel deployment ${p.id} and roll back ${apps}? Each app goes back to the revision it had before.`,
                  yes: 'Cancel and roll back',
                })
              }
            >
              Cancel (roll back)
            </button>
            <button
              type="button"
              data-action="cancel-force"
              disabled={busy}
              onClick={() =>
                ask({
                  op: { kind: 'marathon', id: p.id, action: 'cancel', force: true },
                  question: `Stop deployment ${p.id} without a rollback (--force)? ${apps} are paused where they stand.`,
                  yes: 'Stop it',
                })
              }
            >
              Stop (no rollback)
            </button>
          </span>
        )}
      </h2>
      <p class="muted">
        version {p.version}; apps: {apps}
      </p>
      <ol class="marathon-steps">
        {p.steps.map((s, i) => {
          const n = i + 1;
          const state = n < p.currentStep ? 'done' : n === p.currentStep ? 'current' : 'next';
          return (
            <li key={n} data-step={n} data-state={state} class={`step-${state}`}>
              {s.actions.map((a) => (
                <span key={`${a.action} ${a.app}`} class="marathon-action" data-action-name={a.action}>
                  {a.action} <a href={appHref(a.app)}>{a.app}</a>
                </span>
              ))}
              {state === 'current' ? <span class="muted"> (current)</span> : null}
            </li>
          );
        })}
      </ol>
    </section>
  );
}

export function MarathonPage({ model }: { model: Model }) {
  const [plans, setPlans] = useState<MarathonDeploymentView[] | { error: string } | undefined>(undefined);
  const { ask, busy, view } = useOperations();
  useEffect(() => {
    let gone = false;
    const t = window.setTimeout(async () => {
      const got = await fetchMarathon();
      if (!gone) setPlans(got);
    }, 250);
    return () => {
      gone = true;
      window.clearTimeout(t);
    };
  }, [model.deployments]);
  return (
    <main>
      <h1>Marathon deployments</h1>
      <p class="muted">
        The changes under way over Deployments joined by their dependencies, step by step in dependency order (as{' '}
        <code>kubectl pacer deployments</code> lists them).
      </p>
      {view}
      {plans === undefined ? <p class="loading">Loading…</p> : null}
      {plans && 'error' in plans ? (
        <div class="notice error" role="alert" data-marathon-error="">
          {plans.error}
        </div>
      ) : null}
      {Array.isArray(plans) && plans.length === 0 ? <p data-marathon-none="">No active deployments.</p> : null}
      {Array.isArray(plans)
        ? plans.map((p) => (
            <MarathonDeployment key={p.id} p={p} readOnly={model.config.readOnly} ask={ask} busy={busy} />
          ))
        : null}
    </main>
  );
}
