// Home: every Deployment of the namespaces served, with filters (name, state, namespace, what
// needs attention), the counts by state (a count is also a filter), sortable columns and pages of
// PAGE_SIZE rows, so that a thousand Deployments do not make one long table to redraw.

import { useMemo, useState } from 'preact/hooks';
import type { DashboardState, DeploymentView } from '../src/dashboard/api.ts';
import { analysisRunsHref } from './analysis.tsx';
import { DEFAULT_SORT, STATES, STATE_LABELS, counts, namespaces, pageOf, rows } from './state.ts';
import type { Filter, Model, Sort, SortKey } from './state.ts';

/** The table's columns: the sort key, the header, and whether it holds numbers. */
const COLUMNS: ReadonlyArray<[SortKey, string, boolean]> = [
  ['name', 'Name', false],
  ['namespace', 'Namespace', false],
  ['strategy', 'Strategy', false],
  ['ready', 'Ready', true],
  ['updated', 'Updated', true],
  ['available', 'Available', true],
  ['revision', 'Revision', true],
  ['state', 'State', false],
];

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
        {d.state === 'analysis-failing' ? (
          <a href={analysisRunsHref(d)} data-link-analysis="">
            <StateBadge state={d.state} title={d.stateMessage} />
          </a>
        ) : (
          <StateBadge state={d.state} title={d.stateMessage} />
        )}
      </td>
    </tr>
  );
}

export function Home({ model, filter, setFilter }: { model: Model; filter: Filter; setFilter: (f: Filter) => void }) {
  const [sort, setSort] = useState<Sort>(DEFAULT_SORT);
  const [page, setPage] = useState(0);
  // Worked out again only when the Deployments change, not on every change the stream brings (the
  // Events, the pods and ReplicaSets other pages show): counts, rows and namespaces read the Deployments only.
  const deployments = model.deployments;
  const n = useMemo(() => counts(model), [deployments]);
  const shown = useMemo(() => rows(model, filter, sort), [deployments, filter, sort]);
  const served = useMemo(() => namespaces(model), [deployments]);
  const p = pageOf(shown, page);
  // A new filter starts again at the first page.
  const filterBy = (f: Filter) => {
    setPage(0);
    setFilter(f);
  };
  // A column's header sorts by it; again, the other way.
  const sortBy = (by: SortKey) =>
    setSort(sort.by === by ? { by, descending: !sort.descending } : { by, descending: false });
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
              onClick={() => filterBy({ ...filter, state: filter.state === s ? '' : s })}
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
            onInput={(e) => filterBy({ ...filter, name: (e.currentTarget as HTMLInputElement).value })}
          />
        </label>
        <label>
          State{' '}
          <select
            name="state"
            value={filter.state}
            onChange={(e) =>
              filterBy({ ...filter, state: (e.currentTarget as HTMLSelectElement).value as DashboardState | '' })
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
        <label>
          Namespace{' '}
          <select
            name="namespace"
            value={filter.namespace ?? ''}
            onChange={(e) => filterBy({ ...filter, namespace: (e.currentTarget as HTMLSelectElement).value })}
          >
            <option value="">every namespace</option>
            {served.map((ns) => (
              <option key={ns} value={ns}>
                {ns}
              </option>
            ))}
          </select>
        </label>
        <label title="a deadline missed, failing analysis, an invalid spec, or an operator awaited">
          <input
            type="checkbox"
            name="attention"
            checked={filter.attention ?? false}
            onChange={(e) => filterBy({ ...filter, attention: (e.currentTarget as HTMLInputElement).checked })}
          />{' '}
          needs attention
        </label>
        <span class="shown">
          {shown.length} of {model.deployments.size}
        </span>
      </div>
      <table class="deployments">
        <thead>
          <tr>
            {COLUMNS.map(([key, label, numeric]) => (
              <th
                key={key}
                class={numeric ? 'num' : undefined}
                aria-sort={sort.by === key ? (sort.descending ? 'descending' : 'ascending') : 'none'}
              >
                <button type="button" class="sort" data-sort={key} onClick={() => sortBy(key)}>
                  {label}
                  {sort.by === key ? (sort.descending ? ' ▼' : ' ▲') : ''}
                </button>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {p.items.map((d) => (
            <Row key={`${d.namespace}/${d.name}`} d={d} />
          ))}
        </tbody>
      </table>
      {p.pages > 1 ? (
        <nav class="pager" aria-label="pages">
          <button type="button" data-page="previous" disabled={p.page === 0} onClick={() => setPage(p.page - 1)}>
            previous
          </button>
          <span class="page">
            page {p.page + 1} of {p.pages}
          </span>
          <button type="button" data-page="next" disabled={p.page === p.pages - 1} onClick={() => setPage(p.page + 1)}>
            next
          </button>
        </nav>
      ) : null}
      {shown.length === 0 ? (
        <p class="empty">
          {model.deployments.size === 0 ? 'No Deployments in the namespaces served.' : 'No Deployment matches.'}
        </p>
      ) : null}
    </main>
  );
}
