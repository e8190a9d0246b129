// `pacer controller --shards N [--shard-id K]` (docs/sharding.md): the values accepted, and each bad
// one refused with exit code 2 and a message naming the flag and showing the value given.

import { expect } from 'chai';
import { CliError, integerFlag, validateOptions } from '../../../src/cli/controller.ts';
import type { RunControllerOptions } from '../../../src/cli/controller.ts';
import { refusalOf } from './refusal.ts';

describe('cli/controller: the shard flags', () => {
  const accepted: Array<[string, RunControllerOptions]> = [
    ['no flag: one shard, the single Lease', {}],
    ['--shards 1 without leader election (one shard is today)', { shards: 1, leaderElect: false }],
    ['--shards 3, automatic membership', { shards: 3, leaderElect: true }],
    ['--shards 3 --shard-id 0', { shards: 3, shardId: 0, leaderElect: true }],
    ['--shards 3 --shard-id 2', { shards: 3, shardId: 2, leaderElect: true }],
    ['--shards 1000', { shards: 1000, leaderElect: true }],
  ];
  for (const [what, o] of accepted) it(`accepts ${what}`, () => expect(() => validateOptions(o)).to.not.throw());

  const refused: Array<[string, RunControllerOptions, string]> = [
    ['--shards 0', { shards: 0, leaderElect: true }, '--shards: must be an integer from 1 to 1000, got "0"'],
    ['--shards 1001', { shards: 1001, leaderElect: true }, '--shards: must be an integer from 1 to 1000, got "1001"'],
    ['--shards 2.5', { shards: 2.5, leaderElect: true }, '--shards: must be an integer from 1 to 1000, got "2.5"'],
    [
      '--shards 3 --leader-elect=false',
      { shards: 3, leaderElect: false },
      '--shards: shards are held through Leases and need --leader-elect=true, got --shards 3 with --leader-elect=false',
    ],
    [
      '--shard-id 3 of 3',
      { shards: 3, shardId: 3, leaderElect: true },
      '--shard-id: must be below --shards 3 (shards are numbered from 0), got "3"',
    ],
    [
      '--shard-id without --shards',
      { shardId: 0, leaderElect: true },
      '--shard-id: needs --shards of at least 2 (one shard is the single leader election Lease), got --shard-id 0 with --shards 1',
    ],
    [
      '--shard-id -1',
      { shards: 3, shardId: -1, leaderElect: true },
      '--shard-id: must be an integer of at least 0, got "-1"',
    ],
  ];
  for (const [what, o, message] of refused)
    it(`refuses ${what}: exit 2, ${message}`, () => {
      const err = refusalOf(o);
      expect(err.message).to.equal(message);
      expect(err.exitCode).to.equal(2);
    });

  const texts: Array<[string, number | undefined | string]> = [
    ['3', 3],
    [' 3 ', 3],
    ['0', 0],
    ['three', '--shards: must be a non-negative integer, got "three"'],
    ['-1', '--shards: must be a non-negative integer, got "-1"'],
    ['1.5', '--shards: must be a non-negative integer, got "1.5"'],
    ['', '--shards: must be a non-negative integer, got ""'],
  ];
  for (const [text, want] of texts)
    it(`the text ${JSON.stringify(text)} → ${typeof want === 'number' ? want : 'exit 2'}`, () => {
      if (typeof want === 'number') expect(integerFlag('--shards', text)).to.equal(want);
      else expect(() => integerFlag('--shards', text)).to.throw(CliError, want);
    });
});
