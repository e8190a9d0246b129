// Pacer's pod-template-hash against kube-controller-manager's, row by row.
//
// test/fixtures/podtemplate-hash/corpus.json: templates as written, each with the hash that
// upstream's ComputeHash gives for the Go value kube-controller-manager's informer would decode
// from it, recorded by hack/gotypes (`go run ./cmd/podtemplate-hash -record`, see its README.md).
// test/fixtures/podtemplate-hash/kube-controller-manager.json: the same templates applied to the real
// control plane (kube-bed, v1.36.4) as apps/v1 Deployments, read back as the API server returns them
// (defaulted), with the pod-template-hash label kube-controller-manager gave their ReplicaSet.
// test/integration/hash-upstream.test.ts runs the Go program on both again to check the records.

import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import type { PodTemplateSpec } from '../../../../src/api/types.ts';
import { computeHash, templateHashOf } from '../../../../src/engine/kubernetes/hash.ts';

interface Row {
  name: string;
  collisionCount?: number;
  hash: string;
  template: PodTemplateSpec;
}

const load = (file: string): Row[] =>
  JSON.parse(readFileSync(new URL(`../../../fixtures/podtemplate-hash/${file}`, import.meta.url), 'utf8'));

describe('engine/hash equals kube-controller-manager pod-template-hash', () => {
  for (const [file, what] of [
    ['corpus.json', "upstream's ComputeHash (recorded by hack/gotypes)"],
    ['kube-controller-manager.json', 'kube-controller-manager on the real control plane, defaulted templates'],
  ]) {
    describe(what, () => {
      for (const row of load(file)) {
        const cc = row.collisionCount === undefined ? '' : `, collisionCount ${row.collisionCount}`;
        it(`${row.name}${cc} → ${row.hash}`, () => {
          expect(computeHash(row.template, row.collisionCount)).to.equal(row.hash);
          expect(templateHashOf(structuredClone(row.template), row.collisionCount)).to.equal(row.hash);
        });
      }
    });
  }
});
