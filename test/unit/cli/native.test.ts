// Native mode's pieces that need no cluster (src/cli/native.ts, src/cli/controller.ts,
// src/engine/kubernetes/status.ts and claim.ts, src/kube/client.ts): the --deployments flag, who
// wrote the probe's status, the refusal's words, and what the engine writes differently for an
// apps/v1 Deployment (its owner references' apiVersion; no `ready` or `selector` in status).

import { expect } from 'chai';
import type { Deployment } from '../../../src/api/types.ts';
import { CliError, parseDeploymentKinds } from '../../../src/cli/controller.ts';
import { isPacer, refusal, statusWriter } from '../../../src/cli/native.ts';
import { decide } from '../../../src/engine/decide.ts';
import { APPS_DEPLOYMENTS, DEPLOYMENTS, KubeClient } from '../../../src/kube/client.ts';
import { loadKubeConfig } from '../../../src/kube/clientnode.ts';
import { deployment } from '../engine/fixtures.ts';
import { otherStatusWriter, standDownMessage } from '../../../src/controllers/deployment/nativeguard.ts';

describe('native mode: apps/v1 Deployments', () => {
  it('--deployments: pacer, or apps,pacer (either order, spaces allowed); anything else is refused with the value', () => {
    expect(parseDeploymentKinds('pacer')).to.deep.equal(['pacer']);
    expect(parseDeploymentKinds('pacer, apps')).to.deep.equal(['pacer', 'apps']);
    for (const [v, msg] of [
      ['apps,pods', '--deployments: must be pacer or apps,pacer, got "apps,pods"'],
      ['', '--deployments: must be pacer or apps,pacer, got ""'],
      ['apps', `--deployments: native mode runs beside Pacer's own kind for now: use apps,pacer, got "apps"`],
    ]) {
      expect(() => parseDeploymentKinds(v)).to.throw(CliError, msg);
    }
  });

  it("the probe's status writer: none before observedGeneration 1; else the manager of the status entry", () => {
    const probe = (observed: number, managers: Array<{ manager: string; subresource?: string }>): Deployment =>
      ({
        metadata: { name: 'p', managedFields: managers },
        spec: {},
        status: observed > 0 ? { observedGeneration: observed } : {},
      }) as unknown as Deployment;
    expect(statusWriter(probe(0, [{ manager: 'kube-controller-manager', subresource: 'status' }]))).to.equal(undefined);
    expect(
      statusWriter(probe(1, [{ manager: 'pacer' }, { manager: 'kube-controller-manager', subresource: 'status' }])),
    ).to.equal('kube-controller-manager');
    expect(statusWriter(probe(1, []))).to.equal('an unknown controller');
    expect(isPacer('pacer-controller')).to.equal(true);
    expect(isPacer('kube-controller-manager')).to.equal(false);
    expect(refusal('kube-controller-manager', 'pacer-system')).to.equal(
      'native mode refused: another Deployment controller (kube-controller-manager) controls apps/v1 Deployments: it observed the probe Deployment Pacer created in namespace pacer-system. Start kube-controller-manager with --controllers=*,-deployment-controller (docs/native.md says where the flag goes for kubeadm, k3s and kind), or run Pacer without --deployments apps',
    );
  });

  it("an apps/v1 Deployment's pass: ReplicaSets owned as apps/v1, status without Pacer's ready and selector", () => {
    const pacer = deployment({ replicas: 2 });
    const apps: Deployment = { ...deployment({ replicas: 2 }), apiVersion: 'apps/v1' };
    const created = (d: Deployment) => {
      const dec = decide({ deployment: d, replicaSets: [], pods: [], now: Date.parse('2025-03-01T10:00:00Z') });
      const create = dec.actions.find((a) => a.verb === 'create');
      return { owner: create?.verb === 'create' ? create.object.metadata.ownerReferences?.[0] : undefined, dec };
    };
    expect(created(pacer).owner?.apiVersion).to.equal('pacer.dev/v1alpha1');
    expect(created(pacer).dec.status).to.include.keys('ready', 'selector');
    const native = created(apps);
    expect(native.owner).to.include({ apiVersion: 'apps/v1', kind: 'Deployment', controller: true });
    expect(native.dec.status).to.not.have.any.keys('ready', 'selector', 'stableRS', 'abortedRS');
    expect(native.dec.status).to.include({ replicas: 0, updatedReplicas: 0 });
  });

  it("the client's Deployment methods on apps/v1: a view sharing everything else", () => {
    const kc = loadKubeConfig({
      kubeconfigText:
        'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\nusers: [{name: u, user: {token: t}}]\n',
    });
    const client = new KubeClient(kc);
    const view = client.forDeployments(APPS_DEPLOYMENTS);
    expect(client.deploymentType).to.equal(DEPLOYMENTS);
    expect(view.deploymentType).to.equal(APPS_DEPLOYMENTS);
    expect(view.server).to.equal(client.server);
    expect(client.forDeployments(DEPLOYMENTS)).to.equal(client);
  });

  it('after the start: a status written by another manager at or after the second Pacer started stands it down', () => {
    const start = Date.parse('2026-11-27T10:00:00.400Z');
    const d = (entries: Array<{ manager: string; subresource?: string; time: string }>): Deployment =>
      ({ metadata: { name: 'web', namespace: 'shop', managedFields: entries }, spec: {} }) as unknown as Deployment;
    const rows: Array<[string, Deployment, string | undefined]> = [
      [
        'before Pacer started',
        d([{ manager: 'kube-controller-manager', subresource: 'status', time: '2026-11-27T09:59:59Z' }]),
        undefined,
      ],
      [
        'in the second Pacer started',
        d([{ manager: 'kube-controller-manager', subresource: 'status', time: '2026-11-27T10:00:00Z' }]),
        'kube-controller-manager',
      ],
      [
        'Pacer itself (another replica)',
        d([{ manager: 'pacer-controller', subresource: 'status', time: '2026-11-27T10:05:00Z' }]),
        undefined,
      ],
      [
        'a spec write, not status',
        d([{ manager: 'kube-controller-manager', time: '2026-11-27T10:05:00Z' }]),
        undefined,
      ],
      // Upstream's own e2e spec "should validate Deployment Status endpoints" writes status as e2e.test.
      [
        'another client writing status',
        d([{ manager: 'e2e.test', subresource: 'status', time: '2026-11-27T10:05:00Z' }]),
        undefined,
      ],
    ];
    for (const [name, x, want] of rows) expect(otherStatusWriter(x, start), name).to.equal(want);
    expect(standDownMessage('kube-controller-manager', rows[1][1])).to.equal(
      'native mode stopped: another Deployment controller (kube-controller-manager) wrote the status of deployment shop/web after Pacer started; Pacer writes no apps/v1 Deployment until it is restarted. Start kube-controller-manager with --controllers=*,-deployment-controller (docs/native.md), then restart Pacer',
    );
  });
});
