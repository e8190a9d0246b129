import { expect } from 'chai';
import type { KubeObject } from '../../../../src/sim/types.ts';
import { compileCRD, defaultCRD } from '../../../../src/sim/schema/crd.ts';
import type { ServedVersion } from '../../../../src/sim/schema/crd.ts';
import { admitCustomResource, defaultCustomResource } from '../../../../src/sim/schema/admit.ts';
import { causeString } from '../../../../src/sim/schema/fielderrors.ts';
import { compileCel, runCel } from '../../../../src/sim/schema/cel.ts';
import type { CelProgram } from '../../../../src/sim/schema/cel.ts';
import { widget, widgetCRD } from './fixtures.ts';

const opts = { kind: 'Widget', group: 'example.com' };
const version: ServedVersion = compileCRD(defaultCRD(widgetCRD())).versions[0]!;

function admit(spec: Record<string, unknown>, oldSpec?: Record<string, unknown>) {
  return admitCustomResource(version, widget(spec), oldSpec ? widget(oldSpec) : undefined, opts);
}
function messages(spec: Record<string, unknown>, oldSpec?: Record<string, unknown>): string[] {
  return admit(spec, oldSpec).causes.map(causeString);
}

describe('sim/schema/admit', () => {
  describe('pruning', () => {
    it('drops unknown fields and reports their paths, never apiVersion/kind/metadata', () => {
      const obj = widget({
        size: 'small',
        foo: 1,
        template: { image: 'x', bar: true },
        ports: [{ name: 'a', extra: 1 }],
      });
      obj.status = { replicas: 1, bogus: 2 };
      obj.topLevel = 'x';
      const r = admitCustomResource(version, obj, undefined, opts);
      expect(r.unknownFields).to.have.members([
        'spec.foo',
        'spec.template.bar',
        'spec.ports[0].extra',
        'status.bogus',
        'topLevel',
      ]);
      expect(r.object.spec).to.not.have.property('foo');
      expect((r.object.spec as any).ports).to.deep.equal([{ name: 'a' }]);
      expect(r.object.apiVersion).to.equal('example.com/v1');
      expect(r.object.metadata.name).to.equal('w1');
      expect(r.causes).to.deep.equal([]);
    });
    it('keeps everything under x-kubernetes-preserve-unknown-fields', () => {
      const r = admit({ size: 'small', config: { a: { b: [1, { c: 2 }] } } });
      expect((r.object.spec as any).config).to.deep.equal({ a: { b: [1, { c: 2 }] } });
      expect(r.unknownFields).to.deep.equal([]);
    });
    it('does not mutate the input', () => {
      const obj = widget({ size: 'small', foo: 1 });
      admitCustomResource(version, obj, undefined, opts);
      expect((obj.spec as any).foo).to.equal(1);
    });
  });

  describe('defaulting', () => {
    it('applies defaults where the parent exists, including nested defaults of a defaulted object', () => {
      const r = admit({ size: 'small' });
      expect(r.object.spec).to.deep.include({
        replicas: 1,
        minReplicas: 0,
        mode: 'fast',
        template: { image: 'nginx' },
      });
    });
    it('does nothing when the parent is absent', () => {
      const obj: KubeObject = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' } };
      const r = admitCustomResource(version, obj, undefined, opts);
      expect(r.object).to.not.have.property('spec');
    });
    it('keeps explicit values', () => {
      expect((admit({ size: 'small', replicas: 5 }).object.spec as any).replicas).to.equal(5);
    });
    it('defaults a null for a non-nullable field with a default, keeps a nullable null, drops other nulls', () => {
      const r = admit({ size: 'small', replicas: null, template: { note: null }, when: null });
      const spec = r.object.spec as any;
      expect(spec.replicas).to.equal(1);
      expect(spec.template).to.deep.equal({ note: null, image: 'nginx' });
      expect(spec).to.not.have.property('when');
      expect(r.causes).to.deep.equal([]);
    });
    it('defaultCustomResource applies defaults to a stored object', () => {
      const out = defaultCustomResource(version, widget({ size: 'large' }));
      expect((out.spec as any).replicas).to.equal(1);
    });
  });

  describe('validation messages (kube-openapi forms)', () => {
    const rows: Array<[string, Record<string, unknown>, string, string]> = [
      [
        'type',
        { size: 'small', replicas: 'string' },
        'FieldValueTypeInvalid',
        'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
      ],
      [
        'integer vs number',
        { size: 'small', replicas: 1.5 },
        'FieldValueTypeInvalid',
        'spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"',
      ],
      ['required', { replicas: 1 }, 'FieldValueRequired', 'spec.size: Required value'],
      [
        'enum',
        { size: 'x' },
        'FieldValueNotSupported',
        'spec.size: Unsupported value: "x": supported values: "small", "large"',
      ],
      [
        'minimum',
        { size: 'small', replicas: -1 },
        'FieldValueInvalid',
        'spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0',
      ],
      [
        'maximum',
        { size: 'small', replicas: 101 },
        'FieldValueInvalid',
        'spec.replicas: Invalid value: 101: spec.replicas in body should be less than or equal to 100',
      ],
      [
        'exclusive minimum',
        { size: 'small', ratio: 0 },
        'FieldValueInvalid',
        'spec.ratio: Invalid value: 0: spec.ratio in body should be greater than 0',
      ],
      [
        'pattern',
        { size: 'small', mode: 'ABC' },
        'FieldValueInvalid',
        'spec.mode: Invalid value: "ABC": spec.mode in body should match \'^[a-z]+$\'',
      ],
      [
        'maxLength',
        { size: 'small', mode: 'abcdefghij' },
        'FieldValueTooLong',
        'spec.mode: Too long: may not be longer than 8',
      ],
      [
        'minLength',
        { size: 'small', name: 'ab' },
        'FieldValueInvalid',
        'spec.name: Invalid value: "ab": spec.name in body should be at least 3 chars long',
      ],
      [
        'maxItems',
        { size: 'small', tags: ['a', 'b', 'c', 'd'] },
        'FieldValueTooMany',
        'spec.tags: Too many: 4: must have at most 3 items',
      ],
      [
        'minItems',
        { size: 'small', tags: [] },
        'FieldValueInvalid',
        'spec.tags: Invalid value: 0: spec.tags in body should have at least 1 items',
      ],
      [
        'maxProperties',
        { size: 'small', labels: { a: 'x', b: 'y', c: 'z' } },
        'FieldValueTooMany',
        'spec.labels: Too many: 3: must have at most 2 items',
      ],
      [
        'additionalProperties type',
        { size: 'small', labels: { a: 1 } },
        'FieldValueTypeInvalid',
        'spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer"',
      ],
      [
        'list-type set',
        { size: 'small', tags: ['a', 'b', 'a'] },
        'FieldValueDuplicate',
        'spec.tags[2]: Duplicate value: "a"',
      ],
      [
        'list-type map',
        { size: 'small', ports: [{ name: 'a' }, { name: 'a', port: 2 }] },
        'FieldValueDuplicate',
        'spec.ports[1]: Duplicate value: map[string]interface {}{"name":"a"}',
      ],
      [
        'required inside items',
        { size: 'small', ports: [{ port: 1 }] },
        'FieldValueRequired',
        'spec.ports[0].name: Required value',
      ],
      [
        'format date-time',
        { size: 'small', when: 'yesterday' },
        'FieldValueTypeInvalid',
        'spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"',
      ],
      [
        'int-or-string',
        { size: 'small', maxSurge: true },
        'FieldValueTypeInvalid',
        'spec.maxSurge: Invalid value: "boolean": spec.maxSurge in body must be of type integer: "boolean"',
      ],
    ];
    for (const [title, spec, reason, message] of rows) {
      it(title, () => {
        const causes = admit(spec).causes;
        const found = causes.find((c) => causeString(c) === message);
        expect(found, `${JSON.stringify(causes)}`).to.not.equal(undefined);
        expect(found!.reason).to.equal(reason);
      });
    }

    it('accepts both forms of int-or-string', () => {
      expect(messages({ size: 'small', maxSurge: 1 })).to.deep.equal([]);
      expect(messages({ size: 'small', maxSurge: '25%' })).to.deep.equal([]);
    });
    it('reports several violations at once', () => {
      expect(messages({ replicas: 'string' })).to.deep.equal([
        'spec.size: Required value',
        'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
        'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation'.replace(
          /^/,
          '<nil>: ',
        ),
      ]);
    });
    it('validates metadata.name as a DNS subdomain', () => {
      const r = admitCustomResource(version, widget({ size: 'small' }, 'Bad_Name'), undefined, opts);
      expect(r.causes.map(causeString)[0]).to.match(
        /^metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/,
      );
    });
  });

  describe("CEL: the strings library's format (as the real API server evaluates it)", () => {
    const rows: Array<[string, Record<string, unknown>, string]> = [
      ["'got %s, expected between 0.0 and 1.0'.format([self])", { self: 1.2 }, 'got 1.2, expected between 0.0 and 1.0'],
      ["'got %s, expected between 0.0 and 1.0'.format([self])", { self: 2 }, 'got 2, expected between 0.0 and 1.0'],
      ["'%d of %s'.format([self, 'pods'])", { self: 3n }, '3 of pods'],
      ["'%.2f%%'.format([self])", { self: 12.345 }, '12.35%'],
      ["'%s'.format([[1, 2]])", {}, '[1, 2]'],
    ];
    for (const [expr, ctx, want] of rows) {
      it(`${expr} with ${JSON.stringify(ctx, (_k, v) => (typeof v === 'bigint' ? Number(v) : v))} → ${want}`, () => {
        const c = compileCel(expr);
        expect(c.ok).to.equal(true);
        expect(runCel((c as { program: CelProgram }).program, ctx)).to.deep.equal({ value: want });
      });
    }
    it('an unknown verb is an evaluation error', () => {
      const c = compileCel("'%q'.format([self])") as { program: CelProgram };
      expect(runCel(c.program, { self: 1 }).error).to.match(/unrecognized formatting clause "q"/);
    });
  });

  describe("the scale subresource's replicas paths", () => {
    it('a negative spec replicas is refused by the scale check, named by the path with its leading dot', () => {
      expect(messages({ size: 'small', replicas: -1 })).to.include(
        '.spec.replicas: Invalid value: -1: should be a non-negative integer',
      );
    });
    it('more than an int32 is refused', () => {
      expect(messages({ size: 'small', replicas: 2 ** 31 })).to.include(
        '.spec.replicas: Invalid value: 2147483648: should be less than or equal to 2147483647',
      );
    });
    it('absent replicas count as 0', () => {
      expect(messages({ size: 'small' }).filter((m) => m.startsWith('.spec'))).to.deep.equal([]);
    });
  });

  describe('CEL rules (x-kubernetes-validations)', () => {
    it('passes a satisfied rule', () => {
      expect(messages({ size: 'small', replicas: 3, minReplicas: 2, level: 4 })).to.deep.equal([]);
    });
    it('fails with message and fieldPath, value printed as the schema type', () => {
      const c = admit({ size: 'small', replicas: 1, minReplicas: 2 }).causes;
      expect(c).to.deep.equal([
        {
          reason: 'FieldValueInvalid',
          field: 'spec.minReplicas',
          message: 'Invalid value: minReplicas must not exceed replicas',
        },
      ]);
    });
    it('uses messageExpression and reason', () => {
      const c = admit({ size: 'small', level: 3 }).causes;
      expect(c).to.deep.equal([
        { reason: 'FieldValueForbidden', field: 'spec.level', message: 'Forbidden: level must be even, got 3' },
      ]);
    });
    it('skips a transition rule on create and runs it on update', () => {
      expect(messages({ size: 'small', name: 'abc' })).to.deep.equal([]);
      expect(messages({ size: 'small', name: 'abc' }, { size: 'small', name: 'abc' })).to.deep.equal([]);
      expect(messages({ size: 'small', name: 'xyz' }, { size: 'small', name: 'abc' })).to.deep.equal([
        'spec.name: Invalid value: "xyz": name is immutable',
      ]);
    });
    it('runs a transition rule only where the old value exists', () => {
      expect(messages({ size: 'small', name: 'xyz' }, { size: 'small' })).to.deep.equal([]);
    });
    it('falls back to "failed rule" without a message', () => {
      const crd = widgetCRD() as any;
      crd.spec.versions[0].schema.openAPIV3Schema.properties.spec['x-kubernetes-validations'] = [
        { rule: 'self.replicas < 10' },
      ];
      const v = compileCRD(defaultCRD(crd)).versions[0]!;
      const r = admitCustomResource(v, widget({ size: 'small', replicas: 50 }), undefined, opts);
      expect(r.causes.map(causeString)).to.deep.equal(['spec: Invalid value: failed rule: self.replicas < 10']);
    });
    it('sees integers as CEL ints and numbers as doubles', () => {
      const crd = widgetCRD() as any;
      crd.spec.versions[0].schema.openAPIV3Schema.properties.spec['x-kubernetes-validations'] = [
        { rule: 'type(self.replicas) == int && type(self.ratio) == double && type(self.maxSurge) == int' },
      ];
      const v = compileCRD(defaultCRD(crd)).versions[0]!;
      const r = admitCustomResource(v, widget({ size: 'small', replicas: 2, ratio: 2, maxSurge: 3 }), undefined, opts);
      expect(r.causes).to.deep.equal([]);
    });
  });
});
