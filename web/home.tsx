// Home: every Deployment of the namespaces served, with a name filter, a state filter and the
// counts by state (a count is also a filter).

import type { DashboardState, DeploymentView } from '../src/dashboard/api.ts';
import { STATES, STATE_LABELS, counts, rows } from './state.ts';
import type { Filter, Model } from './state.ts';

export function deploymentHref(d: { namespace: string; name: string }): string {
  return `#/deployments/${encodeURIComponent(d.namespace)}/${encodeURIComponent(d.name)}`;
}

export function plansHref(d: { namespace: string; name: string }): string {
  return `#/plans/${encodeURIComponent(d.namespace)}/${encodeURIComponent(d.name)}`;
}

export function StateBadge({ state, title }: { state: DashboardState; title?: string }) {
  return (
    <span class={`badge state-${state}`} title={title || undefined}>
      {STATE_LABELS[state]}
    </span>
  );
}

function Row({ d }: { d: DeploymentView }) {
  return (
    <tr data-name={d.name} data-namespace={d.namespace} data-state={d.state}>
      <td>
        <a href={deploymentHref(d)}>{d.name}</a>
      </td>
      <td>{d.namespace}</td>
      <td>{d.strategy}</td>
      <td class="num">
        {d.ready}/{d.desired}
      </td>
      <td class="num">{d.updated}</td>
      <td class="num">{d.available}</td>
      <td class="num">{d.revision ?? '—'}</td>
      <td>
        <StateBadge state={d.state} title={d.stateMessage} />
      </td>
    </tr>
  );
}

export function Home({ model, filter, setFilter }: { model: Model; filter: Filter; setFilter: (f: Filter) => void }) {
  const n = counts(model);
  const shown = rows(model, filter);
  return (
    <main>
      <h1>Deployments</h1>
      <ul class="counts" aria-label="Deployments by state">
        {STATES.map((s) => (
          <li key={s}>
            <button
              type="button"
              class={`count state-${s}${filter.state === s ? ' selected' : ''}`}
              data-count={s}
              aria-pressed={filter.state === s}
              onClick={() => setFilter({ ...filter, state: filter.state === s ? '' : s })}
            >
              <span class="label">{STATE_LABELS[s]}</span> <span class="n">{n[s]}</span>
            </button>
          </li>
        ))}
      </ul>
      <div class="filters">
        <label>
          Name{' '}
          <input
            type="search"
            name="name"
            placeholder="part of a name"
            value={filter.name}
            onInput={(e) => setFilter({ ...filter, name: (e.currentTarget as HTMLInputElement).value })}
          />
        </label>
        <label>
          State{' '}
          <select
            name="state"
            value={filter.state}
            onChange={(e) =>
              setFilter({ ...filter, state: (e.currentTarget as HTMLSelectElement).value as DashboardState | '' })
            }
          >
            <option value="">every state</option>
            {STATES.map((s) => (
              <option key={s} value={s}>
                {STATE_LABELS[s]}
              </option>
            ))}
          </select>
        </label>
        <span class="shown">
          {shown.length} of {model.deployments.size}
        </span>
      </div>
      <table class="deployments">
        <thead>
          <tr>
            <th>Name</th>
            <th>Namespace</th>
            <th>Strategy</th>
            <th>Ready</th>
            <th>Updated</th>
            <th>Available</th>
            <th>Revision</th>
            <th>State</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((d) => (
            <Row key={`${d.namespace}/${d.name}`} d={d} />
          ))}
        </tbody>
      </table>
      {shown.length === 0 ? (
        <p class="empty">
          {model.deployments.size === 0 ? 'No Deployments in the namespaces served.' : 'No Deployment matches.'}
        </p>
      ) : null}
    </main>
  );
}
