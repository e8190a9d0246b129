// Golden pod-template-hash values. DO NOT UPDATE THESE LITERALS TO MAKE THE TEST PASS.
//
// The pod-template-hash names a Deployment's ReplicaSets (`<deployment>-<hash>`) and labels them.
// Pacer computes it exactly as kube-controller-manager does (src/engine/kubernetes/spew.ts), so
// that a native Deployment's ReplicaSets are named as upstream's controller names them. The values
// below are upstream's: printed by `go run ./cmd/podtemplate-hash` in hack/gotypes (the ten lines
// of ComputeHash over go-spew), for the templates written out here. If this test fails, the change
// to src/engine/kubernetes/hash.ts, spew.ts or goquantity.ts (or to what is fed into them) is the
// bug, not the test. The templates are written out in full, not taken from shared fixtures, so
// that editing a fixture cannot move them.
//
// The hash did change once, on purpose: before, Pacer hashed canonical JSON. An upgrade across
// that change does not roll anything out, because a Deployment's current ReplicaSet is found by
// template equality as well as by hash (replicasets.ts, findNewReplicaSet); the last test here
// keeps that so.

import { expect } from 'chai';
import type { Deployment, PodTemplateSpec } from '../../../../src/api/types.ts';
import {
  POD_TEMPLATE_HASH_LABEL,
  computeHash,
  replicaSetName,
  templateHashOf,
} from '../../../../src/engine/kubernetes/hash.ts';
import { buildNewReplicaSet, templateHash } from '../../../../src/engine/kubernetes/newreplicaset.ts';
import { decide } from '../../../../src/engine/decide.ts';
import type { CreateAction } from '../../../../src/engine/types.ts';

const NOW = Date.parse('2025-03-01T10:00:00.000Z');

/** The smallest useful template: one label, one container. */
const MINIMAL: PodTemplateSpec = {
  metadata: { labels: { app: 'web' } },
  spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
};

/** Several containers, env, ports, resources, annotations and a pod-level field. */
const RICH: PodTemplateSpec = {
  metadata: { labels: { app: 'shop', tier: 'backend' }, annotations: { 'prometheus.io/scrape': 'true' } },
  spec: {
    containers: [
      {
        name: 'api',
        image: 'registry.example.com/shop/api:2.4.1',
        args: ['--port=8080', '--verbose'],
        env: [
          { name: 'DB_HOST', value: 'db.shop.svc' },
          { name: 'LOG_LEVEL', value: 'info' },
        ],
        ports: [
          { name: 'http', containerPort: 8080, protocol: 'TCP' },
          { name: 'metrics', containerPort: 9090 },
        ],
        resources: { requests: { cpu: '250m', memory: '128Mi' }, limits: { memory: '256Mi' } },
      },
      { name: 'sidecar', image: 'envoyproxy/envoy:v1.30', ports: [{ containerPort: 15001 }] },
    ],
    terminationGracePeriodSeconds: 45,
  },
};

interface Golden {
  name: string;
  deployment: string;
  template: PodTemplateSpec;
  collisionCount?: number;
  hash: string;
}

const GOLDEN: Golden[] = [
  { name: 'minimal', deployment: 'web', template: MINIMAL, hash: '5547cb94' },
  { name: 'minimal, collisionCount 0', deployment: 'web', template: MINIMAL, collisionCount: 0, hash: '75698bb574' },
  { name: 'minimal, collisionCount 1', deployment: 'web', template: MINIMAL, collisionCount: 1, hash: '7fc5b56bc' },
  { name: 'several containers, env and ports', deployment: 'shop-api', template: RICH, hash: '5fd9bf9df8' },
  {
    name: 'several containers, collisionCount 2',
    deployment: 'shop-api',
    template: RICH,
    collisionCount: 2,
    hash: '5df5b9578d',
  },
];

