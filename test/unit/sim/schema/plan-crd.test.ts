// crds/plans.pacer.dev.yaml: a valid v1 CRD; the example Plan passes admission unchanged; every
// invalid Plan the schema can tell fails naming the field (the messages a real API server gives).

import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { parse, parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../../../src/sim/types.ts';
import { compileCRD, defaultCRD, validateCRD } from '../../../../src/sim/schema/crd.ts';
import { admitCustomResource } from '../../../../src/sim/schema/admit.ts';
import { causeString } from '../../../../src/sim/schema/fielderrors.ts';

const root = new URL('../../../../', import.meta.url);
const opts = { kind: 'Plan', group: 'pacer.dev' };

function example(): KubeObject {
  const docs = parseAllDocuments(readFileSync(new URL('examples/custom-plan.yaml', root), 'utf8')).map(
    (d) => d.toJS() as KubeObject,
  );
  return docs.find((o) => o.kind === 'Plan')!;
}

describe('sim/schema: crds/plans.pacer.dev.yaml', () => {
  const crd = parse(readFileSync(new URL('crds/plans.pacer.dev.yaml', root), 'utf8')) as KubeObject;

  it('is a valid v1 CRD', () => {
    expect(validateCRD(defaultCRD(crd)).map(causeString)).to.deep.equal([]);
  });

  it('gives every field and list item a description (kubectl explain), the root metadata excepted', () => {
    type Node = { description?: string; properties?: Record<string, Node>; items?: Node };
    const missing: string[] = [];
    const walk = (s: Node, path: string): void => {
      if (path !== 'metadata' && !(s.description && s.description.trim().length > 10)) missing.push(path || '(root)');
      for (const [k, child] of Object.entries(s.properties ?? {})) walk(child, path ? `${path}.${k}` : k);
      if (s.items) walk(s.items, `${path}[]`);
    };
    walk((crd as any).spec.versions[0].schema.openAPIV3Schema, '');
    expect(missing).to.deep.equal([]);
  });

  describe('admission', () => {
    const version = compileCRD(defaultCRD(crd)).versions.find((v) => v.storage)!;
    const admit = (o: KubeObject) => admitCustomResource(version, o, undefined, opts);
    const withSpec = (f: (spec: any) => void, name = 'regions'): KubeObject => {
      const o = structuredClone(example()) as any;
      o.metadata.name = name;
      f(o.spec);
      return o;
    };

    it("accepts the example Plan without pruning anything, defaulting each phase's strategy to serial", () => {
      const r = admit(example());
      expect(r.causes.map(causeString)).to.deep.equal([]);
      expect(r.unknownFields).to.deep.equal([]);
      const stored = admit(
        withSpec((s) => {
          delete s.strategy;
          delete s.phases[1].strategy;
        }),
      ).object as any;
      expect(stored.spec.strategy).to.equal('serial');
      expect(stored.spec.phases[1].strategy).to.equal('serial');
    });

    const rows: Array<[string, KubeObject, string]> = [
      [
        'a reserved name',
        withSpec(() => undefined, 'deploy'),
        "Invalid value: the names deploy, recovery and decommission are the service's own plans",
      ],
      [
        'a canary plan strategy',
        withSpec((s) => {
          s.strategy = 'serial-canary';
        }),
        'spec.strategy: Unsupported value: "serial-canary": supported values: "serial", "parallel"',
      ],
      [
        'an unknown phase strategy',
        withSpec((s) => {
          s.phases[0].strategy = 'canary-first';
        }),
        'spec.phases[0].strategy: Unsupported value: "canary-first": supported values: "serial", "parallel", "serial-canary", "parallel-canary"',
      ],
      [
        'requiredProceeds without a canary',
        withSpec((s) => {
          s.phases[1].requiredProceeds = 2;
        }),
        'spec.phases[1].requiredProceeds: Forbidden: may not be set when `strategy` is not serial-canary or parallel-canary',
      ],
      [
        'a step twice in a phase',
        withSpec((s) => {
          s.phases[1].steps = ['web-us', 'web-us'];
        }),
        'spec.phases[1].steps[1]: Duplicate value: "web-us"',
      ],
      [
        'two phases of one name',
        withSpec((s) => {
          s.phases[1].name = 'canary';
        }),
        'spec.phases[1]: Duplicate value: map[string]interface {}{"name":"canary"}',
      ],
      [
        'no phases',
        withSpec((s) => {
          s.phases = [];
        }),
        'spec.phases: Invalid value: 0: spec.phases in body should have at least 1 items',
      ],
      [
        'a step that is no Deployment name',
        withSpec((s) => {
          s.phases[0].steps = ['Web_EU'];
        }),
        'spec.phases[0].steps[0]: Invalid value: "Web_EU": spec.phases[0].steps[0] in body should match \'^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$\'',
      ],
    ];
    for (const [what, o, message] of rows) {
      it(`refuses ${what}: ${message}`, () => {
        expect(admit(o).causes.map(causeString)).to.include(message);
      });
    }
  });
});
