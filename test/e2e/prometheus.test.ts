// A real Prometheus (Debian's prometheus package) scrapes Pacer on the real control plane with the
// settings the shipped ServiceMonitor implies (HTTPS with a ServiceAccount's bearer token, which
// Pacer's secure metrics check against the API server and RBAC; path, interval, timeout, and the job label the
// Prometheus Operator gives it: the metrics Service's name) and loads the shipped alert rules
// (the PrometheusRule's groups). Read through Prometheus' own HTTP API: the Deployment series, a
// completed rollout counted, and PacerRolloutProgressDeadlineExceeded firing for a stuck rollout
// (its `for: 1m` and a 30 s scrape make this test take about two minutes).

import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort } from '../fixtures/net.ts';
import { parse as parseYaml, stringify } from 'yaml';
import { prometheusRule, MONITORING_DIR } from '../fixtures/monitoring.ts';
import { requireTool } from '../fixtures/tools.ts';
import { eventually } from '../integration/fixtures/cluster.ts';
import { BEDS, ROOT, kubectlEnv } from './fixtures.ts';

interface ServiceMonitor {
  metadata: { name: string; namespace: string };
  spec: {
    endpoints: Array<{
      port: string;
      path?: string;
      interval?: string;
      scrapeTimeout?: string;
      scheme?: string;
      honorLabels?: boolean;
      bearerTokenFile?: string;
      tlsConfig?: { insecureSkipVerify?: boolean };
    }>;
  };
}
interface Service {
  metadata: { name: string; namespace: string };
}

/**
 * The scrape job the Prometheus Operator generates for the ServiceMonitor's first endpoint, with a
 * static target standing in for the Service's endpoints: the same path, interval, timeout, scheme,
 * honor_labels, bearer token (read from `tokenFile`, standing in for the pod's mounted one) and TLS
 * settings, and the labels the Operator's relabelling gives (job is the Service's name).
 */
export function scrapeJob(
  sm: ServiceMonitor,
  service: Service,
  target: string,
  tokenFile?: string,
): Record<string, unknown> {
  const ep = sm.spec.endpoints[0];
  return {
    ...(ep.bearerTokenFile
      ? { authorization: { type: 'Bearer', credentials_file: tokenFile ?? ep.bearerTokenFile } }
      : {}),
    ...(ep.tlsConfig ? { tls_config: { insecure_skip_verify: ep.tlsConfig.insecureSkipVerify ?? false } } : {}),
    job_name: `serviceMonitor/${sm.metadata.namespace}/${sm.metadata.name}/0`,
    ...(ep.interval ? { scrape_interval: ep.interval } : {}),
    ...(ep.scrapeTimeout ? { scrape_timeout: ep.scrapeTimeout } : {}),
    metrics_path: ep.path ?? '/metrics',
    honor_labels: ep.honorLabels ?? false,
    scheme: ep.scheme ?? 'http',
    static_configs: [
      {
        targets: [target],
        labels: {
          job: service.metadata.name,
          namespace: service.metadata.namespace,
          service: service.metadata.name,
          endpoint: ep.port,
        },
      },
    ],
  };
}

