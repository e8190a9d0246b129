import { expect } from 'chai';
import type { IntOrString } from '../../../src/api/types.ts';
import { maxSurge, maxUnavailable, minAvailable, resolveFenceposts } from '../../../src/engine/fenceposts.ts';
import { deployment } from './fixtures.ts';

describe('engine/fenceposts', () => {
  describe('ResolveFenceposts', () => {
    const rows: Array<[IntOrString | undefined, IntOrString | undefined, number, number, number]> = [
      ['39%', '39%', 10, 4, 3],
      ['0%', '0%', 0, 0, 1],
      [undefined, undefined, 10, 0, 1],
      ['25%', '25%', 3, 1, 0],
      [2, 0, 10, 2, 0],
      ['90%', '90%', 95, 86, 85],
    ];
    for (const [surge, unavailable, desired, wantSurge, wantUnavailable] of rows) {
      it(`maxSurge ${String(surge)}, maxUnavailable ${String(unavailable)}, ${desired} replicas → ${wantSurge} / ${wantUnavailable}`, () => {
        expect(resolveFenceposts(surge, unavailable, desired)).to.deep.equal({
          surge: wantSurge,
          unavailable: wantUnavailable,
        });
      });
    }
    it('an unparseable value is an error', () =>
      expect(() => resolveFenceposts('5', 0, 10)).to.throw(/not a percentage/));
  });

  describe('MaxSurge / MaxUnavailable / MinAvailable', () => {
    const rows: Array<[string, Parameters<typeof deployment>[0], number, number, number]> = [
      ['25% of 10', { replicas: 10 }, 3, 2, 8],
      ['unavailable capped at replicas', { replicas: 2, maxSurge: 0, maxUnavailable: 5 }, 0, 2, 0],
      ['0 replicas: no unavailable', { replicas: 0, maxSurge: 0, maxUnavailable: 0 }, 0, 0, 0],
      ['both 0 resolve unavailable to 1', { replicas: 10, maxSurge: 0, maxUnavailable: 0 }, 0, 1, 9],
      ['Recreate has neither', { replicas: 10, type: 'Recreate' }, 0, 0, 0],
    ];
    for (const [name, opts, surge, unavailable, min] of rows) {
      it(`${name} → surge ${surge}, unavailable ${unavailable}, min available ${min}`, () => {
        const d = deployment(opts);
        expect([maxSurge(d), maxUnavailable(d), minAvailable(d)]).to.deep.equal([surge, unavailable, min]);
      });
    }
  });
});
