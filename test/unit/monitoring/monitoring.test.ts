// manifests/monitoring/: the alert rules checked and unit-tested with the real promtool (one test per
// alert), the dashboard's shape, the ServiceMonitor against the metrics Service, and the kustomization.
// Without promtool these tests fail in CI (CI=true; .ci/run installs it) and skip locally, saying why.

import { expect } from 'chai';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, parseAllDocuments, stringify } from 'yaml';
import { seriesNames } from '../../fixtures/prometheus.ts';
import { KUBECTL_HOW, requireTool } from '../../fixtures/tools.ts';
import { MONITORING_DIR as DIR, dashboardExpressions, prometheusRule } from '../../fixtures/monitoring.ts';

const ROOT = new URL('../../../', import.meta.url).pathname;

describe('manifests/monitoring', () => {
  describe('alert rules with promtool', () => {
    let dir: string;
    before(function () {
      requireTool(this, 'promtool', "Debian's prometheus package; make test installs it when run as root");
      dir = mkdtempSync(join(tmpdir(), 'pacer-promtool-'));
      // The PrometheusRule's spec is a plain rules file: promtool reads it as the tests' rules.yaml.
      writeFileSync(join(dir, 'rules.yaml'), stringify(prometheusRule().spec));
      for (const f of readdirSync(join(DIR, 'tests')))
        if (f.endsWith('.yaml')) copyFileSync(join(DIR, 'tests', f), join(dir, f));
    });
    after(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('promtool check rules: the rules are valid', () => {
      const r = spawnSync('promtool', ['check', 'rules', 'rules.yaml'], { cwd: dir, encoding: 'utf8' });
      expect(r.status, r.stdout + r.stderr).to.equal(0);
      expect(r.stdout).to.contain(
        `SUCCESS: ${prometheusRule().spec.groups.flatMap((g) => g.rules).length} rules found`,
      );
    });

    it('promtool test rules: every unit test passes', () => {
      const files = readdirSync(dir)
        .filter((f) => f !== 'rules.yaml' && f.endsWith('.yaml'))
        .sort();
      const r = spawnSync('promtool', ['test', 'rules', ...files], { cwd: dir, encoding: 'utf8' });
      expect(r.status, r.stdout + r.stderr).to.equal(0);
      expect(r.stdout.match(/SUCCESS/g)?.length).to.equal(files.length);
    });

    it('promtool test rules can fail: a wrong expectation is reported', () => {
      const bad = parseYaml(readFileSync(join(dir, 'workqueue-backlog.yaml'), 'utf8')) as {
        tests: Array<{ alert_rule_test: Array<{ exp_alerts: unknown[] }> }>;
      };
      bad.tests[0].alert_rule_test[0].exp_alerts = [{ exp_labels: { severity: 'warning' } }];
      writeFileSync(join(dir, 'broken.test.yaml'), stringify(bad));
      const r = spawnSync('promtool', ['test', 'rules', 'broken.test.yaml'], { cwd: dir, encoding: 'utf8' });
      rmSync(join(dir, 'broken.test.yaml'));
      expect(r.status).to.not.equal(0);
    });
  });

  it('each alert has a promtool unit test that expects it to fire', () => {
    const alerts = prometheusRule()
      .spec.groups.flatMap((g) => g.rules)
      .map((r) => r.alert)
      .filter((a): a is string => !!a);
    expect(alerts).to.have.members([
      'PacerRolloutProgressDeadlineExceeded',
      'PacerDeploymentUnavailable',
      'PacerPlanWaitingForOperator',
      'PacerAnalysisFailed',
      'PacerNodeRollPaused',
      'PacerControllerDown',
      'PacerReconcileErrorsHigh',
      'PacerWorkqueueBacklog',
    ]);
    const firing = new Set<string>();
    for (const f of readdirSync(join(DIR, 'tests'))) {
      const t = parseYaml(readFileSync(join(DIR, 'tests', f), 'utf8')) as {
        rule_files: string[];
        tests: Array<{ alert_rule_test?: Array<{ alertname: string; exp_alerts: unknown[] }> }>;
      };
      expect(t.rule_files, f).to.deep.equal(['rules.yaml']);
      for (const test of t.tests)
        for (const a of test.alert_rule_test ?? []) if (a.exp_alerts.length > 0) firing.add(a.alertname);
    }
    expect([...firing].sort()).to.deep.equal([...alerts].sort());
  });

  it("every alert has a severity, a summary and a description; the controller alerts select the ServiceMonitor's job", () => {
    for (const r of prometheusRule().spec.groups.flatMap((g) => g.rules)) {
      expect(r.labels?.severity, r.alert).to.be.oneOf(['warning', 'critical']);
      expect(r.annotations?.summary, r.alert).to.be.a('string');
      expect(r.annotations?.description, r.alert).to.be.a('string');
      if (/up|controller_runtime|workqueue/.test(r.expr))
        expect(r.expr, r.alert).to.contain('job="pacer-controller-metrics"');
    }
  });

  it("the ServiceMonitor selects the metrics Service and its port; the job is the Service's name", () => {
    const sm = parseYaml(readFileSync(join(DIR, 'servicemonitor.yaml'), 'utf8')) as {
      spec: { selector: { matchLabels: Record<string, string> }; endpoints: Array<{ port: string; path: string }> };
    };
    const svc = parseYaml(readFileSync(join(ROOT, 'manifests/base/service.yaml'), 'utf8')) as {
      metadata: { name: string; labels: Record<string, string> };
      spec: { ports: Array<{ name: string }> };
    };
    expect(svc.metadata.labels).to.include(sm.spec.selector.matchLabels);
    expect(svc.spec.ports.map((p) => p.name)).to.include(sm.spec.endpoints[0].port);
    expect(sm.spec.endpoints[0].path).to.equal('/metrics');
    expect(svc.metadata.name).to.equal('pacer-controller-metrics');
  });

  it('the dashboard has the panels operators look for, each with a query, and every query names a series', () => {
    const dash = JSON.parse(readFileSync(join(DIR, 'dashboards/pacer.json'), 'utf8')) as {
      uid: string;
      panels: Array<{ type: string; title: string; targets?: Array<{ expr: string }> }>;
    };
    expect(dash.uid).to.equal('pacer-rollouts');
    const titles = dash.panels.filter((p) => p.type !== 'row').map((p) => p.title);
    expect(titles).to.include.members([
      'Rollouts in progress',
      'Replicas per Deployment',
      'Conditions',
      'Rollout duration',
      'Reconcile rate',
      'Reconcile latency',
      'Reconcile errors',
      'Work queue depth',
      'Scrape duration',
      'Analysis: latest value per metric',
      'Analysis runs',
    ]);
    for (const p of dash.panels.filter((x) => x.type !== 'row'))
      expect(p.targets?.length, p.title).to.be.greaterThan(0);
    for (const e of dashboardExpressions()) expect(seriesNames(e), e).to.not.deep.equal([]);
  });

  it('kubectl kustomize manifests/monitoring builds the ServiceMonitor, the PrometheusRule, the dashboard ConfigMap and the metrics-reader ClusterRole', function () {
    requireTool(this, 'kubectl', KUBECTL_HOW);
    const out = execFileSync('kubectl', ['kustomize', DIR], { encoding: 'utf8' });
    const docs = parseAllDocuments(out).map(
      (d) =>
        d.toJS() as {
          kind: string;
          metadata: { name: string; namespace?: string; labels?: Record<string, string> };
          data?: Record<string, string>;
        },
    );
    expect(docs.map((d) => `${d.kind}/${d.metadata.name}`).sort()).to.deep.equal([
      'ClusterRole/pacer-metrics-reader',
      'ConfigMap/pacer-grafana-dashboard',
      'PrometheusRule/pacer',
      'ServiceMonitor/pacer-controller',
    ]);
    for (const d of docs)
      expect(d.metadata.namespace, `${d.kind}/${d.metadata.name}`).to.equal(
        d.kind === 'ClusterRole' ? undefined : 'pacer-system',
      );
    const cm = docs.find((d) => d.kind === 'ConfigMap')!;
    expect(cm.metadata.labels).to.include({ grafana_dashboard: '1' });
    expect(JSON.parse(cm.data!['pacer.json']).uid).to.equal('pacer-rollouts');
  });
});

describe('test helper: seriesNames() finds the series a PromQL expression reads', () => {
  const rows: Array<[string, string[]]> = [
    ['up', ['up']],
    ['absent(up{job="x"} == 1)', ['up']],
    [
      'sum by (controller, result) (rate(controller_runtime_reconcile_total{job=~"$job"}[$__rate_interval]))',
      ['controller_runtime_reconcile_total'],
    ],
    [
      'histogram_quantile(0.99, sum by (le) (rate(workqueue_queue_duration_seconds_bucket[5m])))',
      ['workqueue_queue_duration_seconds_bucket'],
    ],
    ['a / on (namespace, name) group_left (strategy) b > 0.1', ['a', 'b']],
    ['count((x{reason!="NewReplicaSetAvailable"} == 1)) or vector(0)', ['x']],
    ['process_resident_memory_bytes / 2^20', ['process_resident_memory_bytes']],
    ['rate(m[5m] offset 1h) and bool n', ['m', 'n']],
    ['pacer_deployment_info{namespace=~"$namespace"}', ['pacer_deployment_info']],
  ];
  for (const [expr, want] of rows) it(expr, () => expect(seriesNames(expr)).to.deep.equal(want));
});
