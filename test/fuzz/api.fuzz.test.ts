// Fuzzing what users send (issue "Reliability and security", item 2), on the simulated cluster:
//   * generated Deployment bodies, valid and not, through raw HTTP to the API server with Pacer's
//     CRD schema: every answer is 201 or a 4xx naming the field, never a 5xx, and a Deployment
//     already stored is never changed by one that was refused;
//   * generated `kubectl pacer` command lines (commands, flags, values, junk): the plugin never
//     throws or hangs, a failure is one line on stderr with exit 1 or 2, and nothing stored is lost.
// The runs are the "inputs tried" bench/RESULTS.md records.

import { expect } from 'chai';
import fc from 'fast-check';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Deployment } from '../../src/api/types.ts';
import { DEPLOYMENTS } from '../../src/kube/client.ts';
import type { KubeClient } from '../../src/kube/client.ts';
import { runPlugin } from '../../src/plugin/program.ts';
import type { SimCluster } from '../../src/sim/index.ts';
import { deploymentManifest, startSimWithCrds } from '../integration/fixtures/cluster.ts';
import { deployment, junk } from './arbitraries.ts';

const RUNS = Number(process.env.PACER_FUZZ_API_RUNS ?? 300);
const SEED = Number(process.env.PACER_FUZZ_SEED ?? 20261124);

describe('fuzz: what users send to the API server and the plugin (simulated cluster)', function () {
  this.timeout(300_000);
  let sim: SimCluster;
  let client: KubeClient;
  let dir: string;
  let kubeconfig: string;
  const stored = async () => (await client.get<Deployment>(DEPLOYMENTS, 'default', 'keep')).metadata.resourceVersion;
  before(async () => {
    ({ sim, client } = await startSimWithCrds({ controlPlane: false }));
    await client.create(DEPLOYMENTS, 'default', deploymentManifest('default', 'keep', { replicas: 2 }));
    dir = mkdtempSync(join(tmpdir(), 'pacer-fuzz-'));
    kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, sim.kubeconfig);
  });
  after(async () => {
    await sim?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(`Deployment bodies over raw HTTP: 201 or a 4xx naming the field, never a 5xx; a refused one changes nothing stored (${RUNS} inputs)`, async () => {
    const before = await stored();
    const name = fc.oneof(
      fc.constantFrom('web', 'keep', 'a'.repeat(70), 'Web_1', ''),
      fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/),
    );
    let created = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(deployment, name, fc.boolean(), async (d, n, mangle) => {
        const body: Record<string, unknown> = {
          ...d,
          metadata: { name: n, namespace: 'default', annotations: d.metadata.annotations },
          status: undefined,
        };
        if (mangle) (body.spec as Record<string, unknown>).replicas = 'many';
        const res = await fetch(`${sim.url}/apis/pacer.dev/v1alpha1/namespaces/default/deployments`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        });
        const text = await res.text();
        expect(res.status, text).to.be.oneOf([201, 400, 409, 422]);
        if (res.status === 201) {
          created++;
          await client.delete(DEPLOYMENTS, 'default', n);
        } else {
          refused++;
          if (res.status === 422) expect(text, 'a field path').to.match(/spec\.|metadata\./);
        }
        expect(await stored(), 'the stored Deployment untouched').to.equal(before);
      }),
      { numRuns: RUNS, seed: SEED },
    );
    expect(created, 'some were valid').to.be.greaterThan(0);
    expect(refused, 'some were refused').to.be.greaterThan(0);
  });

  it(`kubectl pacer command lines: no throw, no hang, a failure is one line on stderr with exit 1 or 2 (${Math.round(RUNS / 2)} inputs)`, async () => {
    const word = fc.oneof(
      fc.constantFrom(
        'get',
        'list',
        'deployments',
        'rollout',
        'history',
        'undo',
        'pause',
        'resume',
        'restart',
        'set',
        'image',
        'plan',
        'show',
        'node-roll',
        'freeze',
        'status',
        'keep',
        'nope',
        '-n',
        'default',
        '--namespace=x',
        '-o',
        'json',
        'yaml',
        'xml',
        '--to-revision',
        '--to-revision=0',
        '--revision=-1',
        '--dry-run',
        '--dry-run=server',
        '-A',
        '--kubeconfig',
        '/nonexistent',
        '--context',
        'x',
        '--timeout',
        '1s',
        'app=nginx:2',
        '=',
        '--',
        '-x',
        '--help',
      ),
      junk,
    );
    const args = fc
      .array(word, { minLength: 0, maxLength: 6 })
      .filter((a) => !a.includes('--help') && !(a.includes('rollout') && a.includes('status')) && !a.includes('-w'));
    await fc.assert(
      fc.asyncProperty(args, async (a) => {
        const out: string[] = [];
        const err: string[] = [];
        const io = { stdout: { write: (x: string) => out.push(x) }, stderr: { write: (x: string) => err.push(x) } };
        // The test's --kubeconfig comes last and wins over a generated one: every run reaches the simulated cluster.
        const code = await Promise.race([
          runPlugin([...a, '--kubeconfig', kubeconfig], io),
          new Promise<number>((_, reject) => setTimeout(() => reject(new Error(`hung: ${JSON.stringify(a)}`)), 15_000)),
        ]);
        expect(code, JSON.stringify(a)).to.be.oneOf([0, 1, 2]);
        if (code !== 0) expect(err.join('').trim(), `why, for ${JSON.stringify(a)}`).to.not.equal('');
      }),
      { numRuns: Math.round(RUNS / 2), seed: SEED },
    );
    // Whatever the commands did (they may pause, restart or set it), the stored Deployment is still there.
    expect((await client.get<Deployment>(DEPLOYMENTS, 'default', 'keep')).metadata.name).to.equal('keep');
  });
});
