import { ApiError } from '../../../src/sim/types.ts';

/** The ApiError `fn` throws (anything else fails the test). */
export function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected an ApiError');
}
