// A write decided on a read of the Deployment carries the resourceVersion it was decided on (a merge
// patch's metadata.resourceVersion, or a JSON patch's first `test`), so that a concurrent change is
// not overwritten. The controller writes the Deployment all the time, though (its status bumps the
// resourceVersion too), so such a write is read and decided again when it lost that race, rather
// than failing the command: up to STALE_ATTEMPTS times, as kubectl's own commands never fail on a
// status write (their patches carry no resourceVersion).

import { isStalePatch } from '../kube/errors.ts';

/** How many times a read, decide and write is tried before its last lost race is the answer. */
export const STALE_ATTEMPTS = 5;

/**
 * Runs `attempt` (read, decide, write) until it does not lose a race with another writer
 * (`isStalePatch`: a Conflict, or a JSON patch whose `test` no longer holds), at most
 * STALE_ATTEMPTS times. Any other error is thrown at once.
 */
export async function untilNotStale<R>(attempt: () => Promise<R>): Promise<R> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (n < STALE_ATTEMPTS && isStalePatch(err)) continue;
      throw err;
    }
  }
}
