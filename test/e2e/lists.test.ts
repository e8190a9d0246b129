// `kubectl apply -f` of a `kind: List` file, on each test bed. kubectl validates a List through
// /openapi/v2 (v1 List is in no group-version's v3 document): the simulated API server serves the
// v2 document's frame for it (src/sim/schema/openapiv2.ts), the real one its full document. A
// List of Deployments is created as one file; a List whose item carries a field the schema does
// not know is refused with an error naming the field, and what was stored stays as it was.

import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eventually } from '../integration/fixtures/cluster.ts';
import { BEDS, ROOT, kubectlEnv } from './fixtures.ts';

const deployment = (name: string, replicas: number, extra = '') => `
- apiVersion: pacer.dev/v1alpha1
  kind: Deployment
  metadata:
    name: ${name}
  spec:
    replicas: ${replicas}${extra}
    selector:
      matchLabels: {app: ${name}}
    template:
      metadata:
        labels: {app: ${name}}
      spec:
        containers: [{name: web, image: "nginx:1"}]`;

const list = (...items: string[]) => `apiVersion: v1\nkind: List\nitems:${items.join('')}\n`;

for (const bed of BEDS)
  describe(`e2e (${bed}): kubectl apply -f of a kind: List`, function () {
    this.timeout(60_000);
    const k = kubectlEnv({ bed, tmpPrefix: 'pacer-lists-', sim: {} });
    const { kubectl, ok } = k;
    const file = async (name: string, text: string) => {
      const path = join(k.dir, name);
      await writeFile(path, text);
      return path;
    };
    const replicas = async () =>
      JSON.parse(
        await ok(
          kubectl(
            'get',
            'deployments.pacer.dev',
            '-o',
            'jsonpath={.items[*].spec.replicas}',
            '--sort-by',
            '.metadata.name',
          ),
        ).then((s) => `[${s.split(' ').filter(Boolean).join(',')}]`),
      ) as number[];

    before(function () {
      return k.start(this);
    });
    after(() => k.stop());

    it('creates every item of a List of Deployments, then configures the changed one', async () => {
      await ok(kubectl('apply', '-f', join(ROOT, 'crds')));
      await eventually('the CRD to be served', async () => (await kubectl('get', 'pdeploy')).code === 0);
      const three = await file(
        'three.yaml',
        list(deployment('list-a', 1), deployment('list-b', 2), deployment('list-c', 3)),
      );
      expect(await ok(kubectl('apply', '-f', three))).to.equal(
        'deployment.pacer.dev/list-a created\ndeployment.pacer.dev/list-b created\ndeployment.pacer.dev/list-c created\n',
      );
      expect(await replicas()).to.deep.equal([1, 2, 3]);
      const changed = await file(
        'changed.yaml',
        list(deployment('list-a', 1), deployment('list-b', 5), deployment('list-c', 3)),
      );
      expect(await ok(kubectl('apply', '-f', changed))).to.equal(
        'deployment.pacer.dev/list-a unchanged\ndeployment.pacer.dev/list-b configured\ndeployment.pacer.dev/list-c unchanged\n',
      );
      expect(await replicas()).to.deep.equal([1, 5, 3]);
    });

    it('an item with a field the schema does not know: refused naming it, exit 1, nothing stored changed', async () => {
      const bad = await file('bad.yaml', list(deployment('list-c', 4, '\n    bogus: 1')));
      const r = await kubectl('apply', '-f', bad);
      expect(r.code, r.stderr).to.equal(1);
      expect(r.stderr).to.match(/unknown field "(spec\.)?bogus"/);
      expect(await replicas()).to.deep.equal([1, 5, 3]);
    });
  });
