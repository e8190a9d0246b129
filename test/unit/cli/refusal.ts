// What `pacer controller` says of options it refuses: the CliError validateOptions throws (the
// flag tests check its message and exit code).

import { expect } from 'chai';
import { CliError, validateOptions } from '../../../src/cli/controller.ts';
import type { RunControllerOptions } from '../../../src/cli/controller.ts';

/** The CliError `o` is refused with; fails the test when `o` is accepted or another error is thrown. */
export function refusalOf(o: RunControllerOptions): CliError {
  let err: unknown;
  try {
    validateOptions(o);
  } catch (e) {
    err = e;
  }
  expect(err, `refused: ${JSON.stringify(o)}`).to.be.instanceOf(CliError);
  return err as CliError;
}
