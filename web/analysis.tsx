// Analysis runs: a list of the runs (every run served, or one Deployment's), and a run's page with,
// per metric, its kept measurements over time as a chart against its conditions (a line for each
// threshold a simple comparison sets; the condition as text otherwise), its counts against its
// limits, and the run's message. Drawn as plain SVG by the small component below (docs/dashboard.md
// says why no charting library); every text goes through JSX, which escapes it.

import type { AnalysisMetricView, AnalysisRunView, ConditionReading } from '../src/dashboard/api.ts';
import { analysisRuns, chartOf, drawnOn, judges } from './analysis-chart.ts';
import { age } from './state.ts';
import type { Model } from './state.ts';

export const analysisRunsHref = (of?: { namespace: string; name: string }): string =>
  of ? `#/analysis/${encodeURIComponent(of.namespace)}/${encodeURIComponent(of.name)}` : '#/analysis';

export const analysisRunHref = (r: { namespace: string; name: string }): string =>
  `#/analysisruns/${encodeURIComponent(r.namespace)}/${encodeURIComponent(r.name)}`;

export function PhaseBadge({ phase }: { phase: string }) {
  return <span class={`badge run-${phase.toLowerCase()}`}>{phase}</span>;
}

/** The source's failure, when the runs cannot be listed (no analysis CRDs, RBAC). */
function SourceProblem({ model }: { model: Model }) {
  const source = model.sources.get('/analysisruns');
  return source?.problem ? (
    <div class="notice error" role="alert" data-source-problem="analysisruns">
      The analysis runs cannot be read (the dashboard keeps trying): {source.problem}
    </div>
  ) : null;
}

