// A Deployment: its state, counts, budget and conditions, its ReplicaSets by revision with their
// pods (and a pod's log), the template diff between any two revisions, its recent Events, and pause,
// resume, restart, set image and undo, each asked for again in a confirmation before it is sent (an
// undo's shows what it would change in the pod template).

import { useState } from 'preact/hooks';
import type { Action, ActionRequest, BudgetView, DeploymentView, RevisionDiffView } from '../src/dashboard/api.ts';
import { Result } from './actions.tsx';
import type { Outcome } from './actions.tsx';
import { act, fetchDiff } from './api.ts';
import { Conditions } from './conditions.tsx';
import { StateBadge, plansHref } from './home.tsx';
import { analysisRunsHref } from './analysis.tsx';
import { PodLog } from './logs.tsx';
import { EVENTS_SHOWN, age, eventsOf, revisions } from './state.ts';
import type { Model } from './state.ts';

interface Pending {
  action: Action;
  body: ActionRequest;
  question: string;
  /** An undo's: what it would change, while it is being fetched (undefined), or why it could not be. */
  diff?: RevisionDiffView | { error: string };
}

const MARK = { same: ' ', remove: '-', add: '+' } as const;

/**
 * Two pod templates line by line: the template now (-) against a revision's (+), what an undo
 * would change; or one revision's (-) against another's (+).
 */
function Diff({ diff }: { diff: Pending['diff'] }) {
  if (diff === undefined) return <p class="diff-note">Comparing the templates…</p>;
  if ('error' in diff)
    return (
      <p class="diff-note error" data-diff="error">
        The templates could not be compared: {diff.error}
      </p>
    );
  if (!diff.changed)
    return (
      <p class="diff-note" data-diff="none">
        {diff.against === null
          ? `Revision ${diff.revision}'s pod template is the current one: nothing would change.`
          : `Revisions ${diff.against} and ${diff.revision} have the same pod template.`}
      </p>
    );
  return (
    <>
      <p class="diff-note">
        {diff.against === null
          ? `The pod template now (-) and revision ${diff.revision}'s (+), ${diff.replicaSet}:`
          : `Revision ${diff.against}'s pod template (-, ${diff.againstReplicaSet}) and revision ${diff.revision}'s (+, ${diff.replicaSet}):`}
      </p>
      <pre class="diff" data-diff={diff.revision} data-against={diff.against ?? 'now'}>
        {diff.lines.map((l, i) => (
          <span key={i} class={`diff-${l.op}`}>
            {MARK[l.op]}
            {l.text}
            {'\n'}
          </span>
        ))}
      </pre>
    </>
  );
}

/** The confirmation's button for each action. */
const YES: Readonly<Record<Action, string>> = {
  undo: 'Roll back',
  pause: 'Pause',
  resume: 'Resume',
  restart: 'Restart',
  setImage: 'Set image',
};

/** The budget in words: the most pods at once and the fewest available, each with the setting it comes from. */
function budgetWords(b: BudgetView, desired: number): string {
  if (!b.gradual) return `none: every old pod stops before a new one starts (${desired} desired)`;
  return `at most ${b.maxPods} pods at once (${desired} + ${b.maxSurge}), at least ${b.minAvailable} available (${desired} - ${b.maxUnavailable}); ${b.settings}`;
}

/** The template diff between any two revisions of the Deployment, chosen from its revisions. */
function Compare({ d, revisions: revs }: { d: DeploymentView; revisions: number[] }) {
  const oldest = revs[revs.length - 1];
  const newest = revs[0];
  const [from, setFrom] = useState<number | undefined>(undefined);
  const [to, setTo] = useState<number | undefined>(undefined);
  const [shown, setShown] = useState<RevisionDiffView | { error: string } | undefined>(undefined);
  const [asked, setAsked] = useState(false);
  if (revs.length < 2) return null;
  const a = from ?? oldest;
  const b = to ?? newest;
  const pick = (name: string, value: number, set: (n: number) => void) => (
    <select
      name={name}
      value={String(value)}
      onChange={(e) => set(Number((e.currentTarget as HTMLSelectElement).value))}
    >
      {revs.map((r) => (
        <option key={r} value={String(r)}>
          revision {r}
        </option>
      ))}
    </select>
  );
  return (
    <section class="compare">
      <h2>Compare revisions</h2>
      <p class="compare-pick">
        {pick('compare-from', a, setFrom)} (-) against {pick('compare-to', b, setTo)} (+){' '}
        <button
          type="button"
          data-action="compare"
          onClick={() => {
            setAsked(true);
            setShown(undefined);
            void fetchDiff(d.namespace, d.name, b, a).then(setShown);
          }}
        >
          Compare
        </button>
      </p>
      {asked ? <Diff diff={shown} /> : null}
    </section>
  );
}

