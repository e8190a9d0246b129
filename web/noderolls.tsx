// Node rolls: every NodeRoll of the cluster, live, with each node's step and since when, the zones
// before and now, the health gate's state and the conditions; pause, resume, and skip a node, each
// confirmed first (`kubectl pacer node-roll pause|resume|skip`'s code paths on the server).

import type { NodeRollView } from '../src/dashboard/api.ts';
import { useOperations } from './actions.tsx';
import { Conditions } from './conditions.tsx';
import type { Asked } from './actions.tsx';
import { age, nodeRolls, zonesInWords } from './state.ts';
import type { Model } from './state.ts';

/** The steps a node may be skipped in (the controller's rule, skipNode): not yet removed. Others are refused, and say why. */
const SKIPPABLE = new Set(['Pending', 'Draining']);

const GATE_WORDS: Record<NodeRollView['gate']['state'], string> = {
  open: 'open: no node waits at it',
  waiting: 'holding the next node',
  paused: 'paused for a person',
  done: 'done',
};

function Roll({
  r,
  now,
  readOnly,
  ask,
  busy,
}: {
  r: NodeRollView;
  now: number;
  readOnly: boolean;
  ask: (a: Asked) => void;
  busy: boolean;
}) {
  const paused = r.specPaused || r.pause !== null;
  return (
    <section class="noderoll" data-noderoll={r.name} data-phase={r.phase}>
      <h2>
        {r.name} <span class={`badge phase-${r.phase.toLowerCase()}`}>{r.phase}</span>
        {readOnly ? null : paused ? (
          <button
            type="button"
            data-action="resume"
            disabled={busy}
            onClick={() =>
              ask({
                op: { kind: 'nodeRoll', name: r.name, action: 'resume' },
                question: `Resume the node roll ${r.name}?${r.pause ? ` It paused on ${r.pause.wait}${r.pause.node ? ` (node ${r.pause.node})` : ''}: ${r.pause.message}` : ''}`,
                yes: 'Resume',
              })
            }
          >
            Resume
          </button>
        ) : (
          <button
            type="button"
            data-action="pause"
            disabled={busy || r.phase === 'Complete'}
            onClick={() =>
              ask({
                op: { kind: 'nodeRoll', name: r.name, action: 'pause' },
                question: `Pause the node roll ${r.name}? A node under way finishes its step; no next one starts until it is resumed.`,
                yes: 'Pause',
              })
            }
          >
            Pause
          </button>
        )}
        {!readOnly && r.pause?.wait === 'analysis' ? (
          <button
            type="button"
            data-action="resume-skip-analysis"
            disabled={busy}
            onClick={() =>
              ask({
                op: { kind: 'nodeRoll', name: r.name, action: 'resume', skipAnalysis: true },
                question: `Resume the node roll ${r.name} and let node ${r.pause?.node ?? ''} pass its analysis without a run (--skip-analysis)? ${r.pause?.message ?? ''}`,
                yes: 'Resume, skip the analysis',
              })
            }
          >
            Resume, skip the analysis
          </button>
        ) : null}
      </h2>
      {r.message ? (
        <p class="message" data-field="message">
          {r.message}
        </p>
      ) : null}
      <dl class="facts">
        <dt>Mode</dt>
        <dd>
          {r.mode}, {r.nodesAtATime} node(s) at a time, group {r.nodeGroup || '(none)'}
          {r.desiredNodes !== null ? ` to ${r.desiredNodes} new node(s)` : ''}
          {r.specPaused ? ', paused (spec.paused)' : ''}
        </dd>
        {r.pause ? (
          <>
            <dt>Paused</dt>
            <dd data-field="pause">
              {r.pause.node ? `node ${r.pause.node}, ` : ''}
              {r.pause.wait}: {r.pause.message}
            </dd>
          </>
        ) : null}
        <dt>Zones before</dt>
        <dd data-field="zones-before">{zonesInWords(r.zonesBefore)}</dd>
        <dt>Zones now</dt>
        <dd data-field="zones-now">
          {zonesInWords(r.zonesNow)}
          {r.zoneMoves ? ` · zone moves: ${r.zoneMoves.moved.length} of ${r.zoneMoves.planned} made` : ''}
        </dd>
        <dt>Health gate</dt>
        <dd data-field="gate" data-gate={r.gate.state}>
          {GATE_WORDS[r.gate.state]}
          {r.gate.detail ? `: ${r.gate.detail}` : ''}
          <div class="muted">
            {r.gate.scope}
            {r.gate.analysis.length > 0 ? `; analysis ${r.gate.analysis.join(', ')} after each node` : ''}
          </div>
        </dd>
      </dl>
      {r.nodes.length > 0 ? (
        <table class="nodes">
          <thead>
            <tr>
              <th>Node</th>
              <th>Zone</th>
              <th>Step</th>
              <th>Since</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {r.nodes.map((n) => (
              <tr key={n.name} data-node={n.name} data-step={n.step}>
                <td>{n.name}</td>
                <td>{n.zone || '—'}</td>
                <td>
                  {n.step}
                  {n.skipped ? ' (skipped)' : ''}
                </td>
                <td>{n.since ? age(n.since, now) : '—'}</td>
                <td>
                  {!readOnly && SKIPPABLE.has(n.step) && r.phase !== 'Complete' ? (
                    <button
                      type="button"
                      class="small"
                      data-action="skip"
                      disabled={busy}
                      onClick={() =>
                        ask({
                          op: { kind: 'nodeRoll', name: r.name, action: 'skip', node: n.name },
                          question: `Skip node ${n.name} of ${r.name}? It goes back to the end of the order and is revisited once the others are done.`,
                          yes: 'Skip',
                        })
                      }
                    >
                      Skip
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p class="empty">No node taken yet.</p>
      )}
      {r.conditions.length > 0 ? <Conditions conditions={r.conditions} now={now} timeLabel="Changed" /> : null}
    </section>
  );
}

export function NodeRollsPage({ model }: { model: Model }) {
  const { ask, busy, view } = useOperations();
  const rolls = nodeRolls(model);
  const source = model.sources.get('/noderolls');
  const now = Date.now();
  return (
    <main>
      <h1>Node rolls</h1>
      {view}
      {source?.problem ? (
        <div class="notice error" role="alert" data-source-problem="noderolls">
          The node rolls cannot be read (the dashboard keeps trying): {source.problem}
        </div>
      ) : null}
      {rolls.length === 0 && !source?.problem ? (
        <p class="empty">{source && !source.synced ? 'Loading…' : 'No NodeRoll in the cluster.'}</p>
      ) : null}
      {rolls.map((r) => (
        <Roll key={r.name} r={r} now={now} readOnly={model.config.readOnly} ask={ask} busy={busy} />
      ))}
    </main>
  );
}
