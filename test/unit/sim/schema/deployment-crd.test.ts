// Cross-check with the real crds/deployments.pacer.dev.yaml and examples/: the CRD must be a valid
// v1 CRD, valid Deployments must pass admission unchanged, invalid ones must fail naming the field.

import { expect } from 'chai';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { parse, parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../../../src/sim/types.ts';
import { compileCRD, defaultCRD, validateCRD } from '../../../../src/sim/schema/crd.ts';
import { admitCustomResource } from '../../../../src/sim/schema/admit.ts';
import { causeString } from '../../../../src/sim/schema/fielderrors.ts';

const root = new URL('../../../../', import.meta.url);
const crdFile = new URL('crds/deployments.pacer.dev.yaml', root);
const opts = { kind: 'Deployment', group: 'pacer.dev' };

function loadCRD(): KubeObject {
  return parse(readFileSync(crdFile, 'utf8')) as KubeObject;
}

function examples(): Array<[string, KubeObject]> {
  const dir = new URL('examples/', root);
  if (!existsSync(dir)) return [];
  const out: Array<[string, KubeObject]> = [];
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.yaml'))) {
    for (const d of parseAllDocuments(readFileSync(new URL(f, dir), 'utf8'))) {
      const o = d.toJS() as KubeObject | null;
      if (o?.kind === 'Deployment' && o.apiVersion === 'pacer.dev/v1alpha1') out.push([f, o]);
    }
  }
  return out;
}

describe('sim/schema: crds/deployments.pacer.dev.yaml', () => {
  it('is a valid v1 CRD', () => {
    const errors = validateCRD(defaultCRD(loadCRD())).map(causeString);
    expect(errors).to.deep.equal([]);
  });

  describe('admission', () => {
    let version: ReturnType<typeof compileCRD>['versions'][number];
    before(() => {
      const crd = loadCRD() as any;
      crd.spec.versions[0].schema.openAPIV3Schema.properties.metadata = { type: 'object' };
      const d = defaultCRD(crd);
      expect(validateCRD(d).map(causeString)).to.deep.equal([]);
      version = compileCRD(d).versions.find((v) => v.storage)!;
    });

    it('accepts every example Deployment without pruning anything', () => {
      const all = examples();
      expect(all.length).to.be.greaterThan(0);
      for (const [file, d] of all) {
        const r = admitCustomResource(version, d, undefined, opts);
        expect(r.causes.map(causeString), file).to.deep.equal([]);
        expect(r.unknownFields, file).to.deep.equal([]);
      }
    });

    const bad: Array<[string, (spec: any) => void, RegExp]> = [
      [
        // Once, by the scale subresource's check (the schema states no minimum for replicas), in
        // upstream's spelling of that check's path.
        'negative replicas',
        (s) => {
          s.replicas = -1;
        },
        /^\.spec\.replicas: Invalid value: -1: should be a non-negative integer$/,
      ],
      [
        'unknown strategy',
        (s) => {
          s.strategy = { type: 'Blue' };
        },
        /^spec\.strategy\.type: Unsupported value: "Blue"/,
      ],
      [
        'maxSurge neither int nor string',
        (s) => {
          s.strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: true } };
        },
        /^spec\.strategy\.rollingUpdate\.maxSurge: Invalid value: "boolean"/,
      ],
      [
        // A failed validation rule shows the value given, as kube-apiserver 1.36 prints it.
        'maxSurge "abc" (the value kept)',
        (s) => {
          s.strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 'abc' } };
        },
        /^spec\.strategy\.rollingUpdate\.maxSurge: Invalid value: "abc": a valid percent string must be a numeric string followed by an ending '%'/,
      ],
      [
        'maxUnavailable -1 (the value kept)',
        (s) => {
          s.strategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: -1 } };
        },
        /^spec\.strategy\.rollingUpdate\.maxUnavailable: Invalid value: -1: must be greater than or equal to 0$/,
      ],
      [
        'missing selector',
        (s) => {
          delete s.selector;
        },
        /^spec\.selector: Required value$/,
      ],
    ];
    for (const [title, edit, want] of bad) {
      it(`rejects ${title}`, () => {
        const d = structuredClone(examples()[0]![1]);
        edit(d.spec);
        const r = admitCustomResource(version, d, undefined, opts);
        expect(
          r.causes.map(causeString).some((m) => want.test(m)),
          JSON.stringify(r.causes),
        ).to.equal(true);
      });
    }

    it('a negative spec.replicas is one error, not two', () => {
      const d = structuredClone(examples()[0]![1]);
      (d.spec as { replicas: number }).replicas = -1;
      expect(admitCustomResource(version, d, undefined, opts).causes.map(causeString)).to.deep.equal([
        '.spec.replicas: Invalid value: -1: should be a non-negative integer',
      ]);
    });
  });
});
