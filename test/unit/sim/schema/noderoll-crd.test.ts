// crds/noderolls.pacer.dev.yaml: a valid v1 CRD; the example NodeRoll passes admission unchanged,
// defaulted; the bad inputs the schema can tell are refused naming the field.

import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { parse, parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../../../src/sim/types.ts';
import { compileCRD, defaultCRD, validateCRD } from '../../../../src/sim/schema/crd.ts';
import { admitCustomResource } from '../../../../src/sim/schema/admit.ts';
import { causeString } from '../../../../src/sim/schema/fielderrors.ts';

const root = new URL('../../../../', import.meta.url);
const example = (): KubeObject =>
  parseAllDocuments(readFileSync(new URL('examples/node-roll.yaml', root), 'utf8'))
    .map((d) => d.toJS() as KubeObject)
    .find((o) => o.kind === 'NodeRoll')!;

describe('sim/schema: crds/noderolls.pacer.dev.yaml', () => {
  const crd = parse(readFileSync(new URL('crds/noderolls.pacer.dev.yaml', root), 'utf8')) as KubeObject;
  it('is a valid v1 CRD', () => expect(validateCRD(defaultCRD(crd)).map(causeString)).to.deep.equal([]));

  const version = compileCRD(defaultCRD(crd)).versions.find((v) => v.storage)!;
  const admit = (o: KubeObject) => admitCustomResource(version, o, undefined, { kind: 'NodeRoll', group: 'pacer.dev' });
  const withSpec = (f: (spec: any) => void): KubeObject => {
    const o = structuredClone(example()) as any;
    f(o.spec);
    return o;
  };

  it('accepts the example, defaulting mode, nodes at a time and paused', () => {
    const r = admit(example());
    expect(r.causes.map(causeString)).to.deep.equal([]);
    expect(r.unknownFields).to.deep.equal([]);
    expect((r.object as any).spec).to.deep.include({ mode: 'Replace', nodesAtATime: 1, paused: false });
  });

  const rows: Array<[string, KubeObject, string]> = [
    [
      'an empty selector',
      withSpec((s) => {
        s.nodeSelector = {};
      }),
      'spec.nodeSelector: Invalid value: a non-empty selector is required (an empty one would select every node)',
    ],
    [
      'nodes at a time of 0',
      withSpec((s) => {
        s.nodesAtATime = 0;
      }),
      'spec.nodesAtATime: Invalid value: 0: spec.nodesAtATime in body should be greater than or equal to 1',
    ],
    [
      'an unknown mode',
      withSpec((s) => {
        s.mode = 'Recycle';
      }),
      'spec.mode: Unsupported value: "Recycle": supported values: "Replace", "Drain"',
    ],
    [
      'Replace without a desired count',
      withSpec((s) => {
        delete s.desiredNodes;
      }),
      'spec.desiredNodes: Required value: Replace needs the number of new nodes',
    ],
    [
      'no node group',
      withSpec((s) => {
        delete s.nodeGroup;
      }),
      'spec.nodeGroup: Required value: Replace needs the node group to scale (only a Drain roll goes without one, in place)',
    ],

    [
      'a health gate analysis without templates',
      withSpec((s) => {
        s.healthGate = { analysis: { templates: [] } };
      }),
      'spec.healthGate.analysis.templates: Invalid value: 0: spec.healthGate.analysis.templates in body should have at least 1 items',
    ],
    [
      'an argument with both a value and valueFrom',
      withSpec((s) => {
        s.healthGate = {
          analysis: {
            templates: [{ templateName: 't' }],
            args: [{ name: 'n', value: 'x', valueFrom: { nodeName: true } }],
          },
        };
      }),
      'spec.healthGate.analysis.args[0]: Invalid value: exactly one of value and valueFrom',
    ],
    [
      'valueFrom.nodeName false',
      withSpec((s) => {
        s.healthGate = {
          analysis: { templates: [{ templateName: 't' }], args: [{ name: 'n', valueFrom: { nodeName: false } }] },
        };
      }),
      'spec.healthGate.analysis.args[0].valueFrom.nodeName: Unsupported value: false: supported values: "true"',
    ],
  ];
  it('accepts a Drain roll without a node group or a desired count (in place)', () => {
    const r = admit(
      withSpec((s) => {
        delete s.nodeGroup;
        delete s.desiredNodes;
        s.mode = 'Drain';
      }),
    );
    expect(r.causes.map(causeString)).to.deep.equal([]);
  });
  it('accepts a health gate with analysis: templates, a literal and the node name as arguments, a namespace', () => {
    const r = admit(
      withSpec((s) => {
        s.healthGate = {
          analysis: {
            namespace: 'ops',
            templates: [{ templateName: 'node-errors' }, { templateName: 'alerts', clusterScope: true }],
            args: [
              { name: 'node', valueFrom: { nodeName: true } },
              { name: 'env', value: 'prod' },
            ],
          },
        };
      }),
    );
    expect(r.causes.map(causeString)).to.deep.equal([]);
    expect(r.unknownFields).to.deep.equal([]);
  });
  it('accepts maintenance windows and blackouts (docs/semantics/windows.md)', () => {
    const r = admit(
      withSpec((s) => {
        s.windows = [{ days: ['Sat', 'Sun'], start: '02:00', duration: '4h', timeZone: 'Europe/Berlin' }];
        s.blackouts = [{ start: '2026-12-24', end: '2026-12-26', timeZone: 'Europe/Berlin', reason: 'Christmas' }];
      }),
    );
    expect(r.causes.map(causeString)).to.deep.equal([]);
    expect(r.unknownFields).to.deep.equal([]);
  });
  rows.push(
    [
      'a window starting at 25:00',
      withSpec((s) => {
        s.windows = [{ start: '25:00', duration: '1h' }];
      }),
      'spec.windows[0].start: Invalid value: "25:00": spec.windows[0].start in body should match \'^([01][0-9]|2[0-3]):[0-5][0-9]$\'',
    ],
    [
      'a window on an unknown day',
      withSpec((s) => {
        s.windows = [{ days: ['Funday'], start: '02:00', duration: '1h' }];
      }),
      'spec.windows[0].days[0]: Unsupported value: "Funday": supported values: "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"',
    ],
    [
      'a blackout without an end',
      withSpec((s) => {
        s.blackouts = [{ start: '2026-12-24' }];
      }),
      'spec.blackouts[0].end: Required value',
    ],
  );
  for (const [what, o, message] of rows) {
    it(`refuses ${what}: ${message}`, () => expect(admit(o).causes.map(causeString)).to.include(message));
  }
});