function deploymentOf(g: Golden): Deployment {
  return {
    apiVersion: 'pacer.dev/v1alpha1',
    kind: 'Deployment',
    metadata: {
      name: g.deployment,
      namespace: 'default',
      uid: `uid-${g.deployment}`,
      generation: 1,
      creationTimestamp: new Date(NOW - 3600_000).toISOString(),
    },
    spec: {
      replicas: 2,
      selector: { matchLabels: { ...g.template.metadata!.labels } },
      template: structuredClone(g.template),
    },
    ...(g.collisionCount !== undefined ? { status: { collisionCount: g.collisionCount } } : {}),
  };
}

describe("engine/hash golden values (kube-controller-manager's; must never change)", () => {
  for (const g of GOLDEN) {
    describe(g.name, () => {
      it(`hashes to ${g.hash}`, () => {
        expect(computeHash(structuredClone(g.template), g.collisionCount)).to.equal(g.hash);
        expect(templateHashOf(structuredClone(g.template), g.collisionCount)).to.equal(g.hash);
        expect(templateHash(deploymentOf(g), g.collisionCount)).to.equal(g.hash);
      });

      it(`names its ReplicaSet ${g.deployment}-${g.hash}`, () => {
        expect(replicaSetName(g.deployment, g.hash)).to.equal(`${g.deployment}-${g.hash}`);
        const rs = buildNewReplicaSet(deploymentOf(g), g.hash, NOW);
        expect(rs.metadata.name).to.equal(`${g.deployment}-${g.hash}`);
        expect(rs.metadata.labels?.[POD_TEMPLATE_HASH_LABEL]).to.equal(g.hash);
      });

      it('is what a reconcile pass creates for a new Deployment (defaults applied, status read)', () => {
        const decision = decide({ deployment: deploymentOf(g), replicaSets: [], pods: [], now: NOW });
        const create = decision.actions.find((a): a is CreateAction => a.verb === 'create');
        expect(create, 'the pass creates a ReplicaSet').to.not.equal(undefined);
        expect(create!.name).to.equal(`${g.deployment}-${g.hash}`);
        expect(create!.object.metadata.labels?.[POD_TEMPLATE_HASH_LABEL]).to.equal(g.hash);
        expect(create!.object.spec.selector.matchLabels?.[POD_TEMPLATE_HASH_LABEL]).to.equal(g.hash);
        expect(create!.object.spec.template?.metadata?.labels?.[POD_TEMPLATE_HASH_LABEL]).to.equal(g.hash);
      });
    });
  }

  it('does not depend on the key order the template was written in', () => {
    const reordered = {
      spec: {
        terminationGracePeriodSeconds: 45,
        containers: (RICH.spec!.containers as object[]).map((c) => Object.fromEntries(Object.entries(c).reverse())),
      },
      metadata: { annotations: RICH.metadata!.annotations, labels: { tier: 'backend', app: 'shop' } },
    } as PodTemplateSpec;
    expect(computeHash(reordered)).to.equal('5fd9bf9df8');
  });

  it("finds a ReplicaSet named by the hash Pacer used before upstream's, and creates none (an upgrade rolls nothing out)", () => {
    // What Pacer's canonical-JSON hash named the minimal template's ReplicaSet before.
    const before = '6c8d7489d5';
    const g = GOLDEN[0];
    const d = deploymentOf(g);
    const rs = buildNewReplicaSet(d, before, NOW - 3000_000);
    rs.spec.replicas = 2;
    rs.metadata.annotations = { 'deployment.kubernetes.io/revision': '1' };
    rs.status = { replicas: 2, readyReplicas: 2, availableReplicas: 2, fullyLabeledReplicas: 2, observedGeneration: 1 };
    expect(templateHash(d, undefined)).to.not.equal(before);
    const decision = decide({ deployment: d, replicaSets: [rs], pods: [], now: NOW });
    expect(decision.actions.filter((a) => a.verb === 'create' || a.verb === 'delete')).to.deep.equal([]);
    expect(decision.status?.updatedReplicas).to.equal(2);
  });
});