function Confirm({ p, onYes, onNo }: { p: Pending; onYes: () => void; onNo: () => void }) {
  return (
    <div class="backdrop">
      <div class="dialog" role="dialog" aria-modal="true" aria-labelledby="confirm-question">
        <p id="confirm-question">{p.question}</p>
        {p.action === 'undo' ? <Diff diff={p.diff} /> : null}
        <div class="buttons">
          <button type="button" class="primary" data-confirm="yes" onClick={onYes}>
            {YES[p.action]}
          </button>
          <button type="button" data-confirm="no" onClick={onNo}>
            Cancel
          </button>
        </div>
      </div>
    </div>
  );
}

export function DeploymentPage({
  model,
  namespace,
  name,
  seen,
}: {
  model: Model;
  namespace: string;
  name: string;
  /** This Deployment was shown before (so its absence now means it was deleted). */
  seen: boolean;
}) {
  const [pending, setPending] = useState<Pending | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | undefined>(undefined);
  const [image, setImage] = useState('');
  const [container, setContainer] = useState<string | undefined>(undefined);
  const [logOf, setLogOf] = useState<string | undefined>(undefined);
  const d: DeploymentView | undefined = model.deployments.get(`${namespace}/${name}`);
  const back = (
    <p class="back">
      <a href="#/">← All Deployments</a>
    </p>
  );
  if (!d)
    return (
      <main>
        {back}
        <h1>{name}</h1>
        <div class="notice error" role="alert" data-gone={seen ? 'deleted' : 'missing'}>
          {seen
            ? `Deployment ${namespace}/${name} has been deleted.`
            : `There is no Deployment ${namespace}/${name} in the namespaces served.`}
        </div>
      </main>
    );
  const readOnly = model.config.readOnly;
  const now = Date.now();
  const tree = revisions(model, d);
  const ask = (p: Pending) => {
    setOutcome(undefined);
    setPending(p);
  };
  const run = async () => {
    if (!pending) return;
    const p = pending;
    setPending(undefined);
    setBusy(true);
    setOutcome(await act(d.namespace, d.name, p.action, p.body));
    setBusy(false);
  };
  return (
    <main>
      {back}
      <h1>
        {d.name} <StateBadge state={d.state} />
      </h1>
      <dl class="facts">
        <dt>Namespace</dt>
        <dd>{d.namespace}</dd>
        <dt>State</dt>
        <dd data-field="state">{d.stateMessage || '—'}</dd>
        <dt>Strategy</dt>
        <dd>{d.strategy}</dd>
        <dt>Replicas</dt>
        <dd data-field="replicas">
          {d.desired} desired, {d.updated} updated, {d.ready} ready, {d.available} available
        </dd>
        <dt>Revision</dt>
        <dd data-field="revision">{d.revision ?? '—'}</dd>
        <dt>Budget</dt>
        <dd data-field="budget">{budgetWords(d.budget, d.desired)}</dd>
        <dt>Images</dt>
        <dd>{d.images.join(', ')}</dd>
        <dt>Plans</dt>
        <dd>
          <a href={plansHref(d)} data-link-plans="">
            the service's plans
          </a>
        </dd>
        <dt>Analysis</dt>
        <dd>
          <a href={analysisRunsHref(d)} data-link-analysis="">
            its analysis runs
          </a>
        </dd>
      </dl>
      {readOnly ? (
        <p class="readonly">Read-only: the actions are off (--read-only).</p>
      ) : (
        <div class="actions">
          {d.paused ? (
            <button
              type="button"
              data-action="resume"
              disabled={busy}
              onClick={() =>
                ask({ action: 'resume', body: {}, question: `Resume the rollout of ${d.namespace}/${d.name}?` })
              }
            >
              Resume
            </button>
          ) : (
            <button
              type="button"
              data-action="pause"
              disabled={busy}
              onClick={() =>
                ask({
                  action: 'pause',
                  body: {},
                  question: `Pause the rollout of ${d.namespace}/${d.name}? Template changes will wait until it is resumed.`,
                })
              }
            >
              Pause
            </button>
          )}
          <button
            type="button"
            data-action="restart"
            disabled={busy}
            onClick={() =>
              ask({
                action: 'restart',
                body: {},
                question: `Restart ${d.namespace}/${d.name}? Every pod is replaced, as a rollout of a new revision.`,
              })
            }
          >
            Restart
          </button>
          <form
            class="set-image"
            onSubmit={(e) => {
              e.preventDefault();
              const c = container ?? d.containers[0] ?? '';
              ask({
                action: 'setImage',
                body: { container: c, image: image.trim() },
                question: `Set the image of container ${c} of ${d.namespace}/${d.name} to ${image.trim() || '(nothing)'}? A new revision rolls out.`,
              });
            }}
          >
            {d.containers.length > 1 ? (
              <select
                name="image-container"
                value={container ?? d.containers[0]}
                onChange={(e) => setContainer((e.currentTarget as HTMLSelectElement).value)}
              >
                {d.containers.map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
              </select>
            ) : (
              <span class="container-name">{d.containers[0] ?? ''}</span>
            )}
            <input
              type="text"
              name="image"
              placeholder="image, e.g. nginx:1.28"
              value={image}
              onInput={(e) => setImage((e.currentTarget as HTMLInputElement).value)}
            />
            <button type="submit" data-action="set-image" disabled={busy}>
              Set image…
            </button>
          </form>
        </div>
      )}
      {outcome ? <Result r={outcome} /> : null}
      {pending ? <Confirm p={pending} onYes={run} onNo={() => setPending(undefined)} /> : null}

      <h2>Revisions</h2>
      {tree.length === 0 ? <p class="empty">No ReplicaSet yet.</p> : null}
      {tree.map(({ replicaSet: rs, pods, current }) => (
        <section
          key={rs.name}
          class={current ? 'revision current' : 'revision'}
          data-revision={rs.revision ?? ''}
          data-replicaset={rs.name}
        >
          <h3>
            Revision {rs.revision ?? '?'} {current ? <span class="badge current">current</span> : null}
            <span class="rs">{rs.name}</span>
            {!current && !readOnly && rs.revision !== null ? (
              <button
                type="button"
                class="undo"
                data-action="undo"
                disabled={busy}
                onClick={() => {
                  const revision = rs.revision ?? 0;
                  const p: Pending = {
                    action: 'undo',
                    body: { toRevision: revision },
                    question: `Roll ${d.namespace}/${d.name} back to revision ${rs.revision} (${rs.images.join(', ')})? Its template comes back as a new revision.`,
                  };
                  ask(p);
                  // The comparison comes when the server answers (the same confirmation still open).
                  void fetchDiff(d.namespace, d.name, revision).then((diff) =>
                    setPending((now) => (now === p ? { ...p, diff } : now)),
                  );
                }}
              >
                Undo to revision {rs.revision}
              </button>
            ) : null}
          </h3>
          <p class="rsinfo">
            <span data-field="rs-counts">
              {rs.replicas}/{rs.desired} pods, {rs.ready} ready, {rs.available} available
            </span>
            {' · '}
            {rs.images.join(', ')}
            {rs.changeCause ? ` · ${rs.changeCause}` : ''}
            {' · '}
            {age(rs.createdAt, now)}
          </p>
          {pods.length > 0 ? (
            <table class="pods">
              <thead>
                <tr>
                  <th>Pod</th>
                  <th>Status</th>
                  <th>Ready</th>
                  <th>Restarts</th>
                  <th>Node</th>
                  <th>Age</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {pods.map((p) => (
                  <tr key={p.name} data-pod={p.name} data-healthy={p.healthy ? 'true' : 'false'}>
                    <td>{p.name}</td>
                    <td class={p.healthy ? 'healthy' : 'unhealthy'}>{p.status}</td>
                    <td class="num">
                      {p.readyContainers}/{p.containers}
                    </td>
                    <td class="num">{p.restarts}</td>
                    <td>{p.node}</td>
                    <td>{age(p.createdAt, now)}</td>
                    <td>
                      <button type="button" class="small" data-logs={p.name} onClick={() => setLogOf(p.name)}>
                        Log
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
        </section>
      ))}

      {logOf ? (
        <PodLog
          key={logOf}
          namespace={d.namespace}
          pod={logOf}
          containers={d.containers}
          onClose={() => setLogOf(undefined)}
        />
      ) : null}

      <Compare d={d} revisions={tree.map((n) => n.replicaSet.revision).filter((r): r is number => r !== null)} />

      <h2>Conditions</h2>
      <Conditions conditions={d.conditions} now={now} timeLabel="Updated" />

      <h2>Events</h2>
      <Events model={model} d={d} now={now} />
    </main>
  );
}

/** The recent Events of the Deployment, its ReplicaSets and pods, newest first, as `kubectl describe` lists them. */
function Events({ model, d, now }: { model: Model; d: DeploymentView; now: number }) {
  const { items, total } = eventsOf(model, d);
  const source = model.sources.get('/events');
  if (source?.problem)
    return (
      <p class="notice error" data-events="failing">
        The Events cannot be read (the dashboard keeps trying): {source.problem}
      </p>
    );
  if (items.length === 0)
    return (
      <p class="empty">
        {source && !source.synced ? 'Reading the Events…' : 'No Events (the API server keeps them for an hour).'}
      </p>
    );
  return (
    <>
      <table class="events">
        <thead>
          <tr>
            <th>Type</th>
            <th>Reason</th>
            <th>Object</th>
            <th>Count</th>
            <th>Last seen</th>
            <th>Message</th>
          </tr>
        </thead>
        <tbody>
          {items.map((e) => (
            <tr key={e.name} data-event={e.name} data-reason={e.reason} class={e.type === 'Warning' ? 'warning' : ''}>
              <td>{e.type}</td>
              <td>{e.reason}</td>
              <td>
                {e.objectKind.toLowerCase()}/{e.objectName}
              </td>
              <td class="num">{e.count}</td>
              <td>{age(e.lastSeen, now)}</td>
              <td>{e.message}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {total > items.length ? (
        <p class="more">
          The newest {EVENTS_SHOWN} of {total}.
        </p>
      ) : null}
    </>
  );
}
