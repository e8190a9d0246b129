// `pacer controller --kube-api-qps Q --kube-api-burst B` (docs/flow-control.md): the values accepted
// and each bad one refused with exit code 2, naming the flag and showing the value given; and the
// default, which the command, the chart and the constant the controller starts with must agree on.

import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import {
  DEFAULT_KUBE_API_BURST,
  DEFAULT_KUBE_API_QPS,
  controllerCommand,
  validateOptions,
} from '../../../src/cli/controller.ts';
import type { RunControllerOptions } from '../../../src/cli/controller.ts';
import { refusalOf } from './refusal.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');

/** kube-controller-manager's --kube-api-qps and --kube-api-burst defaults. */
const KCM_QPS = 20;
const KCM_BURST = 30;

function defaultOf(flag: string): string {
  const o = controllerCommand().options.find((x) => x.long === flag);
  if (!o) throw new Error(`pacer controller has no ${flag}`);
  return String(o.defaultValue);
}

describe('cli/controller: the client limit flags', () => {
  describe('the default', () => {
    it('pacer controller --help shows the limit the controller starts with', () => {
      expect(defaultOf('--kube-api-qps')).to.equal(String(DEFAULT_KUBE_API_QPS));
      expect(defaultOf('--kube-api-burst')).to.equal(String(DEFAULT_KUBE_API_BURST));
    });
    it("the chart's controller.kubeApiQps and kubeApiBurst are the same", () => {
      const values = parse(readFileSync(join(ROOT, 'charts', 'pacer', 'values.yaml'), 'utf8')) as {
        controller: { kubeApiQps: number; kubeApiBurst: number };
      };
      expect(values.controller.kubeApiQps).to.equal(DEFAULT_KUBE_API_QPS);
      expect(values.controller.kubeApiBurst).to.equal(DEFAULT_KUBE_API_BURST);
    });
    it("is a ceiling above kube-controller-manager's pace (20/30), with the burst at least the rate", () => {
      expect(DEFAULT_KUBE_API_QPS).to.be.greaterThan(KCM_QPS);
      expect(DEFAULT_KUBE_API_BURST).to.be.greaterThan(KCM_BURST);
      expect(DEFAULT_KUBE_API_BURST).to.be.at.least(DEFAULT_KUBE_API_QPS);
    });
  });

  const accepted: Array<[string, RunControllerOptions]> = [
    ['no flag', {}],
    ["kube-controller-manager's 20/30", { kubeApiQps: 20, kubeApiBurst: 30 }],
    ['--kube-api-qps 0: no limit', { kubeApiQps: 0 }],
    ['--kube-api-qps 0.5', { kubeApiQps: 0.5 }],
    ['--kube-api-burst 1', { kubeApiBurst: 1 }],
  ];
  for (const [what, o] of accepted) it(`accepts ${what}`, () => expect(() => validateOptions(o)).to.not.throw());

  const refused: Array<[string, RunControllerOptions, string]> = [
    ['--kube-api-qps -5', { kubeApiQps: -5 }, '--kube-api-qps: must be a number of at least 0 (0: no limit), got "-5"'],
    [
      '--kube-api-qps NaN',
      { kubeApiQps: Number.NaN },
      '--kube-api-qps: must be a number of at least 0 (0: no limit), got "NaN"',
    ],
    [
      '--kube-api-qps Infinity',
      { kubeApiQps: Number.POSITIVE_INFINITY },
      '--kube-api-qps: must be a number of at least 0 (0: no limit), got "Infinity"',
    ],
    ['--kube-api-burst 0', { kubeApiBurst: 0 }, '--kube-api-burst: must be an integer of at least 1, got "0"'],
    ['--kube-api-burst 2.5', { kubeApiBurst: 2.5 }, '--kube-api-burst: must be an integer of at least 1, got "2.5"'],
  ];
  for (const [what, o, message] of refused) {
    it(`refuses ${what}`, () => {
      const err = refusalOf(o);
      expect(err.message).to.equal(message);
      expect(err.exitCode).to.equal(2);
    });
  }
});
