// Fuzzing the engine (issue "Reliability and security", item 2): generated Deployments, valid and
// not (replicas out of range, strategies of any shape, garbage in every field Pacer reads), with
// ReplicaSets and pods edited behind Pacer's back (scaled to anything, annotations removed or
// corrupted, revisions garbled, ownerReferences pointing elsewhere, pod-template-hash labels gone),
// and the NodeRoll pass with generated specs and checkpoints. The controller runs these functions on
// every pass, so whatever the cluster holds:
//   * decide() and rollPass() never throw;
//   * every write is well formed: ReplicaSet sizes whole numbers ≥ 0, the status's counts too;
//   * a Deployment the validation refuses gets InvalidSpec with field paths and no ReplicaSet write;
//   * the input is never changed (deep-frozen).
// Each property's runs are the "inputs tried" that bench/RESULTS.md records.

import { expect } from 'chai';
import fc from 'fast-check';
import type { Pod } from '../../src/api/types.ts';
import type { NodeRoll } from '../../src/api/noderoll.ts';
import { decide } from '../../src/engine/decide.ts';
import { rollPass } from '../../src/engine/noderoll/pass.ts';
import { deepFreeze } from '../unit/engine/fixtures.ts';
import { deployment, junk, maybe, replicaSet } from './arbitraries.ts';

const RUNS = Number(process.env.PACER_FUZZ_RUNS ?? 1500);
const SEED = Number(process.env.PACER_FUZZ_SEED ?? 20261124);
const NOW = Date.parse('2026-11-24T10:00:00Z');

const wholeNonNegative = (n: unknown) => Number.isInteger(n) && (n as number) >= 0;

describe('fuzz: the engine with whatever the cluster holds', () => {
  it(`decide(): never throws, writes only whole non-negative sizes, refuses an invalid spec with field paths and no ReplicaSet write (${RUNS} inputs)`, () => {
    fc.assert(
      fc.property(
        deployment,
        fc.array(fc.nat(5), { maxLength: 4 }),
        fc.array(fc.constantFrom('Running', 'Pending', 'Succeeded'), { maxLength: 4 }),
        (d, rsIdx, phases) => {
          const rss = rsIdx.map((_, i) => fc.sample(replicaSet(i), { numRuns: 1, seed: rsIdx[i] * 31 + i })[0]);
          const pods: Pod[] = phases.map((phase, i) => ({
            metadata: {
              name: `p${i}`,
              namespace: 'default',
              labels: { app: 'web' },
              ownerReferences: rss[i]
                ? [
                    {
                      apiVersion: 'apps/v1',
                      kind: 'ReplicaSet',
                      name: rss[i].metadata.name ?? '',
                      uid: rss[i].metadata.uid ?? '',
                      controller: true,
                    },
                  ]
                : [],
            },
            status: { phase },
          }));
          const snapshot = deepFreeze({ deployment: d, replicaSets: rss, pods, now: NOW });
          const decision = decide(snapshot);
          for (const a of decision.actions) {
            if (a.verb === 'scale' || a.verb === 'create')
              expect(wholeNonNegative(a.replicas), `${a.verb} ${a.name} to ${a.replicas}`).to.equal(true);
          }
          for (const k of [
            'replicas',
            'updatedReplicas',
            'readyReplicas',
            'availableReplicas',
            'unavailableReplicas',
          ] as const) {
            const v = decision.status[k];
            if (v !== undefined) expect(wholeNonNegative(v), `status.${k} = ${v}`).to.equal(true);
          }
          const invalid = decision.status.conditions?.find((c) => c.type === 'InvalidSpec');
          if (invalid?.status === 'True') {
            expect(invalid.message, 'field paths').to.match(/spec\.|metadata\./);
            expect(
              decision.actions.filter((a) => a.verb === 'scale' || a.verb === 'create' || a.verb === 'delete'),
              'no ReplicaSet write for an invalid spec',
            ).to.deep.equal([]);
          }
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
  });

  const rollSpec = fc.record({
    nodeSelector: fc.oneof(
      fc.constant({ matchLabels: { group: 'w' } }),
      fc.constant({}),
      fc.constant({ matchExpressions: [{ key: 'group', operator: 'Bogus', values: [] }] }),
    ),
    nodeGroup: fc.oneof(fc.constant('workers'), junk),
    desiredNodes: maybe(fc.integer({ min: -2, max: 8 })),
    mode: maybe(fc.constantFrom('Replace', 'Drain', 'Surge')),
    nodesAtATime: maybe(fc.integer({ min: -1, max: 5 })),
    timeouts: maybe(fc.record({ drain: maybe(fc.oneof(fc.constantFrom('1s', '10m', '0s', '-1s'), junk)) })),
    paused: maybe(fc.boolean()),
  });
  const checkpoint = fc.record({
    originalNodes: maybe(fc.array(fc.constantFrom('n1', 'n2', 'n3', 'gone'), { maxLength: 4 })),
    scaledUpTo: maybe(fc.integer({ min: -1, max: 9 })),
    scaledUpAt: maybe(junk),
    nodes: maybe(
      fc.array(
        fc.record({
          name: fc.constantFrom('n1', 'n2', 'n3', 'gone'),
          step: fc.constantFrom('Pending', 'Draining', 'Terminating', 'Deregistered', 'Done', 'Weird'),
          since: junk,
        }),
        { maxLength: 4 },
      ),
    ),
    skipped: maybe(fc.array(fc.constantFrom('n1', 'zz'), { maxLength: 2 })),
    frozenSince: maybe(junk),
    zoneMoves: maybe(
      fc.record({
        planned: fc.integer({ min: -1, max: 3 }),
        moved: fc.array(fc.constantFrom('n1', 'x'), { maxLength: 2 }),
      }),
    ),
  });

  it(`the NodeRoll pass: never throws whatever the spec and checkpoint say; an invalid spec is Invalid with field paths and no action (${RUNS} inputs)`, () => {
    fc.assert(
      fc.property(
        rollSpec,
        checkpoint,
        fc.dictionary(fc.constantFrom('pacer.dev/resume', 'pacer.dev/skip'), junk, { maxKeys: 2 }),
        fc.boolean(),
        (spec, status, requests, frozen) => {
          const roll = deepFreeze({
            apiVersion: 'pacer.dev/v1alpha1',
            kind: 'NodeRoll',
            metadata: { name: 'r', generation: 1, annotations: requests },
            spec,
            status,
          } as unknown as NodeRoll);
          const nodes = ['n1', 'n2', 'n3'].map((name, i) => ({
            metadata: { name, labels: { group: 'w', 'topology.kubernetes.io/zone': 'abc'[i] } },
            status: { conditions: [{ type: 'Ready', status: 'True' }], allocatable: { pods: '10' } },
          }));
          const pass = rollPass({
            roll,
            nodes,
            pods: [],
            deployments: [],
            replicaSets: [],
            ...(frozen ? { frozen: 'Pacer is frozen (fuzz)' } : {}),
            now: NOW,
          });
          if (pass.status.phase === 'Invalid') {
            expect(pass.actions).to.deep.equal([]);
            expect(pass.status.message).to.match(/^spec\./);
          }
          for (const a of pass.actions)
            if (a.verb === 'scaleGroup') expect(wholeNonNegative(a.to), `scale to ${a.to}`).to.equal(true);
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
  });
});
