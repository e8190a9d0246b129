// The install manifests (kustomize base in manifests/, the CRD base in crds/), the Dockerfile and
// .dockerignore: they parse, and they hold what a least-privilege, non-root install needs.

import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { KUBECTL_HOW, requireTool } from '../../fixtures/tools.ts';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const read = (p: string): string => readFileSync(join(repo, p), 'utf8');

type Obj = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [k: string]: any;
};

function documents(p: string): Obj[] {
  return parseAllDocuments(read(p)).map((doc) => {
    expect(doc.errors, `${p}: ${doc.errors.join('; ')}`).to.deep.equal([]);
    return doc.toJS() as Obj;
  });
}

const kustomization = parseYaml(read('manifests/base/kustomization.yaml'));
const objects: Obj[] = (kustomization.resources as string[])
  .filter((r) => r.endsWith('.yaml'))
  .flatMap((r) => documents(`manifests/base/${r}`));
/** Pacer's resources in Kubernetes' view and edit roles (user-roles.yaml): bound to nobody. */
const isUserRole = (o: Obj): boolean =>
  Object.keys(o.metadata.labels ?? {}).some((k) => k.startsWith('rbac.authorization.k8s.io/aggregate-to-'));
/** The one object of `kind` of the controller's install (the user roles aside). */
const find = (kind: string): Obj => {
  const found = objects.filter((o) => o.kind === kind && !isUserRole(o));
  expect(found, kind).to.have.length(1);
  return found[0];
};

