import { expect } from 'chai';
import {
  fieldSelectorFor,
  labelSelectorFn,
  parseFieldSelector,
  parseLabelSelector,
} from '../../../src/sim/selectors.ts';
import { ApiError } from '../../../src/sim/types.ts';
import type { KubeObject } from '../../../src/sim/types.ts';

const labels = { app: 'web', tier: 'front', version: '3' };

describe('sim/selectors: label selector grammar', () => {
  const rows: Array<[string, boolean]> = [
    ['', true],
    ['app=web', true],
    ['app==web', true],
    ['app=db', false],
    ['app!=db', true],
    ['app!=web', false],
    ['missing!=x', true],
    ['app in (web,db)', true],
    ['app in (db)', false],
    ['app notin (db, cache)', true],
    ['app notin (web)', false],
    ['missing notin (web)', true],
    ['tier', true],
    ['missing', false],
    ['!missing', true],
    ['!tier', false],
    ['app=web,tier=front', true],
    ['app=web, tier=back', false],
    ['version>2', true],
    ['version<3', false],
    ['example.com/owner', false],
    ['  app = web ', true],
  ];
  for (const [text, want] of rows) {
    it(`${JSON.stringify(text)} → ${want}`, () => {
      expect(labelSelectorFn(text)(labels)).to.equal(want);
    });
  }

  it('parses operators and values', () => {
    expect(parseLabelSelector('a in (x, y),!b,c!=d')).to.deep.equal([
      { key: 'a', operator: 'in', values: ['x', 'y'] },
      { key: 'b', operator: '!', values: [] },
      { key: 'c', operator: '!=', values: ['d'] },
    ]);
  });

  const bad = ['app in web', 'app=(x)', '=web', 'app in (a', 'bad key=1', 'a=b=c', 'version>x', 'app=-web-'];
  for (const text of bad) {
    it(`${JSON.stringify(text)} → 400 BadRequest`, () => {
      try {
        labelSelectorFn(text);
        expect.fail('should throw');
      } catch (e) {
        expect(e).to.be.instanceOf(ApiError);
        expect((e as ApiError).code).to.equal(400);
        expect((e as ApiError).reason).to.equal('BadRequest');
      }
    });
  }
});

describe('sim/selectors: field selectors', () => {
  const pod: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p1', namespace: 'default' },
    spec: { nodeName: 'node-1', restartPolicy: 'Always' },
    status: { phase: 'Running', podIP: '10.0.0.1' },
  };
  const pods = { group: '', version: 'v1', resource: 'pods' };
  const rows: Array<[string, boolean]> = [
    ['metadata.name=p1', true],
    ['metadata.name==p1', true],
    ['metadata.name!=p1', false],
    ['metadata.namespace=default', true],
    ['spec.nodeName=node-1', true],
    ['spec.nodeName=', false],
    ['spec.nodeName!=node-2,status.phase=Running', true],
    ['status.podIP=10.0.0.1', true],
    ['spec.hostNetwork=false', true],
  ];
  for (const [text, want] of rows) {
    it(`pods ${JSON.stringify(text)} → ${want}`, () => {
      expect(fieldSelectorFor(pods, text).matches(pod)).to.equal(want);
    });
  }

  it('an unsupported field label is a 400 with the upstream message', () => {
    try {
      fieldSelectorFor(pods, 'status.hostIP=1.2.3.4');
      expect.fail('should throw');
    } catch (e) {
      expect((e as ApiError).code).to.equal(400);
      expect((e as ApiError).message).to.equal(
        'Unable to find "/v1, Resource=pods" that match label selector "", field selector "status.hostIP=1.2.3.4": field label not supported: status.hostIP',
      );
    }
  });

  it('custom resources support only metadata.name and metadata.namespace', () => {
    const widgets = { group: 'example.com', version: 'v1', resource: 'widgets' };
    expect(fieldSelectorFor(widgets, 'metadata.name=w1').name).to.equal('w1');
    expect(() => fieldSelectorFor(widgets, 'spec.size=small')).to.throw(
      'Unable to find "example.com/v1, Resource=widgets"',
    );
  });

  it('events select on involvedObject fields, as kubectl describe asks', () => {
    const ev: KubeObject = {
      metadata: { name: 'e1', namespace: 'default' },
      involvedObject: { kind: 'Widget', name: 'w1', uid: 'u1', namespace: 'default' },
      source: { component: 'sim' },
    };
    const f = fieldSelectorFor(
      { group: '', version: 'v1', resource: 'events' },
      'involvedObject.kind=Widget,involvedObject.uid=u1,involvedObject.name=w1,involvedObject.namespace=default,source=sim',
    );
    expect(f.matches(ev)).to.equal(true);
  });

  it('honours escapes', () => {
    expect(parseFieldSelector('metadata.name=a\\,b')).to.deep.equal([
      { field: 'metadata.name', operator: '=', value: 'a,b' },
    ]);
    expect(() => parseFieldSelector('nonsense')).to.throw("can't understand 'nonsense'");
  });
});
