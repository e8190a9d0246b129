// charts/pacer with the real Helm (hack/helm builds it from its Go module): `helm lint` passes and
// catches a broken chart; `helm template` renders, and what it renders is held equal to the kustomize
// install (kubectl kustomize manifests/...) where the two must not drift: the RBAC, the webhook
// configuration, the alerts, the ServiceMonitor, the CRDs. Without helm or kubectl these tests fail
// in CI (CI=true) and skip locally, saying why.

import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { HELM_HOW, KUBECTL_HOW, requireTool } from '../../fixtures/tools.ts';

const ROOT = new URL('../../../', import.meta.url).pathname;
const CHART = join(ROOT, 'charts', 'pacer');

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: unknown;
}

function run(cmd: string, args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  return { code: r.status ?? 1, stdout: r.stdout, stderr: r.stderr };
}

function objects(text: string): K8sObject[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
}

/** helm template of the chart with `set` values, in pacer-system, as objects. */
function template(set: string[] = [], chart = CHART): K8sObject[] {
  const r = run('helm', [
    'template',
    'pacer',
    chart,
    '--namespace',
    'pacer-system',
    ...set.flatMap((s) => ['--set', s]),
  ]);
  expect(r.code, r.stderr).to.equal(0);
  return objects(r.stdout);
}

function kustomize(dir: string): K8sObject[] {
  const r = run('kubectl', ['kustomize', join(ROOT, 'manifests', dir)]);
  expect(r.code, r.stderr).to.equal(0);
  return objects(r.stdout);
}

