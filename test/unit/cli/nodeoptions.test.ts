// The controller's start-up log names its young generation's cap (src/cli/nodeoptions.ts): from
// NODE_OPTIONS, or Node's own flags, which win over NODE_OPTIONS as Node reads them.

import { expect } from 'chai';
import { CONTROLLER_NODE_OPTIONS, youngGeneration } from '../../../src/cli/nodeoptions.ts';

describe('cli/nodeoptions: the young generation the controller runs with', () => {
  const rows: Array<[string, string, string[], string]> = [
    ['the NODE_OPTIONS for outside a container', CONTROLLER_NODE_OPTIONS, [], '8 MiB a semi-space'],
    [
      'among other options',
      '--enable-source-maps --max-semi-space-size=16 --trace-warnings',
      [],
      '16 MiB a semi-space',
    ],
    ['V8 spelling, on the command line', '', ['--max_semi_space_size=4'], '4 MiB a semi-space'],
    [
      'the command line over NODE_OPTIONS',
      '--max-semi-space-size=8',
      ['--max-semi-space-size=32'],
      '32 MiB a semi-space',
    ],
  ];
  for (const [what, nodeOptions, execArgv, says] of rows)
    it(`${what}: ${says}`, () => {
      expect(youngGeneration(nodeOptions, execArgv)).to.equal(says);
    });

  it("without one, Node's default, and what to set outside a container", () => {
    expect(youngGeneration('--max-old-space-size=768', ['--enable-source-maps'])).to.equal(
      `Node's default, sized from the memory it sees (outside a container: NODE_OPTIONS=${CONTROLLER_NODE_OPTIONS}, docs/install.md#memory)`,
    );
  });
});
