// Bulk promotion: the Deployments whose rollout waits at a canary step (Progressing reason
// PlanWaiting), chosen on the page and released together. The server releases them one after the
// other in dependency order (what a Deployment depends on first), each the continue of its phase of
// its service's deploy plan, and answers each one's result in that order: a refusal is shown on its
// own line, and a canary that depends on one not released is not tried.

import { useState } from 'preact/hooks';
import type { ActionResult, PromotionResult } from '../src/dashboard/api.ts';
import { promote } from './api.ts';
import { deploymentHref } from './home.tsx';
import { waitingCanaries } from './canary.ts';
import { keyOf } from './state.ts';
import type { Model } from './state.ts';

export function CanariesPage({ model }: { model: Model }) {
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<((PromotionResult | ActionResult) & { status: number }) | undefined>(undefined);
  const canaries = waitingCanaries(model);
  const selected = canaries.filter((d) => chosen.has(keyOf(d)));
  const toggle = (k: string) =>
    setChosen((c) => {
      const next = new Set(c);
      if (next.has(k)) next.delete(k);
      else next.add(k);
      return next;
    });
  const release = async () => {
    setAsking(false);
    setBusy(true);
    setAnswer(await promote({ items: selected.map((d) => ({ namespace: d.namespace, name: d.name })) }));
    setChosen(new Set());
    setBusy(false);
  };
  return (
    <main>
      <h1>Canaries</h1>
      <p class="muted">
        Rollouts waiting at a canary step. Those chosen are released together, in dependency order: each one's next
        canary step, as <code>kubectl pacer plan continue</code> on its phase.
      </p>
      {canaries.length === 0 ? (
        <p data-canaries-none="">No rollout waits at a canary step.</p>
      ) : (
        <table class="canaries">
          <thead>
            <tr>
              <th />
              <th>name</th>
              <th>namespace</th>
              <th>ready</th>
              <th>waiting</th>
            </tr>
          </thead>
          <tbody>
            {canaries.map((d) => (
              <tr key={keyOf(d)} data-name={d.name} data-namespace={d.namespace}>
                <td>
                  <input
                    type="checkbox"
                    name="canary"
                    value={keyOf(d)}
                    aria-label={`release ${keyOf(d)}`}
                    checked={chosen.has(keyOf(d))}
                    disabled={model.config.readOnly}
                    onChange={() => toggle(keyOf(d))}
                  />
                </td>
                <td>
                  <a href={deploymentHref(d)}>{d.name}</a>
                </td>
                <td>{d.namespace}</td>
                <td>
                  {d.ready}/{d.desired}
                </td>
                <td class="muted">{d.stateMessage.replace(/^PlanWaiting: /, '')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {model.config.readOnly ? null : (
        <p>
          <button
            type="button"
            class="primary"
            data-action="promote"
            disabled={busy || selected.length === 0}
            onClick={() => setAsking(true)}
          >
            Release {selected.length} in dependency order
          </button>
        </p>
      )}
      {answer ? <PromotionAnswer a={answer} /> : null}
      {asking ? (
        <div class="backdrop">
          <div class="dialog" role="dialog" aria-modal="true" aria-labelledby="promote-question">
            <p id="promote-question">
              Release the next canary step of {selected.map((d) => keyOf(d)).join(', ')}, in dependency order?
            </p>
            <div class="buttons">
              <button type="button" class="primary" data-confirm="yes" onClick={release}>
                Release
              </button>
              <button type="button" data-confirm="no" onClick={() => setAsking(false)}>
                Cancel
              </button>
            </div>
          </div>
        </div>
      ) : null}
    </main>
  );
}

function PromotionAnswer({ a }: { a: (PromotionResult | ActionResult) & { status: number } }) {
  if (!('items' in a))
    return (
      <div class="notice error" role="alert" data-result={a.status}>
        <strong class="status">{a.status > 0 ? `${a.status} ` : ''}</strong>
        <span class="message">{a.message}</span>
      </div>
    );
  return (
    <ol class={a.ok ? 'notice ok' : 'notice error'} data-promotion={a.ok ? 'ok' : 'partial'}>
      {a.items.map((r) => (
        <li
          key={`${r.namespace}/${r.name}`}
          data-item={`${r.namespace}/${r.name}`}
          data-result={r.ok ? 'ok' : r.status}
        >
          <strong>
            {r.namespace}/{r.name}
          </strong>{' '}
          <span class="muted">(level {r.level ?? 'on a cycle'})</span>:{' '}
          {r.ok ? null : `${r.status > 0 ? r.status : 'not tried'} `}
          <span class="message">{r.message}</span>
          {(r.warnings ?? []).map((w) => (
            <div key={w} class="warning">
              {w}
            </div>
          ))}
        </li>
      ))}
    </ol>
  );
}