// Only on the real bed: the scrape settings are those of a Prometheus Operator in a real cluster.
for (const bed of BEDS.filter((b) => b === 'real'))
  describe(`e2e (${bed}): a real Prometheus scrapes Pacer and fires the shipped alerts`, function () {
    this.timeout(300_000);
    const k = kubectlEnv({ bed, tmpPrefix: 'pacer-prometheus-', sim: { podStartMs: 50, podReadyMs: 80 } });
    let api = '';

    const query = async (expr: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> => {
      const r = await fetch(`${api}/api/v1/query?query=${encodeURIComponent(expr)}`);
      const body = (await r.json()) as {
        status: string;
        data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
      };
      expect(body.status, expr).to.equal('success');
      return body.data.result;
    };

    before(async function () {
      requireTool(this, 'prometheus', "Debian's prometheus package; make test installs it when run as root");
      await k.start(this);
      await k.ok(k.kubectl('apply', '-f', join(ROOT, 'crds')));
      await k.ok(k.kubectl('wait', '--for=condition=Established', 'crd/deployments.pacer.dev', '--timeout=30s'));
      // Secure metrics, as installed: Prometheus' ServiceAccount bound to the shipped reader role.
      const ctl = await k.startController({ metricsBindAddress: '127.0.0.1:0', metricsSecure: true });
      await k.ok(k.kubectl('apply', '-f', join(MONITORING_DIR, 'metrics-reader.yaml')));
      await k.createNamespace('monitoring');
      await k.ok(k.kubectl('create', 'serviceaccount', 'prometheus', '-n', 'monitoring'));
      await k.ok(
        k.kubectl(
          'create',
          'clusterrolebinding',
          'prometheus-reads-pacer',
          '--clusterrole=pacer-metrics-reader',
          '--serviceaccount=monitoring:prometheus',
        ),
      );
      const token = (await k.ok(k.kubectl('create', 'token', 'prometheus', '-n', 'monitoring'))).trim();

      const sm = parseYaml(await readFile(join(MONITORING_DIR, 'servicemonitor.yaml'), 'utf8')) as ServiceMonitor;
      const service = parseYaml(await readFile(join(ROOT, 'manifests', 'base', 'service.yaml'), 'utf8')) as Service;
      const dir = join(k.dir, 'prometheus');
      await mkdir(dir);
      await writeFile(join(dir, 'token'), token);
      await writeFile(join(dir, 'rules.yaml'), stringify(prometheusRule().spec));
      await writeFile(
        join(dir, 'prometheus.yml'),
        stringify({
          // The Prometheus Operator's default evaluation interval.
          global: { evaluation_interval: '30s' },
          rule_files: ['rules.yaml'],
          scrape_configs: [scrapeJob(sm, service, `127.0.0.1:${ctl.metricsPort}`, join(dir, 'token'))],
        }),
      );
      const port = await freePort();
      api = `http://127.0.0.1:${port}`;
      // `timeout` stops it by itself should this process die.
      k.track(
        spawn(
          'timeout',
          [
            '600',
            'prometheus',
            `--config.file=${join(dir, 'prometheus.yml')}`,
            `--storage.tsdb.path=${join(dir, 'data')}`,
            `--web.listen-address=127.0.0.1:${port}`,
            '--log.level=warn',
          ],
          { stdio: 'ignore', cwd: dir },
        ),
      );
      await eventually('Prometheus to be ready', async () => (await fetch(`${api}/-/ready`)).ok, 30_000);
    });
    after(() => k.stop());

    it('scrapes the controller as the ServiceMonitor says: job pacer-controller-metrics, up', async () => {
      const up = await eventually(
        'the first scrape',
        async () => {
          const r = await query('up');
          return r.length > 0 && r;
        },
        60_000,
      );
      expect(up.map((s) => [s.metric.job, s.metric.service, s.value[1]])).to.deep.equal([
        ['pacer-controller-metrics', 'pacer-controller-metrics', '1'],
      ]);
      const targets = (await (await fetch(`${api}/api/v1/targets`)).json()) as {
        data: { activeTargets: Array<{ scrapeInterval: string; scrapeTimeout: string; scrapeUrl: string }> };
      };
      expect(
        targets.data.activeTargets.map((t) => [t.scrapeInterval, t.scrapeTimeout, new URL(t.scrapeUrl).pathname]),
      ).to.deep.equal([['30s', '10s', '/metrics']]);
    });

    it('shows the Deployment series and counts a completed rollout', async () => {
      const web = await k.editedExample('rolling-web.yaml', [['minReadySeconds: 5', 'minReadySeconds: 1']]);
      await k.ok(k.kubectl('apply', '-f', web));
      await k.ok(
        k.run(join(ROOT, 'node_modules', '.bin', 'node'), [
          join(ROOT, 'src', 'cli', 'kubectl-pacer.ts'),
          '--kubeconfig',
          join(k.dir, 'kubeconfig'),
          'rollout',
          'status',
          'web',
          '--timeout=60s',
        ]),
      );
      const replicas = await eventually(
        'pacer_deployment_spec_replicas for web',
        async () => {
          const r = await query('pacer_deployment_spec_replicas{name="web"}');
          return r.length === 1 && r;
        },
        90_000,
      );
      expect(replicas[0].metric).to.include({ job: 'pacer-controller-metrics', namespace: 'default', name: 'web' });
      expect(replicas[0].value[1]).to.equal('3');
      await eventually(
        'a completed rollout counted',
        async () => Number((await query('pacer_rollouts_total{result="complete"}'))[0]?.value[1] ?? 0) >= 1,
        90_000,
      );
    });

    it('PacerRolloutProgressDeadlineExceeded fires for a rollout past its deadline', async () => {
      const nr = await k.editedExample(
        'failing/never-ready.yaml',
        [['progressDeadlineSeconds: 30', 'progressDeadlineSeconds: 5']],
        'never-ready.yaml',
      );
      await k.ok(k.kubectl('apply', '-f', nr));
      const alert = await eventually(
        'the alert to fire',
        async () => {
          const body = (await (await fetch(`${api}/api/v1/alerts`)).json()) as {
            data: { alerts: Array<{ labels: Record<string, string>; state: string }> };
          };
          return body.data.alerts.find(
            (a) => a.labels.alertname === 'PacerRolloutProgressDeadlineExceeded' && a.state === 'firing',
          );
        },
        240_000,
      );
      expect(alert.labels).to.include({
        name: 'never-ready',
        namespace: 'default',
        severity: 'warning',
        job: 'pacer-controller-metrics',
      });
    });
  });