const key = (o: K8sObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
const find = (list: K8sObject[], kind: string, name: string) => {
  const o = list.find((x) => x.kind === kind && x.metadata.name === name);
  expect(o, `${kind} ${name} in ${list.map(key).join(', ')}`).to.not.equal(undefined);
  return o!;
};
/** What RBAC grants: kind, name, namespace, rules, roleRef and subjects (not the labels). */
const grants = (list: K8sObject[]) =>
  list
    .filter((o) => ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding', 'ServiceAccount'].includes(o.kind))
    .map((o) => ({ key: key(o), rules: o.rules, roleRef: o.roleRef, subjects: o.subjects }))
    .sort((a, b) => a.key.localeCompare(b.key));

describe('charts/pacer', function () {
  this.timeout(120_000);
  before(function () {
    requireTool(this, 'helm', HELM_HOW);
    requireTool(this, 'kubectl', KUBECTL_HOW);
  });

  describe('helm lint', () => {
    it('passes with the default values, the webhook both ways and monitoring on', () => {
      for (const set of [
        [],
        ['webhook.enabled=true'],
        ['webhook.enabled=true,webhook.certificate=self-signed'],
        [
          'monitoring.serviceMonitor.enabled=true,monitoring.prometheusRule.enabled=true,monitoring.metricsReader.enabled=true,monitoring.grafanaDashboard.enabled=true',
        ],
      ]) {
        const r = run('helm', ['lint', '--strict', CHART, ...set.flatMap((s) => ['--set', s])]);
        expect(r.code, `helm lint --set ${set.join(' ')}: ${r.stdout}${r.stderr}`).to.equal(0);
        expect(r.stdout).to.contain('1 chart(s) linted, 0 chart(s) failed');
      }
    });

    it('fails a chart whose template is broken, naming the file', () => {
      const dir = mkdtempSync(join(tmpdir(), 'pacer-chart-'));
      try {
        cpSync(CHART, join(dir, 'pacer'), { recursive: true });
        writeFileSync(
          join(dir, 'pacer', 'templates', 'broken.yaml'),
          'kind: ConfigMap\nmetadata:\n  name: {{ .Values.nope.missing }}\n',
        );
        const r = run('helm', ['lint', join(dir, 'pacer')]);
        expect(r.code).to.not.equal(0);
        expect(r.stdout + r.stderr).to.contain('templates/broken.yaml');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  describe('helm template', () => {
    it('renders the controller, its ServiceAccount, RBAC, Service, PDB and NetworkPolicy', () => {
      expect(template().map(key).sort()).to.deep.equal([
        'ClusterRole//pacer-aggregate-to-edit',
        'ClusterRole//pacer-aggregate-to-view',
        'ClusterRole//pacer-controller',
        'ClusterRoleBinding//pacer-controller',
        'Deployment/pacer-system/pacer-controller',
        'NetworkPolicy/pacer-system/pacer-controller',
        'PodDisruptionBudget/pacer-system/pacer-controller',
        'Role/pacer-system/pacer-controller',
        'RoleBinding/pacer-system/pacer-controller',
        'Service/pacer-system/pacer-controller-metrics',
        'ServiceAccount/pacer-system/pacer-controller',
      ]);
    });

    it("the RBAC is manifests/' exactly: the same grants to the same ServiceAccount", () => {
      expect(grants(template())).to.deep.equal(grants(kustomize('.')));
      // The comparison can fail: a verb more is seen.
      const more = template();
      (find(more, 'ClusterRole', 'pacer-controller').rules as Array<{ verbs: string[] }>)[0].verbs.push('delete');
      expect(grants(more)).to.not.deep.equal(grants(kustomize('.')));
    });

    it("the user roles: aggregated into view and edit as manifests/' are; off by a value; renamed with fullnameOverride", () => {
      const aggregation = (list: K8sObject[]) =>
        list
          .filter((o) => o.kind === 'ClusterRole' && o.metadata.name.includes('aggregate-to-'))
          .map((o) => ({
            name: o.metadata.name,
            labels: Object.entries(o.metadata.labels ?? {}).filter(([k]) => k.startsWith('rbac.authorization.k8s.io/')),
            rules: o.rules,
          }))
          .sort((a, b) => a.name.localeCompare(b.name));
      const kust = aggregation(kustomize('.'));
      expect(kust.map((r) => r.name)).to.deep.equal(['pacer-aggregate-to-edit', 'pacer-aggregate-to-view']);
      expect(aggregation(template())).to.deep.equal(kust);
      expect(aggregation(template(['userRoles.enabled=false']))).to.deep.equal([]);
      expect(aggregation(template(['fullnameOverride=pacer-two'])).map((r) => r.name)).to.deep.equal([
        'pacer-two-aggregate-to-edit',
        'pacer-two-aggregate-to-view',
      ]);
    });

    it("the controller's pod is manifests/' pod: security, probes, resources, ServiceAccount and args", () => {
      type Pod = {
        spec: { template: { spec: Record<string, unknown> & { containers: Array<Record<string, unknown>> } } };
      };
      const chart = find(template(), 'Deployment', 'pacer-controller') as unknown as Pod;
      const kust = find(kustomize('.'), 'Deployment', 'pacer-controller') as unknown as Pod;
      const c = chart.spec.template.spec;
      const k = kust.spec.template.spec;
      for (const f of ['serviceAccountName', 'securityContext', 'affinity', 'volumes', 'terminationGracePeriodSeconds'])
        expect(c[f], f).to.deep.equal(k[f]);
      for (const f of [
        'securityContext',
        'livenessProbe',
        'readinessProbe',
        'resources',
        'ports',
        'volumeMounts',
        'env',
      ])
        expect(c.containers[0][f], `containers[0].${f}`).to.deep.equal(k.containers[0][f]);
      expect(c.containers[0].image).to.equal('pacer:0.1.0');
      expect(c.containers[0].args).to.include.members(k.containers[0].args as string[]);
    });

    it("webhook.enabled with cert-manager: manifests/webhook/'s objects, webhooks and controller flags", () => {
      const chart = template(['webhook.enabled=true']);
      const kust = kustomize('webhook');
      for (const [kind, name] of [
        ['ValidatingWebhookConfiguration', 'pacer-locks'],
        ['Service', 'pacer-webhook'],
        ['Certificate', 'pacer-webhook'],
        ['Issuer', 'pacer-selfsigned'],
      ]) {
        const c = find(chart, kind, name);
        const k = find(kust, kind, name);
        for (const f of ['spec', 'webhooks']) expect(c[f], `${kind} ${name} ${f}`).to.deep.equal(k[f]);
        expect(c.metadata.annotations ?? {}, `${kind} ${name} annotations`).to.deep.equal(k.metadata.annotations ?? {});
      }
      type Pod = {
        spec: {
          template: { spec: { volumes: unknown; containers: Array<{ args: string[]; volumeMounts: unknown }> } };
        };
      };
      const cd = find(chart, 'Deployment', 'pacer-controller') as unknown as Pod;
      const kd = find(kust, 'Deployment', 'pacer-controller') as unknown as Pod;
      // Kustomize's patch puts the webhook's volume first, the chart after: the same set.
      const byName = (l: unknown) => [...(l as Array<{ name: string }>)].sort((a, b) => a.name.localeCompare(b.name));
      expect(byName(cd.spec.template.spec.volumes)).to.deep.equal(byName(kd.spec.template.spec.volumes));
      expect(byName(cd.spec.template.spec.containers[0].volumeMounts)).to.deep.equal(
        byName(kd.spec.template.spec.containers[0].volumeMounts),
      );
      expect(cd.spec.template.spec.containers[0].args).to.include.members(kd.spec.template.spec.containers[0].args);
    });

    it('webhook.certificate=self-signed: a TLS Secret whose CA signed its certificate, that CA in both webhooks, no cert-manager', () => {
      const chart = template(['webhook.enabled=true', 'webhook.certificate=self-signed']);
      expect(chart.map((o) => o.kind)).to.not.include.members(['Certificate', 'Issuer']);
      const secret = find(chart, 'Secret', 'pacer-webhook-tls') as K8sObject & { data: Record<string, string> };
      const vwc = find(chart, 'ValidatingWebhookConfiguration', 'pacer-locks') as K8sObject & {
        webhooks: Array<{ clientConfig: { caBundle?: string } }>;
      };
      expect(vwc.metadata.annotations).to.equal(undefined);
      expect(vwc.webhooks.map((w) => w.clientConfig.caBundle)).to.deep.equal([
        secret.data['ca.crt'],
        secret.data['ca.crt'],
      ]);
      const dir = mkdtempSync(join(tmpdir(), 'pacer-chart-cert-'));
      try {
        for (const f of ['ca.crt', 'tls.crt', 'tls.key'])
          writeFileSync(join(dir, f), Buffer.from(secret.data[f], 'base64'));
        const ca = new X509Certificate(readFileSync(join(dir, 'ca.crt')));
        const crt = new X509Certificate(readFileSync(join(dir, 'tls.crt')));
        expect(crt.verify(ca.publicKey), 'tls.crt signed by ca.crt').to.equal(true);
        expect(crt.checkPrivateKey(createPrivateKey(readFileSync(join(dir, 'tls.key'))))).to.equal(true);
        expect(crt.subjectAltName).to.equal(
          'DNS:pacer-webhook.pacer-system.svc, DNS:pacer-webhook.pacer-system.svc.cluster.local',
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('an unknown webhook.certificate is refused, showing the value given', () => {
      const r = run('helm', [
        'template',
        'pacer',
        CHART,
        '--set',
        'webhook.enabled=true',
        '--set',
        'webhook.certificate=vault',
      ]);
      expect(r.code).to.not.equal(0);
      expect(r.stderr).to.contain('webhook.certificate must be cert-manager or self-signed, got "vault"');
    });

    it("monitoring on: manifests/monitoring/'s ServiceMonitor, alerts, metrics reader and dashboard", () => {
      const chart = template([
        'monitoring.serviceMonitor.enabled=true,monitoring.prometheusRule.enabled=true,monitoring.metricsReader.enabled=true,monitoring.grafanaDashboard.enabled=true',
      ]);
      const kust = kustomize('monitoring');
      for (const [kind, name, field] of [
        ['ServiceMonitor', 'pacer-controller', 'spec'],
        ['PrometheusRule', 'pacer', 'spec'],
        ['ClusterRole', 'pacer-metrics-reader', 'rules'],
        ['ConfigMap', 'pacer-grafana-dashboard', 'data'],
      ])
        expect(find(chart, kind, name)[field], `${kind} ${name}`).to.deep.equal(find(kust, kind, name)[field]);
      expect(find(chart, 'ConfigMap', 'pacer-grafana-dashboard').metadata.labels?.grafana_dashboard).to.equal('1');
    });

    it("dashboard.enabled: manifests/dashboard/'s ServiceAccount, RBAC (the same grants), Deployment and Service; off by default", () => {
      const isDashboard = (o: K8sObject) => o.metadata.labels?.['app.kubernetes.io/component'] === 'dashboard';
      expect(template().filter(isDashboard)).to.deep.equal([]);
      const chart = template(['dashboard.enabled=true']).filter(isDashboard);
      const kust = kustomize('dashboard');
      expect(chart.map(key).sort()).to.deep.equal(kust.map(key).sort());
      expect(grants(chart)).to.deep.equal(grants(kust));
      // The comparison can fail: a verb more is seen.
      const more = template(['dashboard.enabled=true']).filter(isDashboard);
      (find(more, 'ClusterRole', 'pacer-dashboard').rules as Array<{ verbs: string[] }>)[0].verbs.push('delete');
      expect(grants(more)).to.not.deep.equal(grants(kust));
      type Pod = {
        spec: { template: { spec: Record<string, unknown> & { containers: Array<Record<string, unknown>> } } };
      };
      const c = (find(chart, 'Deployment', 'pacer-dashboard') as unknown as Pod).spec.template.spec;
      const k = (find(kust, 'Deployment', 'pacer-dashboard') as unknown as Pod).spec.template.spec;
      for (const f of ['serviceAccountName', 'securityContext', 'volumes']) expect(c[f], f).to.deep.equal(k[f]);
      for (const f of [
        'securityContext',
        'readinessProbe',
        'livenessProbe',
        'resources',
        'ports',
        'volumeMounts',
        'env',
        'args',
      ])
        expect(c.containers[0][f], `containers[0].${f}`).to.deep.equal(k.containers[0][f]);
      expect(find(chart, 'Service', 'pacer-dashboard').spec).to.deep.equal(
        find(kust, 'Service', 'pacer-dashboard').spec,
      );
      const ro = find(template(['dashboard.enabled=true', 'dashboard.readOnly=true']), 'Deployment', 'pacer-dashboard');
      expect((ro as unknown as Pod).spec.template.spec.containers[0].args).to.include('--read-only');
    });

    it("the chart's copies are manifests/' files, byte for byte (cp them again after a change)", () => {
      for (const [copy, original] of [
        ['files/rbac.yaml', 'manifests/base/rbac.yaml'],
        ['files/dashboard-rbac.yaml', 'manifests/dashboard/rbac.yaml'],
        ['files/user-roles.yaml', 'manifests/base/user-roles.yaml'],
        ['files/dashboard.json', 'manifests/monitoring/dashboards/pacer.json'],
      ])
        expect(
          readFileSync(join(CHART, copy), 'utf8'),
          `charts/pacer/${copy}: cp ${original} charts/pacer/${copy}`,
        ).to.equal(readFileSync(join(ROOT, original), 'utf8'));
    });

    it("the chart's crds/ are crds/, byte for byte (cp crds/*.yaml charts/pacer/crds/ after a change)", () => {
      const files = readdirSync(join(ROOT, 'crds')).filter((f) => f.endsWith('.pacer.dev.yaml'));
      expect(readdirSync(join(CHART, 'crds')).sort()).to.deep.equal(files.sort());
      for (const f of files)
        expect(readFileSync(join(CHART, 'crds', f), 'utf8'), f).to.equal(readFileSync(join(ROOT, 'crds', f), 'utf8'));
    });
  });
});