describe('manifests/: the kustomize base', () => {
  it('puts everything into pacer-system and includes the CRD base; manifests/ installs the base', () => {
    expect(parseYaml(read('manifests/kustomization.yaml')).resources).to.deep.equal(['base']);
    expect(kustomization.kind).to.equal('Kustomization');
    expect(kustomization.namespace).to.equal('pacer-system');
    expect(kustomization.resources).to.include('../../crds');
    for (const r of kustomization.resources as string[])
      expect(existsSync(join(repo, 'manifests', 'base', r)), r).to.equal(true);
    const crds = parseYaml(read('crds/Kustomization'));
    expect(crds.resources).to.deep.equal([
      'deployments.pacer.dev.yaml',
      'plans.pacer.dev.yaml',
      'noderolls.pacer.dev.yaml',
      'analysistemplates.pacer.dev.yaml',
      'clusteranalysistemplates.pacer.dev.yaml',
      'analysisruns.pacer.dev.yaml',
    ]);
    for (const r of crds.resources as string[]) expect(existsSync(join(repo, 'crds', r)), r).to.equal(true);
  });

  it('holds a Namespace, ServiceAccount, ClusterRole, Role (leases), their bindings, Deployment, PodDisruptionBudget, Service and NetworkPolicy, and the two user roles', () => {
    expect(objects.map((o) => o.kind).sort()).to.deep.equal([
      'ClusterRole',
      'ClusterRole',
      'ClusterRole',
      'ClusterRoleBinding',
      'Deployment',
      'Namespace',
      'NetworkPolicy',
      'PodDisruptionBudget',
      'Role',
      'RoleBinding',
      'Service',
      'ServiceAccount',
    ]);
    expect(find('Namespace').metadata.name).to.equal('pacer-system');
    expect(find('ServiceAccount').metadata).to.include({ name: 'pacer-controller', namespace: 'pacer-system' });
  });

  it("binds the roles to the controller's ServiceAccount", () => {
    for (const [bindingKind, roleKind] of [
      ['ClusterRoleBinding', 'ClusterRole'],
      ['RoleBinding', 'Role'],
    ]) {
      const binding = find(bindingKind!);
      expect(binding.roleRef, bindingKind).to.deep.equal({
        apiGroup: 'rbac.authorization.k8s.io',
        kind: roleKind,
        name: find(roleKind!).metadata.name,
      });
      expect(binding.subjects, bindingKind).to.deep.equal([
        { kind: 'ServiceAccount', name: 'pacer-controller', namespace: 'pacer-system' },
      ]);
    }
  });

  it('leases, the freeze switch and the default windows only through a Role in pacer-system, where they live: the Lease written and watched (listed, and a dead member deleted, when sharded), two ConfigMaps by name only read', () => {
    const role = find('Role');
    expect(role.metadata.namespace).to.equal('pacer-system');
    expect(role.rules).to.deep.equal([
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update', 'watch'] },
      // --shards above 1 (docs/sharding.md): the ring's Leases listed, a killed member's deleted.
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['list', 'delete'] },
      {
        apiGroups: [''],
        resources: ['configmaps'],
        resourceNames: ['pacer-freeze', 'pacer-maintenance-windows'],
        verbs: ['list', 'watch'],
      },
    ]);
  });

  describe("Pacer's resources in Kubernetes' view and edit roles (user-roles.yaml)", () => {
    const roles = objects.filter(isUserRole);
    const role = (name: string) => roles.find((o) => o.metadata.name === name)!;
    type Rule = { apiGroups: string[]; resources: string[]; verbs: string[] };
    const grants = (name: string) =>
      (role(name).rules as Rule[]).flatMap((r) =>
        r.apiGroups.flatMap((g) => r.resources.flatMap((res) => r.verbs.map((v) => `${v} ${g}/${res}`))),
      );
    /** Every namespaced pacer.dev resource the CRDs define, with the subresources they serve. */
    const namespaced = readdirSync(join(repo, 'crds'))
      .filter((f) => f.endsWith('.pacer.dev.yaml'))
      .map((f) => parseYaml(read(`crds/${f}`)))
      .filter((crd) => crd.spec.scope === 'Namespaced')
      .map((crd) => ({
        plural: crd.spec.names.plural as string,
        subresources: Object.keys(
          (crd.spec.versions as Array<{ subresources?: Record<string, unknown> }>)[0].subresources ?? {},
        ),
      }));

    it('two ClusterRoles, aggregated into view and into edit, and bound to nobody', () => {
      expect(roles.map((o) => [o.kind, o.metadata.name, o.metadata.labels])).to.deep.equal([
        [
          'ClusterRole',
          'pacer-aggregate-to-view',
          { 'app.kubernetes.io/name': 'pacer', 'rbac.authorization.k8s.io/aggregate-to-view': 'true' },
        ],
        [
          'ClusterRole',
          'pacer-aggregate-to-edit',
          { 'app.kubernetes.io/name': 'pacer', 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' },
        ],
      ]);
      const bound = objects.filter((o) => o.kind.endsWith('Binding')).map((o) => o.roleRef.name);
      expect(bound).to.not.include.members(['pacer-aggregate-to-view', 'pacer-aggregate-to-edit']);
    });

    it('view reads every namespaced Pacer resource and its subresources, and nothing else', () => {
      const want = namespaced.flatMap(({ plural, subresources }) =>
        [plural, ...subresources.map((s) => `${plural}/${s}`)].flatMap((r) =>
          ['get', 'list', 'watch'].map((v) => `${v} pacer.dev/${r}`),
        ),
      );
      expect(grants('pacer-aggregate-to-view').sort()).to.deep.equal(want.sort());
    });

    it("edit changes every namespaced Pacer resource (and a Deployment's scale) as edit changes apps/v1 Deployments, never a status", () => {
      const want = namespaced.flatMap(({ plural, subresources }) =>
        [plural, ...subresources.filter((s) => s !== 'status').map((s) => `${plural}/${s}`)].flatMap((r) =>
          ['create', 'delete', 'deletecollection', 'patch', 'update'].map((v) => `${v} pacer.dev/${r}`),
        ),
      );
      expect(grants('pacer-aggregate-to-edit').sort()).to.deep.equal(want.sort());
    });
  });

  // Which verbs the role needs is proven from recorded requests in test/integration/rbac.test.ts;
  // here only what must hold whatever the controller does.
  describe('the ClusterRole stays narrow', () => {
    const rules: Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }> = find('ClusterRole').rules;
    const allowed = (group: string, resource: string, verb: string): boolean =>
      rules.some((r) => r.apiGroups.includes(group) && r.resources.includes(resource) && r.verbs.includes(verb));
    it('no wildcards', () => {
      expect(JSON.stringify(rules)).not.to.include('*');
    });
    it("nothing outside its own resources, ReplicaSets, pods, nodes, events, the reviews, analysis's Secrets and Jobs, and the node groups (leases: the namespaced Role)", () => {
      const resources = new Set(
        rules.flatMap((r) => r.apiGroups.flatMap((g) => r.resources.map((res) => `${g}/${res}`))),
      );
      expect([...resources].sort()).to.deep.equal([
        '/events',
        '/nodes',
        '/pods',
        '/pods/eviction',
        '/secrets',
        'apps/replicasets',
        'authentication.k8s.io/tokenreviews',
        'authorization.k8s.io/subjectaccessreviews',
        'batch/jobs',
        'cluster.x-k8s.io/machinedeployments',
        'cluster.x-k8s.io/machines',
        'cluster.x-k8s.io/machinesets',
        'pacer.dev/analysisruns',
        'pacer.dev/analysisruns/status',
        'pacer.dev/analysistemplates',
        'pacer.dev/clusteranalysistemplates',
        'pacer.dev/deployments',
        'pacer.dev/deployments/status',
        'pacer.dev/noderolls',
        'pacer.dev/noderolls/status',
        'pacer.dev/plans',
        'pacer.dev/plans/status',
        'sim.pacer.dev/nodegroups',
      ]);
    });
    it('analysis: templates only listed and watched; runs made and terminated, their status through the subresource; Secrets read one by one (never listed or watched); Jobs made, read by name and deleted, never listed, watched or changed', () => {
      const verbs = (group: string, resource: string): string[] =>
        ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'].filter((v) =>
          allowed(group, resource, v),
        );
      expect(verbs('pacer.dev', 'analysistemplates')).to.deep.equal(['list', 'watch']);
      expect(verbs('pacer.dev', 'clusteranalysistemplates')).to.deep.equal(['list', 'watch']);
      expect(verbs('pacer.dev', 'analysisruns')).to.deep.equal(['list', 'watch', 'create', 'patch']);
      expect(verbs('pacer.dev', 'analysisruns/status')).to.deep.equal(['update']);
      expect(verbs('', 'secrets')).to.deep.equal(['get']);
      expect(verbs('batch', 'jobs')).to.deep.equal(['get', 'create', 'delete']);
    });
    it("pods are only read, deleted one by one (a plan step's restart over the HTTP API) and evicted (a node roll's drain): no create, update or collection delete", () => {
      for (const v of ['create', 'update', 'patch', 'deletecollection'])
        expect(allowed('', 'pods', v), v).to.equal(false);
      expect(allowed('', 'pods', 'delete')).to.equal(true);
      expect(allowed('', 'pods/eviction', 'create')).to.equal(true);
    });
  });

  describe('the controller Deployment', () => {
    const d = find('Deployment');
    const pod = d.spec.template.spec;
    const c = pod.containers[0];

    it('runs pacer:latest as `controller` with the metrics and health addresses', () => {
      expect(pod.containers).to.have.length(1);
      expect(c.image).to.equal('pacer:latest');
      expect(c.args).to.deep.equal([
        'controller',
        '--leader-elect=true',
        '--metrics-bind-address=:8443',
        '--metrics-secure=true',
        '--health-probe-bind-address=:8081',
        '--api-bind-address=:8082',
        '--webhook-bind-address=0',
      ]);
      expect(pod.serviceAccountName).to.equal('pacer-controller');
      expect(d.metadata.namespace).to.equal('pacer-system');
    });

    it('two replicas, one leader: rolled one at a time, spread over nodes, a PodDisruptionBudget of one', () => {
      expect(d.spec.replicas).to.equal(2);
      expect(d.spec.strategy).to.deep.equal({
        type: 'RollingUpdate',
        rollingUpdate: { maxSurge: 1, maxUnavailable: 0 },
      });
      const term = pod.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm;
      expect(term.topologyKey).to.equal('kubernetes.io/hostname');
      expect(term.labelSelector.matchLabels).to.deep.equal(d.spec.selector.matchLabels);
      const pdb = find('PodDisruptionBudget');
      expect(pdb.spec.maxUnavailable).to.equal(1);
      expect(pdb.spec.selector.matchLabels).to.deep.equal(d.spec.selector.matchLabels);
    });

    it('selects its own pod template', () => {
      const labels = d.spec.template.metadata.labels;
      for (const [k, v] of Object.entries(d.spec.selector.matchLabels)) expect(labels[k], k).to.equal(v);
    });

    it('runs as non-root, read-only, without privilege escalation or capabilities', () => {
      expect(pod.securityContext.runAsNonRoot).to.equal(true);
      expect(pod.securityContext.runAsUser).to.be.a('number').and.above(0);
      expect(pod.securityContext.seccompProfile).to.deep.equal({ type: 'RuntimeDefault' });
      expect(c.securityContext).to.deep.include({
        runAsNonRoot: true,
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
      });
      expect(c.securityContext.capabilities).to.deep.equal({ drop: ['ALL'] });
    });

    it('requests and limits cpu and memory', () => {
      expect(c.resources.requests).to.have.all.keys('cpu', 'memory');
      expect(c.resources.limits).to.include.keys('memory');
    });

    it('probes liveness on /healthz and readiness on /readyz, on the health port 8081', () => {
      const health = c.ports.find((p: { name: string }) => p.name === c.livenessProbe.httpGet.port);
      expect(health.containerPort).to.equal(8081);
      expect(c.livenessProbe.httpGet.path).to.equal('/healthz');
      expect(c.readinessProbe.httpGet).to.deep.equal({ path: '/readyz', port: c.livenessProbe.httpGet.port });
    });

    it('exposes metrics on 8443 and the views on 8082 through a Service that selects its pods', () => {
      const svc = find('Service');
      expect(svc.spec.ports).to.deep.equal([
        { name: 'metrics', port: 8443, targetPort: 'metrics', protocol: 'TCP' },
        { name: 'api', port: 8082, targetPort: 'api', protocol: 'TCP' },
      ]);
      expect(c.ports.find((p: { name: string }) => p.name === 'api').containerPort).to.equal(8082);
      expect(c.ports.find((p: { name: string }) => p.name === 'metrics').containerPort).to.equal(8443);
      for (const [k, v] of Object.entries(svc.spec.selector)) expect(d.spec.template.metadata.labels[k], k).to.equal(v);
    });
  });

  it("a NetworkPolicy selects the controller's pods and admits only metrics (8443), the webhook (9443) and the views (8082), each from labelled namespaces", () => {
    const np = find('NetworkPolicy');
    const d = find('Deployment');
    for (const [k, v] of Object.entries(np.spec.podSelector.matchLabels as Record<string, string>))
      expect(d.spec.template.metadata.labels[k], k).to.equal(v);
    expect(np.spec.policyTypes).to.deep.equal(['Ingress']);
    const rules = (
      np.spec.ingress as Array<{
        from: Array<{ namespaceSelector: { matchLabels: Record<string, string> } }>;
        ports: Array<{ port: number }>;
      }>
    ).map(
      (r) => `${r.ports.map((p) => p.port).join(',')} from ${JSON.stringify(r.from[0].namespaceSelector.matchLabels)}`,
    );
    expect(rules).to.deep.equal([
      '8443 from {"metrics":"enabled"}',
      '9443 from {"webhook":"enabled"}',
      '8082 from {"pacer-api":"enabled"}',
    ]);
    const ports = (d.spec.template.spec.containers[0].ports as Array<{ name: string; containerPort: number }>).map(
      (p) => p.containerPort,
    );
    expect(ports, 'the health port is left to the kubelet').to.include.members([8443, 8081, 8082]);
  });

  it('builds with `kubectl kustomize`', function () {
    requireTool(this, 'kubectl', KUBECTL_HOW);
    const out = execFileSync('kubectl', ['kustomize', join(repo, 'manifests')], { encoding: 'utf8' });
    const built = parseAllDocuments(out).map((doc) => doc.toJS() as Obj);
    expect(built.map((o) => o.kind).sort()).to.deep.equal([
      'ClusterRole',
      'ClusterRole',
      'ClusterRole',
      'ClusterRoleBinding',
      'CustomResourceDefinition',
      'CustomResourceDefinition',
      'CustomResourceDefinition',
      'CustomResourceDefinition',
      'CustomResourceDefinition',
      'CustomResourceDefinition',
      'Deployment',
      'Namespace',
      'NetworkPolicy',
      'PodDisruptionBudget',
      'Role',
      'RoleBinding',
      'Service',
      'ServiceAccount',
    ]);
    for (const o of built.filter((x) =>
      [
        'Deployment',
        'Service',
        'ServiceAccount',
        'PodDisruptionBudget',
        'Role',
        'RoleBinding',
        'NetworkPolicy',
      ].includes(x.kind),
    )) {
      expect(o.metadata.namespace, o.kind).to.equal('pacer-system');
    }
  });

  it("manifests/native/ adds native mode: the flag, and the apps/v1 Deployment grants of upstream's deployment-controller role", function () {
    requireTool(this, 'kubectl', KUBECTL_HOW);
    const out = execFileSync('kubectl', ['kustomize', join(repo, 'manifests', 'native')], { encoding: 'utf8' });
    const built = parseAllDocuments(out).map((doc) => doc.toJS() as Obj);
    const d = built.find((o) => o.kind === 'Deployment')!;
    expect(d.spec.template.spec.containers[0].args).to.include('--deployments=apps,pacer');
    const native = built.find((o) => o.kind === 'ClusterRole' && o.metadata.name === 'pacer-controller-native')!;
    const verbs = (resource: string) =>
      native.rules
        .filter(
          (r: { apiGroups: string[]; resources: string[] }) =>
            r.apiGroups.includes('apps') && r.resources.includes(resource),
        )
        .flatMap((r: { verbs: string[] }) => r.verbs)
        .sort();
    expect(verbs('deployments')).to.deep.equal(['get', 'list', 'patch', 'watch']);
    expect(verbs('deployments/status')).to.deep.equal(['update']);
    expect(verbs('deployments/finalizers')).to.deep.equal(['update']);
    // The probe is created in Pacer's own namespace only: a Role, not a ClusterRole.
    const probe = built.find((o) => o.kind === 'Role' && o.metadata.name === 'pacer-controller-native-probe')!;
    expect(probe.metadata.namespace).to.equal('pacer-system');
    expect(probe.rules[0].verbs.sort()).to.deep.equal(['create', 'delete', 'get']);
    const binding = built.find(
      (o) => o.kind === 'ClusterRoleBinding' && o.metadata.name === 'pacer-controller-native',
    )!;
    expect(binding.subjects).to.deep.equal([
      { kind: 'ServiceAccount', name: 'pacer-controller', namespace: 'pacer-system' },
    ]);
  });

  it("manifests/webhook/ adds the webhooks (the lock, the analysis resources' validation): HTTPS with a cert-manager certificate, failurePolicy Ignore", function () {
    requireTool(this, 'kubectl', KUBECTL_HOW);
    const out = execFileSync('kubectl', ['kustomize', join(repo, 'manifests', 'webhook')], { encoding: 'utf8' });
    const built = parseAllDocuments(out).map((doc) => doc.toJS() as Obj);
    expect(built.map((o) => o.kind).sort()).to.deep.equal([
      'Certificate',
      'ClusterRole',
      'ClusterRole',
      'ClusterRole',
      'ClusterRoleBinding',
      'CustomResourceDefinition',
      'CustomResourceDefinition',
      'CustomResourceDefinition',
      'CustomResourceDefinition',
      'CustomResourceDefinition',
      'CustomResourceDefinition',
      'Deployment',
      'Issuer',
      'Namespace',
      'NetworkPolicy',
      'PodDisruptionBudget',
      'Role',
      'RoleBinding',
      'Service',
      'Service',
      'ServiceAccount',
      'ValidatingWebhookConfiguration',
    ]);
    const d = built.find((o) => o.kind === 'Deployment')!;
    const c = d.spec.template.spec.containers[0];
    expect(c.args).to.include.members(['--webhook-bind-address=:9443', '--webhook-cert-dir=/etc/pacer/webhook']);
    expect(c.volumeMounts.map((m: { mountPath: string }) => m.mountPath)).to.include('/etc/pacer/webhook');
    const secret = d.spec.template.spec.volumes.find((v: { name: string }) => v.name === 'webhook-cert').secret
      .secretName;
    expect(built.find((o) => o.kind === 'Certificate')!.spec.secretName).to.equal(secret);
    const vwc = built.find((o) => o.kind === 'ValidatingWebhookConfiguration')!;
    const hook = vwc.webhooks[0];
    expect([
      hook.name,
      hook.failurePolicy,
      hook.clientConfig.service.name,
      hook.clientConfig.service.path,
    ]).to.deep.equal(['locks.pacer.dev', 'Ignore', 'pacer-webhook', '/validate-pacer-dev-v1alpha1-deployment']);
    const analysis = vwc.webhooks[1];
    expect([
      analysis.name,
      analysis.failurePolicy,
      analysis.clientConfig.service.name,
      analysis.clientConfig.service.path,
    ]).to.deep.equal(['analysis.pacer.dev', 'Ignore', 'pacer-webhook', '/validate-pacer-dev-v1alpha1-analysis']);
    expect(
      (vwc.metadata as { annotations?: Record<string, string> }).annotations?.['cert-manager.io/inject-ca-from'],
    ).to.equal('pacer-system/pacer-webhook');
    const svc = built.find((o) => o.kind === 'Service' && o.metadata.name === 'pacer-webhook')!;
    expect(svc.spec.ports[0].targetPort).to.equal('webhook');
    expect(c.ports.find((p: { name: string }) => p.name === 'webhook').containerPort).to.equal(9443);
  });
});

