import { expect } from 'chai';
import { describeTemplate, historyTable, revisionDetail, revisions } from '../../../src/plugin/history.ts';
import { deployment, replicaSet } from './fixtures.ts';

describe('plugin/history: kubectl rollout history', () => {
  const d = deployment('web');

  it('the table: header line with a trailing space, REVISION padded to 10, rows by revision, a blank line', () => {
    const rss = [replicaSet(d, 'b', { revision: 2, changeCause: 'image 1.28' }), replicaSet(d, 'a', { revision: 1 })];
    expect(historyTable('web', revisions(rss))).to.equal(
      'deployment.pacer.dev/web \n' +
        'REVISION  CHANGE-CAUSE\n' +
        '1         <none>\n' +
        '2         image 1.28\n' +
        '\n',
    );
  });

  it('a wider revision widens the column', () => {
    const rss = [replicaSet(d, 'a', { revision: 12345678901 }), replicaSet(d, 'b', { revision: 3 })];
    expect(historyTable('web', revisions(rss)).split('\n').slice(1, 4)).to.deep.equal([
      'REVISION     CHANGE-CAUSE',
      '3            <none>',
      '12345678901  <none>',
    ]);
  });

  it('an unparseable revision is skipped with a warning; a missing one counts as 0', () => {
    const warnings: string[] = [];
    const revs = revisions([replicaSet(d, 'x', { revision: 'x' }), replicaSet(d, 'n')], warnings);
    expect(revs.map((r) => r.revision)).to.deep.equal([0]);
    expect(warnings).to.deep.equal(['Warning: unable to parse the revision of replica set "web-x"']);
  });

  it('no ReplicaSets: "No rollout history found."', () => {
    expect(historyTable('web', [])).to.equal('No rollout history found.\n');
  });

  it('--revision: the header and the pod template in describe style, hash label included', () => {
    const out = revisionDetail('web', revisions([replicaSet(d, 'a', { revision: 1, image: 'nginx:1.27' })]), 1);
    const lines = out.split('\n');
    expect(lines[0]).to.equal('deployment.pacer.dev/web with revision #1');
    expect(lines[1]).to.equal('Pod Template:');
    expect(lines[2]).to.match(/^ {2}Labels: +app=web$/);
    expect(lines[3]).to.match(/^ +pod-template-hash=a$/);
    expect(lines[3].indexOf('pod')).to.equal(lines[2].indexOf('app'));
    expect(out).to.match(/\n {3}nginx:\n {4}Image: +nginx:1\.27\n/);
  });

  it("--revision: a missing revision is kubectl's error", () => {
    expect(() => revisionDetail('web', revisions([replicaSet(d, 'a', { revision: 1 })]), 5)).to.throw(
      'unable to find the specified revision',
    );
  });

  it('describeTemplate shows ports, resources, probes, env and <none> for empty fields', () => {
    const out = describeTemplate({
      metadata: {
        labels: { app: 'web' },
        annotations: { 'kubectl.kubernetes.io/restartedAt': '2025-03-01T10:04:05Z' },
      },
      spec: {
        containers: [
          {
            name: 'web',
            image: 'nginx',
            ports: [{ containerPort: 80 }],
            env: [{ name: 'MODE', value: 'prod' }],
            resources: { requests: { cpu: '50m' } },
            readinessProbe: { httpGet: { path: '/', port: 80 } },
          },
        ],
      },
    });
    expect(out).to.contain('kubectl.kubernetes.io/restartedAt: 2025-03-01T10:04:05Z');
    expect(out).to.match(/Port: +80\/TCP\n/);
    expect(out).to.match(/Requests:\n +cpu: +50m\n/);
    expect(out).to.match(/Readiness: +http-get http:\/\/:80\/ delay=0s timeout=1s period=10s #success=1 #failure=3\n/);
    expect(out).to.match(/MODE: +prod\n/);
    expect(out).to.match(/Volumes: +<none>\n/);
  });
});