/** The runs list: every run served, or those of Deployment `namespace`/`deployment`. */
export function AnalysisRunsPage({
  model,
  namespace,
  deployment,
}: {
  model: Model;
  namespace?: string;
  deployment?: string;
}) {
  const of = namespace !== undefined && deployment !== undefined ? { namespace, deployment } : undefined;
  const runs = analysisRuns(model, of);
  const source = model.sources.get('/analysisruns');
  const now = Date.now();
  return (
    <main>
      {of ? (
        <p class="back">
          <a href={`#/deployments/${encodeURIComponent(of.namespace)}/${encodeURIComponent(of.deployment)}`}>
            ← {of.deployment}
          </a>
        </p>
      ) : null}
      <h1>{of ? `Analysis runs of ${of.deployment}` : 'Analysis runs'}</h1>
      <SourceProblem model={model} />
      {runs.length === 0 ? (
        <p class="empty">
          {source && !source.synced ? 'Loading…' : of ? 'No analysis run of this Deployment.' : 'No analysis run.'}
        </p>
      ) : (
        <table class="analysisruns">
          <thead>
            <tr>
              <th>Run</th>
              {model.config.namespace === null ? <th>Namespace</th> : null}
              <th>Judges</th>
              <th>Revision</th>
              <th>Phase</th>
              <th>Metrics</th>
              <th>Started</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((r) => (
              <tr key={`${r.namespace}/${r.name}`} data-run={r.name} data-phase={r.phase}>
                <td>
                  <a href={analysisRunHref(r)}>{r.name}</a>
                </td>
                {model.config.namespace === null ? <td>{r.namespace}</td> : null}
                <td>{judges(r)}</td>
                <td class="num">{r.revision ?? '—'}</td>
                <td title={r.message || undefined}>
                  <PhaseBadge phase={r.phase} />
                </td>
                <td>
                  {r.metrics.map((m, i) => (
                    <span key={m.name} class="metric-phase" title={m.message || undefined}>
                      {i > 0 ? ', ' : ''}
                      {m.name} ({m.phase})
                    </span>
                  ))}
                </td>
                <td>{r.startedAt ? `${age(r.startedAt, now)} ago` : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </main>
  );
}

const clock = (iso: string): string =>
  Number.isNaN(Date.parse(iso)) ? iso : new Date(iso).toISOString().slice(11, 19);

/** A metric's measurements over time as SVG: one point per kept measurement, a line per drawn threshold. */
export function MetricChart({ metric }: { metric: AnalysisMetricView }) {
  const g = chartOf(metric);
  return (
    <svg
      class="chart"
      viewBox={`0 0 ${g.width} ${g.height}`}
      width={g.width}
      height={g.height}
      role="img"
      aria-label={`${metric.name}: ${metric.measurements.length} measurements of ${metric.plotted}`}
      data-chart={metric.name}
      data-points={g.points.length}
    >
      <line class="axis" x1={g.left} y1={g.bottom} x2={g.right} y2={g.bottom} />
      <line class="axis" x1={g.left} y1={g.top} x2={g.left} y2={g.bottom} />
      {g.ticks.map((t) => (
        <text key={t.label + t.y} class="tick" x={g.left - 6} y={t.y + 4} text-anchor="end">
          {t.label}
        </text>
      ))}
      {g.from ? (
        <text class="tick" x={g.left} y={g.height - 6}>
          {clock(g.from)}
        </text>
      ) : null}
      {g.to ? (
        <text class="tick" x={g.right} y={g.height - 6} text-anchor="end">
          {clock(g.to)} UTC
        </text>
      ) : null}
      {g.thresholds.map((t) => (
        <g key={t.kind} class={`threshold threshold-${t.kind}`} data-threshold={t.kind} data-value={t.value}>
          <line x1={g.left} y1={t.y} x2={g.right} y2={t.y} />
          <text x={g.right - 4} y={t.y - 4} text-anchor="end">
            {t.kind}: {t.label}
          </text>
        </g>
      ))}
      {g.points.length > 1 ? (
        <polyline
          class="trace"
          points={g.points
            .filter((p) => !p.noValue)
            .map((p) => `${p.x},${p.y}`)
            .join(' ')}
        />
      ) : null}
      {g.points.map((p, i) => (
        <circle
          key={i}
          class={`point run-${p.phase.toLowerCase()}${p.noValue ? ' no-value' : ''}`}
          cx={p.x}
          cy={p.y}
          r={4}
          data-measurement={p.phase}
        >
          <title>{p.title}</title>
        </circle>
      ))}
    </svg>
  );
}

function Condition({ kind, c, plotted }: { kind: string; c: ConditionReading; plotted: string }) {
  const drawn = c.threshold !== null && drawnOn(c.threshold, plotted);
  return (
    <li data-condition={kind} data-drawn={drawn ? 'line' : 'text'}>
      {kind}: <code>{c.expression}</code>
      <span class="muted">{drawn ? ' (the line on the chart)' : ' (not a simple comparison: not drawn)'}</span>
    </li>
  );
}

function Metric({ m, runMessage }: { m: AnalysisMetricView; runMessage: string }) {
  const c = m.counts;
  const l = m.limits;
  const taken = c.count + c.error;
  return (
    <section class="metric" data-metric={m.name} data-phase={m.phase}>
      <h2>
        {m.name} <PhaseBadge phase={m.phase} />
        {m.dryRun ? <span class="badge">dry run</span> : null}
      </h2>
      {m.message && m.message !== runMessage ? (
        <p class="message" data-field="metric-message">
          {m.message}
        </p>
      ) : null}
      <p class="muted">{m.provider}</p>
      <ul class="conditions">
        {m.successCondition ? <Condition kind="success" c={m.successCondition} plotted={m.plotted} /> : null}
        {m.failureCondition ? <Condition kind="failure" c={m.failureCondition} plotted={m.plotted} /> : null}
        {!m.successCondition && !m.failureCondition ? <li>no condition: every measurement is Successful</li> : null}
      </ul>
      <dl class="facts limits" data-field="limits">
        <dt>Measured</dt>
        <dd data-field="measured">
          {c.count}
          {l.count !== null ? ` of count ${l.count}` : ' (no count: until the run ends)'}, {c.successful} successful
        </dd>
        <dt>Failed</dt>
        <dd data-field="failed" class={c.failed > l.failureLimit ? 'over' : ''}>
          {c.failed} (failureLimit {l.failureLimit}: more fail the metric)
        </dd>
        <dt>Inconclusive</dt>
        <dd data-field="inconclusive" class={c.inconclusive > l.inconclusiveLimit ? 'over' : ''}>
          {c.inconclusive} (inconclusiveLimit {l.inconclusiveLimit})
        </dd>
        <dt>Errors</dt>
        <dd data-field="errors" class={c.consecutiveError > l.consecutiveErrorLimit ? 'over' : ''}>
          {c.error}, {c.consecutiveError} in a row (consecutiveErrorLimit {l.consecutiveErrorLimit})
        </dd>
        {l.problem ? (
          <>
            <dt>Limits</dt>
            <dd>{l.problem}</dd>
          </>
        ) : null}
      </dl>
      {m.measurements.length === 0 ? (
        <p class="empty">No measurement yet.</p>
      ) : (
        <>
          <p class="muted">
            {m.plotted} per measurement
            {taken > m.measurements.length ? ` (the latest ${m.measurements.length} of ${taken} kept)` : ''}
          </p>
          <MetricChart metric={m} />
          <details>
            <summary>The measurements as a table</summary>
            <table class="measurements">
              <thead>
                <tr>
                  <th>At</th>
                  <th>Phase</th>
                  <th>Value</th>
                  <th>Message</th>
                </tr>
              </thead>
              <tbody>
                {m.measurements.map((x, i) => (
                  <tr key={i}>
                    <td>{x.at || '—'}</td>
                    <td>{x.phase}</td>
                    <td>{x.value || '—'}</td>
                    <td>{x.message}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </details>
        </>
      )}
    </section>
  );
}

/** One run: what it judges, its phase and message, and each metric with its chart. */
export function AnalysisRunPage({ model, namespace, name }: { model: Model; namespace: string; name: string }) {
  const r: AnalysisRunView | undefined = model.analysisRuns.get(`${namespace}/${name}`);
  const back = (
    <p class="back">
      {r?.deployment ? (
        <a href={analysisRunsHref({ namespace, name: r.deployment })}>← the runs of {r.deployment}</a>
      ) : (
        <a href={analysisRunsHref()}>← All analysis runs</a>
      )}
    </p>
  );
  if (!r)
    return (
      <main>
        {back}
        <h1>{name}</h1>
        <SourceProblem model={model} />
        <div class="notice error" role="alert" data-gone="run">
          There is no analysis run {namespace}/{name} in the namespaces served (deleted, or not made yet).
        </div>
      </main>
    );
  const now = Date.now();
  return (
    <main>
      {back}
      <h1 data-run={r.name}>
        {r.name} <PhaseBadge phase={r.phase} />
      </h1>
      <dl class="facts">
        <dt>Judges</dt>
        <dd>
          {r.deployment && !r.nodeRoll ? (
            <a href={`#/deployments/${encodeURIComponent(r.namespace)}/${encodeURIComponent(r.deployment)}`}>
              {judges(r)}
            </a>
          ) : (
            judges(r)
          )}
        </dd>
        <dt>Phase</dt>
        <dd data-field="run-phase">
          {r.phase}
          {r.terminated ? ' (terminated: spec.terminate)' : ''}
        </dd>
        <dt>Message</dt>
        <dd data-field="run-message">{r.message || '—'}</dd>
        <dt>Started</dt>
        <dd>{r.startedAt ? `${r.startedAt} (${age(r.startedAt, now)} ago)` : '—'}</dd>
      </dl>
      {r.metrics.map((m) => (
        <Metric key={m.name} m={m} runMessage={r.message} />
      ))}
    </main>
  );
}
