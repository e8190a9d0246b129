// What an undo would change, and what changed between any two revisions (src/dashboard/diff.ts):
// two lists of lines compared as diff compares files, and two pod templates as YAML, the
// controller's pod-template-hash label left out.

import { expect } from 'chai';
import type { PodTemplateSpec } from '../../../src/api/types.ts';
import { lineDiff, revisionTemplates, templateDiff, templateLines } from '../../../src/dashboard/diff.ts';
import { deployment, replicaSet } from '../plugin/fixtures.ts';

/** The diff in `diff`'s notation: ' ' kept, '-' removed, '+' added. */
const show = (lines: ReturnType<typeof lineDiff>) =>
  lines.map((l) => `${l.op === 'same' ? ' ' : l.op === 'remove' ? '-' : '+'}${l.text}`);

describe('dashboard/diff: lines', () => {
  const rows: Array<[string, string[], string[], string[]]> = [
    ['the same: every line kept', ['a', 'b'], ['a', 'b'], [' a', ' b']],
    ['one line changed: removed before added', ['a', 'b', 'c'], ['a', 'x', 'c'], [' a', '-b', '+x', ' c']],
    ['a line added at the end', ['a'], ['a', 'b'], [' a', '+b']],
    ['a line removed at the start', ['a', 'b'], ['b'], ['-a', ' b']],
    ['nothing before: all added', [], ['a', 'b'], ['+a', '+b']],
    ['nothing after: all removed', ['a', 'b'], [], ['-a', '-b']],
    [
      'the longest run kept in common',
      ['a', 'b', 'c', 'd', 'e'],
      ['a', 'c', 'd', 'x', 'e'],
      [' a', '-b', ' c', ' d', '+x', ' e'],
    ],
    [
      'a moved line: removed where it was, added where it is',
      ['a', 'b', 'c'],
      ['b', 'c', 'a'],
      ['-a', ' b', ' c', '+a'],
    ],
  ];
  for (const [name, from, to, want] of rows) it(name, () => expect(show(lineDiff(from, to))).to.deep.equal(want));
});

describe('dashboard/diff: pod templates', () => {
  const template = (image: string, hash?: string, env?: string): PodTemplateSpec => ({
    metadata: { labels: { app: 'web', ...(hash ? { 'pod-template-hash': hash } : {}) } },
    spec: {
      containers: [{ name: 'web', image, ...(env ? { env: [{ name: 'MODE', value: env }] } : {}) }],
    },
  });

  const changes = (lines: ReturnType<typeof lineDiff>) => show(lines).filter((l) => !l.startsWith(' '));

  it("an undo to an older image: the image's line removed and the old one added, nothing else", () => {
    const lines = templateDiff(template('nginx:1.28'), template('nginx:1.27', '5d4f9c'));
    expect(changes(lines)).to.deep.equal(['-    - image: nginx:1.28', '+    - image: nginx:1.27']);
    expect(show(lines).slice(0, 3), 'the labels, without pod-template-hash').to.deep.equal([
      ' metadata:',
      '   labels:',
      '     app: web',
    ]);
  });

  it("a ReplicaSet's template as the API server defaulted it against the Deployment's as written: no change", () => {
    const stored: PodTemplateSpec = {
      metadata: { creationTimestamp: null, labels: { app: 'web', 'pod-template-hash': '5d4f9c' } },
      spec: {
        containers: [
          {
            name: 'web',
            image: 'nginx:1.27',
            imagePullPolicy: 'IfNotPresent',
            resources: {},
            terminationMessagePath: '/dev/termination-log',
            terminationMessagePolicy: 'File',
          },
        ],
        dnsPolicy: 'ClusterFirst',
        restartPolicy: 'Always',
        schedulerName: 'default-scheduler',
        securityContext: {},
        terminationGracePeriodSeconds: 30,
      },
    } as unknown as PodTemplateSpec;
    expect(changes(templateDiff(template('nginx:1.27'), stored))).to.deep.equal([]);
  });

  it("the revision's own template (only its pod-template-hash differs): no change", () => {
    const lines = templateDiff(template('nginx:1.27'), template('nginx:1.27', 'abc123'));
    expect(lines.every((l) => l.op === 'same')).to.equal(true);
  });

  it('keys sorted: the same template stored in another key order has the same lines', () => {
    const a: PodTemplateSpec = {
      spec: { containers: [{ name: 'web', image: 'x' }] },
      metadata: { labels: { b: '1', a: '2' } },
    };
    const b: PodTemplateSpec = {
      metadata: { labels: { a: '2', b: '1' } },
      spec: { containers: [{ image: 'x', name: 'web' }] },
    };
    expect(templateLines(a)).to.deep.equal(templateLines(b));
  });

  it("an env var the old revision had comes back: the container's lines as YAML writes them (keys sorted, env before image)", () => {
    expect(
      show(templateDiff(template('x'), template('x', 'h', 'debug'))).filter((l) => !l.startsWith(' ')),
    ).to.deep.equal([
      '-    - image: x',
      '+    - env:',
      '+        - name: MODE',
      '+          value: debug',
      '+      image: x',
    ]);
  });
});

describe('dashboard/diff: any two revisions (revisionTemplates, then templateDiff)', () => {
  const web = deployment('web', { image: 'nginx:1.29' });
  const api = deployment('api');
  const rs = [
    replicaSet(web, 'r1', { revision: 1, image: 'nginx:1.27' }),
    replicaSet(web, 'r2', { revision: 2, image: 'nginx:1.28' }),
    replicaSet(web, 'r3', { revision: 3, image: 'nginx:1.29' }),
    // Another Deployment's revision 4: never web's.
    replicaSet(api, 'r4', { revision: 4, image: 'busybox' }),
  ];
  const images = (lines: ReturnType<typeof lineDiff>) => show(lines).filter((l) => !l.startsWith(' '));
  /** revision `to` against `from` (undefined: against the Deployment's template now), as the server builds it. */
  const between = (to: number, from?: number): string[] | { missing: number } => {
    const found = revisionTemplates(web, rs, from === undefined ? [to] : [to, from]);
    if ('missing' in found) return found;
    return images(
      templateDiff(from === undefined ? web.spec.template : found.get(from)!.template, found.get(to)!.template),
    );
  };
  const rows: Array<[string, number, number | undefined, string[] | { missing: number }]> = [
    [
      '3 against 1: the image line of 1 removed, 3 added',
      3,
      1,
      ['-    - image: nginx:1.27', '+    - image: nginx:1.29'],
    ],
    ['1 against 3: the other way round', 1, 3, ['-    - image: nginx:1.29', '+    - image: nginx:1.27']],
    ['2 against 2: nothing changed', 2, 2, []],
    [
      '1 against the template now (an undo to 1)',
      1,
      undefined,
      ['-    - image: nginx:1.29', '+    - image: nginx:1.27'],
    ],
    ['3 against now: the current revision, nothing changed', 3, undefined, []],
    ['a revision not there: it is named', 9, 1, { missing: 9 }],
    ['against a revision not there: it is named', 1, 7, { missing: 7 }],
    ["another Deployment's revision is not this one's", 4, 1, { missing: 4 }],
  ];
  for (const [name, to, from, want] of rows) it(name, () => expect(between(to, from)).to.deep.equal(want));

  it("each revision's ReplicaSet is named", () => {
    const found = revisionTemplates(web, rs, [1, 3]);
    expect('missing' in found ? found : [...found].map(([r, v]) => [r, v.replicaSet]).sort()).to.deep.equal([
      [1, 'web-r1'],
      [3, 'web-r3'],
    ]);
  });
});
