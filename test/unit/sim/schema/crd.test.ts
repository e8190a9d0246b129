import { expect } from 'chai';
import type { KubeObject } from '../../../../src/sim/types.ts';
import {
  compileCRD,
  defaultCRD,
  establishedStatus,
  resourceInfoFor,
  validateCRD,
} from '../../../../src/sim/schema/crd.ts';
import { causeString } from '../../../../src/sim/schema/fielderrors.ts';
import { widgetCRD } from './fixtures.ts';

type Edit = (crd: any) => void;

function errorsAfter(edit: Edit): string[] {
  const crd = widgetCRD();
  edit(crd);
  return validateCRD(defaultCRD(crd)).map(causeString);
}

const schemaPath = 'spec.versions[0].schema.openAPIV3Schema';
const specProps = (crd: any) => crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties;

describe('sim/schema/crd', () => {
  describe('defaultCRD', () => {
    it('fills singular, listKind, conversion and printer column priority', () => {
      const d = defaultCRD(widgetCRD()) as any;
      expect(d.spec.names.singular).to.equal('widget');
      expect(d.spec.names.listKind).to.equal('WidgetList');
      expect(d.spec.conversion).to.deep.equal({ strategy: 'None' });
      expect(d.spec.versions[0].additionalPrinterColumns[0].priority).to.equal(0);
      expect(d.spec.versions[0].additionalPrinterColumns[2].priority).to.equal(1);
    });
    it('keeps explicit names', () => {
      const crd = widgetCRD() as any;
      crd.spec.names.singular = 'wdg';
      expect((defaultCRD(crd) as any).spec.names.singular).to.equal('wdg');
    });
  });

  describe('validateCRD', () => {
    it('accepts the Widget fixture', () => {
      expect(errorsAfter(() => {})).to.deep.equal([]);
    });

    const rows: Array<[string, Edit, string]> = [
      [
        'name must be plural.group',
        (c) => {
          c.metadata.name = 'gadgets.example.com';
        },
        'metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group',
      ],
      [
        'group is required',
        (c) => {
          c.spec.group = '';
          c.metadata.name = 'widgets.';
        },
        'spec.group: Required value',
      ],
      [
        'group needs a dot',
        (c) => {
          c.spec.group = 'example';
          c.metadata.name = 'widgets.example';
        },
        'spec.group: Invalid value: "example": should be a domain with at least one dot',
      ],
      [
        'group is a DNS subdomain',
        (c) => {
          c.spec.group = 'Example.com';
          c.metadata.name = 'widgets.Example.com';
        },
        "spec.group: Invalid value: \"Example.com\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ],
      [
        'scope must be supported',
        (c) => {
          c.spec.scope = 'Global';
        },
        'spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"',
      ],
      [
        'plural is a DNS-1035 label',
        (c) => {
          c.spec.names.plural = 'Widgets';
          c.metadata.name = 'Widgets.example.com';
        },
        "spec.names.plural: Invalid value: \"Widgets\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      ],
      [
        'kind is required',
        (c) => {
          c.spec.names.kind = '';
          c.spec.names.singular = 'widget';
          c.spec.names.listKind = 'WidgetList';
        },
        'spec.names.kind: Required value',
      ],
      [
        'kind may have mixed case only',
        (c) => {
          c.spec.names.kind = 'Wid_get';
        },
        "spec.names.kind: Invalid value: \"Wid_get\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      ],
      [
        'kind and listKind differ',
        (c) => {
          c.spec.names.listKind = 'Widget';
        },
        'spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same',
      ],
      [
        'exactly one storage version',
        (c) => {
          c.spec.versions[0].storage = false;
        },
        'spec.versions: Invalid value: "[v1]": must have exactly one version marked as storage version',
      ],
      [
        'unique version names',
        (c) => {
          c.spec.versions.push({ ...structuredClone(c.spec.versions[0]), storage: false });
        },
        'spec.versions: Invalid value: "[v1 v1]": must contain unique version names',
      ],
      [
        'a served version',
        (c) => {
          c.spec.versions[0].served = false;
        },
        'spec.versions: Invalid value: "[v1]": must have at least one served version',
      ],
      [
        'version names are DNS-1035 labels',
        (c) => {
          c.spec.versions[0].name = '1';
        },
        "spec.versions[0].name: Invalid value: \"1\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      ],
      [
        'schemas are required',
        (c) => {
          delete c.spec.versions[0].schema;
        },
        `${schemaPath}: Required value: schemas are required`,
      ],
      [
        'root type must be object',
        (c) => {
          c.spec.versions[0].schema.openAPIV3Schema = { type: 'string' };
        },
        `${schemaPath}.type: Invalid value: "string": must be object at the root`,
      ],
      [
        'every field has a type',
        (c) => {
          specProps(c).loose = { description: 'x' };
        },
        `${schemaPath}.properties[spec].properties[loose].type: Required value: must not be empty for specified object fields`,
      ],
      [
        'array items have a type',
        (c) => {
          specProps(c).list = { type: 'array', items: {} };
        },
        `${schemaPath}.properties[spec].properties[list].items.type: Required value: must not be empty for specified array items`,
      ],
      [
        'arrays have items',
        (c) => {
          specProps(c).list = { type: 'array' };
        },
        `${schemaPath}.properties[spec].properties[list].items: Required value: must be specified`,
      ],
      [
        'properties and additionalProperties exclude each other',
        (c) => {
          specProps(c).both = {
            type: 'object',
            properties: { a: { type: 'string' } },
            additionalProperties: { type: 'string' },
          };
        },
        `${schemaPath}.properties[spec].properties[both].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`,
      ],
      [
        'metadata may constrain only name and generateName',
        (c) => {
          c.spec.versions[0].schema.openAPIV3Schema.properties.metadata = {
            type: 'object',
            properties: { labels: { type: 'object' } },
          };
        },
        `${schemaPath}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
      ],
      [
        'value validations may not specify types',
        (c) => {
          specProps(c).either = { type: 'string', anyOf: [{ type: 'string' }] };
        },
        `${schemaPath}.properties[spec].properties[either].anyOf[0].type: Forbidden: must be empty to be structural`,
      ],
      [
        'uniqueItems is forbidden',
        (c) => {
          specProps(c).tags.uniqueItems = true;
        },
        `${schemaPath}.properties[spec].properties[tags].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
      ],
      [
        '$ref is forbidden',
        (c) => {
          specProps(c).ref = { type: 'object', $ref: '#/x' };
        },
        `${schemaPath}.properties[spec].properties[ref].$ref: Forbidden: $ref is not supported`,
      ],
      [
        'preserve-unknown-fields false',
        (c) => {
          specProps(c).config['x-kubernetes-preserve-unknown-fields'] = false;
        },
        `${schemaPath}.properties[spec].properties[config].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`,
      ],
      [
        'defaults must validate',
        (c) => {
          specProps(c).replicas.default = 'one';
        },
        `${schemaPath}.properties[spec].properties[replicas].default: Invalid value: "string": ${schemaPath}.properties[spec].properties[replicas].default in body must be of type integer: "string"`,
      ],
      [
        'CEL rules must compile',
        (c) => {
          specProps(c).level['x-kubernetes-validations'] = [{ rule: 'self >' }];
        },
        `${schemaPath}.properties[spec].properties[level].x-kubernetes-validations[0].rule: Invalid value: "self >": compilation failed: Unexpected token: EOF`,
      ],
      [
        'rule reasons are an enum',
        (c) => {
          specProps(c).level['x-kubernetes-validations'][0].reason = 'Nope';
        },
        `${schemaPath}.properties[spec].properties[level].x-kubernetes-validations[0].reason: Unsupported value: "Nope": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
      ],
      [
        'rule fieldPath must resolve',
        (c) => {
          c.spec.versions[0].schema.openAPIV3Schema.properties.spec['x-kubernetes-validations'][0].fieldPath = '.nope';
        },
        `${schemaPath}.properties[spec].x-kubernetes-validations[0].fieldPath: Invalid value: ".nope": fieldPath must be a valid path`,
      ],
      [
        'scale paths under .spec',
        (c) => {
          c.spec.versions[0].subresources.scale.specReplicasPath = '.status.replicas';
        },
        'spec.versions[0].subresources.scale.specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec',
      ],
      [
        'scale paths under .status',
        (c) => {
          c.spec.versions[0].subresources.scale.statusReplicasPath = '';
        },
        'spec.versions[0].subresources.scale.statusReplicasPath: Required value',
      ],
      [
        'printer column types',
        (c) => {
          c.spec.versions[0].additionalPrinterColumns[0].type = 'int';
        },
        'spec.versions[0].additionalPrinterColumns[0].type: Invalid value: "int": must be one of boolean,date,integer,number,string',
      ],
      [
        'printer column json paths',
        (c) => {
          c.spec.versions[0].additionalPrinterColumns[0].jsonPath = 'spec.replicas';
        },
        'spec.versions[0].additionalPrinterColumns[0].jsonPath: Invalid value: "spec.replicas": must be a simple json path starting with .',
      ],
      [
        'list-type map needs keys',
        (c) => {
          delete specProps(c).ports['x-kubernetes-list-map-keys'];
        },
        `${schemaPath}.properties[spec].properties[ports].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`,
      ],
    ];
    for (const [title, edit, expected] of rows) {
      it(title, () => {
        expect(errorsAfter(edit)).to.include(expected);
      });
    }

    it('int-or-string with anyOf integer/string is structural', () => {
      expect(
        errorsAfter((c) => {
          specProps(c).x = { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] };
        }),
      ).to.deep.equal([]);
    });

    it('group and plural are immutable; kind once established', () => {
      const old = defaultCRD(widgetCRD());
      old.status = establishedStatus(old, '2024-01-01T00:00:00Z');
      const next = defaultCRD(widgetCRD()) as any;
      next.spec.names.kind = 'Gadget';
      next.spec.names.listKind = 'GadgetList';
      expect(validateCRD(next, old).map(causeString)).to.include(
        'spec.names.kind: Invalid value: "Gadget": field is immutable',
      );
    });
  });

  describe('compileCRD / establishedStatus / resourceInfoFor', () => {
    it('compiles names, scope and versions', () => {
      const c = compileCRD(defaultCRD(widgetCRD()));
      expect(c.names).to.deep.equal({
        plural: 'widgets',
        singular: 'widget',
        kind: 'Widget',
        listKind: 'WidgetList',
        shortNames: ['wd'],
        categories: ['all'],
      });
      expect(c.scope).to.equal('Namespaced');
      expect(c.versions.map((v) => v.name)).to.deep.equal(['v1']);
      expect(c.versions[0]!.subresources.status).to.deep.equal({});
      expect(c.versions[0]!.additionalPrinterColumns.map((x) => x.priority)).to.deep.equal([0, 0, 1, 0]);
    });

    it('establishes with accepted names, stored versions and the two conditions', () => {
      const crd = defaultCRD(widgetCRD());
      const st = establishedStatus(crd, '2024-01-01T00:00:00Z') as any;
      expect(st.acceptedNames).to.deep.equal({
        plural: 'widgets',
        singular: 'widget',
        kind: 'Widget',
        listKind: 'WidgetList',
        shortNames: ['wd'],
        categories: ['all'],
      });
      expect(st.storedVersions).to.deep.equal(['v1']);
      expect(st.conditions.map((c: any) => [c.type, c.status, c.reason, c.message])).to.deep.equal([
        ['NamesAccepted', 'True', 'NoConflicts', 'no conflicts found'],
        ['Established', 'True', 'InitialNamesAccepted', 'the initial names have been accepted'],
      ]);
      // a later update keeps the transition times and the versions stored before
      crd.status = st;
      (crd as any).spec.versions[0].name = 'v2';
      const again = establishedStatus(crd, '2025-01-01T00:00:00Z') as any;
      expect(again.conditions[1].lastTransitionTime).to.equal('2024-01-01T00:00:00Z');
      expect(again.storedVersions).to.deep.equal(['v1', 'v2']);
    });

    it('describes the served version as a ResourceInfo', () => {
      const c = compileCRD(defaultCRD(widgetCRD()));
      const info = resourceInfoFor(c, c.versions[0]!);
      expect(info).to.include({
        group: 'example.com',
        version: 'v1',
        resource: 'widgets',
        kind: 'Widget',
        namespaced: true,
        statusSubresource: true,
        hasGeneration: true,
        returnDeletedObject: false,
      });
      expect(info.subresources).to.deep.equal(['status', 'scale']);
      expect(info.scale).to.deep.equal({ specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' });
      const cluster = compileCRD(
        defaultCRD({ ...widgetCRD(), spec: { ...(widgetCRD().spec as object), scope: 'Cluster' } } as KubeObject),
      );
      expect(resourceInfoFor(cluster, cluster.versions[0]!).namespaced).to.equal(false);
    });
  });
});

/** Whether a CRD status says Established=True (its resources are served). */
function isEstablished(status: any): boolean {
  return (status?.conditions ?? []).some((c: any) => c.type === 'Established' && c.status === 'True');
}

describe('sim/schema/crd: name conflicts', () => {
  it('does not accept a kind another CRD of the group uses, and does not establish', () => {
    const first = compileCRD(defaultCRD(widgetCRD()));
    const rival = widgetCRD() as any;
    rival.metadata.name = 'gizmos.example.com';
    rival.spec.names = { plural: 'gizmos', singular: 'gizmo', kind: 'Widget' };
    const st = establishedStatus(defaultCRD(rival), '2024-01-01T00:00:00Z', [first]) as any;
    expect(st.conditions.map((c: any) => [c.type, c.status, c.reason, c.message])).to.deep.equal([
      ['NamesAccepted', 'False', 'KindConflict', '"Widget" is already in use'],
      ['Established', 'False', 'NotAccepted', 'not all names are accepted'],
    ]);
    expect(isEstablished(st)).to.equal(false);
    rival.spec.names = { plural: 'gizmos', kind: 'Gizmo', shortNames: ['wd'] };
    expect((establishedStatus(defaultCRD(rival), 'now', [first]) as any).conditions[0].reason).to.equal(
      'ShortNamesConflict',
    );
    rival.spec.names = { plural: 'gizmos', kind: 'Gizmo' };
    const ok = establishedStatus(defaultCRD(rival), 'now', [first]) as any;
    expect(isEstablished(ok)).to.equal(true);
  });
});
