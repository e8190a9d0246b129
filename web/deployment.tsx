// A Deployment: its state, counts and conditions, its ReplicaSets by revision with their pods, and
// pause, resume and undo, each asked for again in a confirmation before it is sent (an undo's shows
// what it would change in the pod template).

import { useState } from 'preact/hooks';
import type { Action, ActionRequest, DeploymentView, RevisionDiffView } from '../src/dashboard/api.ts';
import { Result } from './actions.tsx';
import type { Outcome } from './actions.tsx';
import { act, fetchDiff } from './api.ts';
import { Conditions } from './conditions.tsx';
import { StateBadge, plansHref } from './home.tsx';
import { analysisRunsHref } from './analysis.tsx';
import { age, revisions } from './state.ts';
import type { Model } from './state.ts';

interface Pending {
  action: Action;
  body: ActionRequest;
  question: string;
  /** An undo's: what it would change, while it is being fetched (undefined), or why it could not be. */
  diff?: RevisionDiffView | { error: string };
}

const MARK = { same: ' ', remove: '-', add: '+' } as const;

/** What an undo would change: the pod template now (-) against the revision's (+), line by line. */
function Diff({ diff }: { diff: Pending['diff'] }) {
  if (diff === undefined) return <p class="diff-note">Comparing the templates…</p>;
  if ('error' in diff) return <p class="diff-note error">The templates could not be compared: {diff.error}</p>;
  if (!diff.changed)
    return (
      <p class="diff-note" data-diff="none">
        Revision {diff.revision}'s pod template is the current one: nothing would change.
      </p>
    );
  return (
    <>
      <p class="diff-note">
        The pod template now (-) and revision {diff.revision}'s (+), {diff.replicaSet}:
      </p>
      <pre class="diff" data-diff={diff.revision}>
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

function Confirm({ p, onYes, onNo }: { p: Pending; onYes: () => void; onNo: () => void }) {
  return (
    <div class="backdrop">
      <div class="dialog" role="dialog" aria-modal="true" aria-labelledby="confirm-question">
        <p id="confirm-question">{p.question}</p>
        {p.action === 'undo' ? <Diff diff={p.diff} /> : null}
        <div class="buttons">
          <button type="button" class="primary" data-confirm="yes" onClick={onYes}>
            {p.action === 'undo' ? 'Roll back' : p.action === 'pause' ? 'Pause' : 'Resume'}
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
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
        </section>
      ))}

      <h2>Conditions</h2>
      <Conditions conditions={d.conditions} now={now} timeLabel="Updated" />
    </main>
  );
}