describe('Dockerfile and .dockerignore', () => {
  const lines = read('Dockerfile')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const instruction = (name: string): string[] =>
    lines.filter((l) => l.startsWith(`${name} `)).map((l) => l.slice(name.length + 1));

  it('builds on node:24-slim with production dependencies only', () => {
    expect(instruction('FROM')).to.deep.equal(['node:24-slim']);
    expect(instruction('RUN').join(' ')).to.match(/npm ci --omit=dev/);
  });

  it('copies bin/, src/ and crds/ (and the lockfile)', () => {
    const copied = instruction('COPY').join(' ');
    for (const p of ['package.json', 'package-lock.json', 'bin/', 'src/', 'crds/']) expect(copied).to.include(p);
  });

  it('runs as the non-root user node, `node bin/pacer.js controller`', () => {
    expect(instruction('USER')).to.deep.equal(['node']);
    expect(lines.indexOf(`USER node`)).to.be.above(
      lines.findLastIndex((l) => l.startsWith('RUN ') || l.startsWith('COPY ')),
    );
    expect(JSON.parse(instruction('ENTRYPOINT')[0])).to.deep.equal(['node', 'bin/pacer.js']);
    expect(JSON.parse(instruction('CMD')[0])).to.deep.equal(['controller']);
  });

  it('keeps node_modules, .git and tests out of the build context', () => {
    const rules = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    expect(rules[0]).to.equal('*');
    const included = rules.filter((r) => r.startsWith('!')).map((r) => r.slice(1));
    expect(included.sort()).to.deep.equal(['bin/', 'crds/', 'package-lock.json', 'package.json', 'src/']);
  });
});
