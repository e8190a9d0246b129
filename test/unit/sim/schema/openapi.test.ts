import { expect } from 'chai';
import { BUILTIN_RESOURCES } from '../../../../src/sim/resources.ts';
import { compileCRD, defaultCRD } from '../../../../src/sim/schema/crd.ts';
import { openApiGroupVersion, openApiRoot } from '../../../../src/sim/schema/openapi.ts';
import { openApiV2, openApiV2Protobuf } from '../../../../src/sim/schema/openapiv2.ts';
import { widgetCRD } from './fixtures.ts';

const widgets = compileCRD(defaultCRD(widgetCRD()));

function rootURLs(crds = [widgets]): Record<string, string> {
  const root = openApiRoot(BUILTIN_RESOURCES, crds) as { paths: Record<string, { serverRelativeURL: string }> };
  return Object.fromEntries(Object.entries(root.paths).map(([k, v]) => [k, v.serverRelativeURL]));
}

describe('sim/schema/openapi', () => {
  it('lists every served group-version with a hashed URL', () => {
    const urls = rootURLs();
    expect(Object.keys(urls)).to.include.members([
      'api/v1',
      'apis/apps/v1',
      'apis/policy/v1',
      'apis/coordination.k8s.io/v1',
      'apis/apiextensions.k8s.io/v1',
      'apis/example.com/v1',
    ]);
    expect(urls['apis/apps/v1']).to.match(/^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]+$/);
  });

  it('changes a GV hash when its CRD changes, and only that one', () => {
    const before = rootURLs();
    const crd = widgetCRD() as any;
    crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.extra = { type: 'string' };
    const after = rootURLs([compileCRD(defaultCRD(crd))]);
    expect(after['apis/example.com/v1']).to.not.equal(before['apis/example.com/v1']);
    expect(after['apis/apps/v1']).to.equal(before['apis/apps/v1']);
    expect(rootURLs([])).to.not.have.property('apis/example.com/v1');
  });

  it('declares a PATCH operation with fieldValidation for every kind', () => {
    const doc = openApiGroupVersion('apis/example.com/v1', BUILTIN_RESOURCES, [widgets]) as any;
    const op = doc.paths['/apis/example.com/v1/namespaces/{namespace}/widgets/{name}'].patch;
    expect(op['x-kubernetes-group-version-kind']).to.deep.equal({
      group: 'example.com',
      version: 'v1',
      kind: 'Widget',
    });
    expect(op.parameters.map((p: any) => p.name)).to.include.members(['fieldValidation', 'fieldManager', 'dryRun']);
    const core = openApiGroupVersion('api/v1', BUILTIN_RESOURCES, []) as any;
    expect(
      core.paths['/api/v1/namespaces/{namespace}/pods/{name}'].patch['x-kubernetes-group-version-kind'],
    ).to.deep.equal({ group: '', version: 'v1', kind: 'Pod' });
    expect(core.paths['/api/v1/nodes/{name}'].patch['x-kubernetes-group-version-kind'].kind).to.equal('Node');
    expect(JSON.stringify(core)).to.not.include('strategic-merge-patch');
  });

  it('has component schemas with the GVK array for kubectl explain', () => {
    const doc = openApiGroupVersion('/openapi/v3/apis/example.com/v1?hash=x', BUILTIN_RESOURCES, [widgets]) as any;
    const w = doc.components.schemas['com.example.v1.Widget'];
    expect(w['x-kubernetes-group-version-kind']).to.deep.equal([
      { group: 'example.com', version: 'v1', kind: 'Widget' },
    ]);
    expect(Object.keys(w.properties)).to.include.members(['apiVersion', 'kind', 'metadata', 'spec', 'status']);
    expect(w.properties.spec.properties.replicas.type).to.equal('integer');
    const apps = openApiGroupVersion('apis/apps/v1', BUILTIN_RESOURCES, []) as any;
    const rs = apps.components.schemas['io.k8s.api.apps.v1.ReplicaSet'];
    expect(rs.properties.spec.properties.replicas.description).to.be.a('string').and.not.equal('');
  });

  it('answers undefined for an unknown group-version', () => {
    expect(openApiGroupVersion('apis/nope.dev/v1', BUILTIN_RESOURCES, [widgets])).to.equal(undefined);
    expect(openApiGroupVersion('garbage', BUILTIN_RESOURCES, [widgets])).to.equal(undefined);
  });
});

describe('sim/schema/openapiv2: the v2 frame kubectl reads for a kind: List', () => {
  it("encodes gnostic's Document: swagger (1), info (2: title 1, version 2), empty paths (8) and definitions (9)", () => {
    const bytes = openApiV2Protobuf();
    // Field keys are (number << 3) | 2 (length-delimited), each followed by its length.
    const expected = Buffer.concat([
      Buffer.from([0x0a, 3]),
      Buffer.from('2.0'),
      Buffer.from([0x12, 2 + 10 + 2 + 7, 0x0a, 10]),
      Buffer.from('Kubernetes'),
      Buffer.from([0x12, 7]),
      Buffer.from('v1.36.4'),
      Buffer.from([0x42, 0, 0x4a, 0]),
    ]);
    expect(bytes.toString('hex')).to.equal(expected.toString('hex'));
    expect(openApiV2()).to.deep.equal({
      swagger: '2.0',
      info: { title: 'Kubernetes', version: 'v1.36.4' },
      paths: {},
      definitions: {},
    });
  });
});
