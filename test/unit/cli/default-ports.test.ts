// The ports `pacer controller` and `pacer up` listen on by default. None may be 8080: with no
// KUBECONFIG (and no ~/.kube/config), kubectl talks to http://localhost:8080, so a Pacer there would
// answer kubectl with `the server could not find the requested resource` (issue 29). Metrics take
// kubebuilder's port for secure metrics, 8443 (https://book.kubebuilder.io/reference/metrics), the
// same in the install manifests.

import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { parseAllDocuments } from 'yaml';
import { controllerCommand } from '../../../src/cli/controller.ts';
import { upCommand } from '../../../src/cli/up.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
/** Where kubectl goes when it has no kubeconfig at all. */
const KUBECTL_FALLBACK_PORT = 8080;

function defaultOf(cmd: Command, flag: string): string {
  const o = cmd.options.find((x) => x.long === flag);
  if (!o) throw new Error(`${cmd.name()} has no ${flag}`);
  return String(o.defaultValue);
}

const portOf = (addr: string): number => Number(addr.slice(addr.lastIndexOf(':') + 1));

describe('cli: default ports', () => {
  const rows: Array<[Command, string, string]> = [
    [controllerCommand(), '--metrics-bind-address', ':8443'],
    [controllerCommand(), '--health-probe-bind-address', ':8081'],
    [controllerCommand(), '--api-bind-address', ':8082'],
    [controllerCommand(), '--webhook-bind-address', ':9443'],
    [upCommand(), '--metrics-bind-address', '127.0.0.1:8443'],
    [upCommand(), '--health-probe-bind-address', '127.0.0.1:8081'],
    [upCommand(), '--api-bind-address', '127.0.0.1:8082'],
    [upCommand(), '--dashboard-bind-address', '127.0.0.1:3100'],
  ];
  for (const [cmd, flag, want] of rows) {
    it(`pacer ${cmd.name()} ${flag} defaults to ${want}, not kubectl's fallback port`, () => {
      const got = defaultOf(cmd, flag);
      expect(got).to.equal(want);
      expect(portOf(got)).not.to.equal(KUBECTL_FALLBACK_PORT);
    });
  }

  it("the install manifests' controller listens for metrics where the CLI's default does", () => {
    const docs = parseAllDocuments(readFileSync(join(ROOT, 'manifests', 'base', 'deployment.yaml'), 'utf8'));
    const deployment = docs.map((d) => d.toJS()).find((o) => o?.kind === 'Deployment');
    const container = deployment.spec.template.spec.containers[0];
    expect(container.args).to.include(
      `--metrics-bind-address=${defaultOf(controllerCommand(), '--metrics-bind-address')}`,
    );
    expect(container.ports.find((p: { name: string }) => p.name === 'metrics').containerPort).to.equal(8443);
  });
});
