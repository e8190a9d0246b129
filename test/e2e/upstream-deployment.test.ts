// Kubernetes' own `[sig-apps] Deployment` end-to-end specs (k8s.io/kubernetes/test/e2e of the
// control plane's release, built by hack/e2e/build.sh and run by hack/e2e/run.sh) against the real
// bed, once per Deployment controller. Each configuration must give exactly the outcomes recorded
// below: with kube-controller-manager's own controller every spec that can run here passes (the
// baseline a replacement must match), and with no Deployment controller at all those specs fail
// (so the check can fail), all but one that passes without any controller and so proves nothing on
// its own. The simulated cluster runs no apps/v1 Deployment controller: the real bed's only.
//
// Pacer's native mode is the third configuration: the bed without kube-controller-manager's
// Deployment controller, Pacer started on it (startPacerNative), expecting BASELINE: every spec
// that passes with upstream's controller passes with Pacer's.

import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_WORKERS } from '../../src/cli/controller.ts';
import { createLogger } from '../../src/observe/logger.ts';
import { requireTool } from '../fixtures/tools.ts';
import { startTestController } from '../integration/fixtures/cluster.ts';
import { startRealBed } from '../fixtures/realbed.ts';
import type { RealBed, RealBedOptions } from '../fixtures/realbed.ts';
import { BEDS, ROOT } from './fixtures.ts';

type State = 'passed' | 'failed' | 'skipped';

/**
 * The specs the focus `\[sig-apps\] Deployment` selects in v1.36.4, each with its outcome on this bed
 * with kube-controller-manager's Deployment controller and with none (measured; docs/testing.md).
 * The cloud load-balancer spec needs a cloud provider's load balancer: run.sh skips it.
 */
const SPECS: Array<[spec: string, upstream: State, none: State]> = [
  ['deployment reaping should cascade to its replica sets and pods', 'passed', 'failed'],
  ['RollingUpdateDeployment should delete old pods and create new ones [Conformance]', 'passed', 'failed'],
  ['RecreateDeployment should delete old pods and create new ones [Conformance]', 'passed', 'failed'],
  // With no controller the Deployment makes no ReplicaSet, so there is none to clean up either.
  ['deployment should delete old replica sets [Conformance]', 'passed', 'passed'],
  ['deployment should support rollover [Conformance]', 'passed', 'failed'],
  ['iterative rollouts should eventually progress', 'passed', 'failed'],
  ['test Deployment ReplicaSet orphaning and adoption regarding controllerRef', 'passed', 'failed'],
  ['Deployment should have a working scale subresource [Conformance]', 'passed', 'failed'],
  // Needs kube-bed's stage that keeps pods of webserver:404 Pending in ErrImagePull.
  ['deployment should support proportional scaling [Conformance]', 'passed', 'failed'],
  ["should not disrupt a cloud load-balancer's connectivity during rollout", 'skipped', 'skipped'],
  ['should run the lifecycle of a Deployment [Conformance]', 'passed', 'failed'],
  ['should validate Deployment Status endpoints [Conformance]', 'passed', 'failed'],
];
const PREFIX = '[sig-apps] Deployment ';

/** What every spec must give with kube-controller-manager's controller: what Pacer's must give too. */
const BASELINE = Object.fromEntries(SPECS.map(([spec, upstream]) => [PREFIX + spec, upstream]));
const WITHOUT = Object.fromEntries(SPECS.map(([spec, , none]) => [PREFIX + spec, none]));

interface Configuration {
  name: string;
  bed: RealBedOptions;
  /**
   * Starts the Deployment controller under test on the bed, if it is not kube-controller-manager's;
   * its log goes to `logFile` (kept with ginkgo's reports when the outcomes differ).
   */
  start?: (bed: RealBed, logFile: string) => Promise<{ stop(): Promise<void> }>;
  /**
   * ginkgo's processes. With a controller 4 (the specs take 1 to 60 s each). With none most specs
   * wait out their 5-minute timeouts, so each gets a process of its own and the run takes 5 minutes.
   */
  procs: number;
  expected: Record<string, State>;
}

const CONFIGURATIONS: Configuration[] = [
  { name: "kube-controller-manager's Deployment controller", bed: {}, procs: 4, expected: BASELINE },
  { name: 'no Deployment controller at all', bed: { noDeploymentController: true }, procs: 12, expected: WITHOUT },
  {
    name: "Pacer's native mode",
    bed: { noDeploymentController: true },
    procs: 4,
    expected: BASELINE,
    start: startPacerNative,
  },
];

/**
 * Pacer as the cluster's Deployment controller: the CRDs, manifests/base's and manifests/native's
 * RBAC, then the controller in-process as Pacer's ServiceAccount, controlling apps/v1 Deployments
 * in every namespace (each spec makes its own).
 */
async function startPacerNative(bed: RealBed, logFile: string): Promise<{ stop(): Promise<void> }> {
  const kubeconfig = await bed.controllerKubeconfig();
  for (const args of [
    ['apply', '-f', join(ROOT, 'crds')],
    ['apply', '-f', join(ROOT, 'manifests', 'native', 'rbac', 'rbac.yaml')],
    ['wait', '--for=condition=Established', 'crd/deployments.pacer.dev', '--timeout=60s'],
  ]) {
    const r = await bed.kubectl(args);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
  }
  // Every pass and write at debug level: a spec that fails can be followed in it.
  const log = createWriteStream(logFile);
  const ctl = await startTestController(kubeconfig, {
    deployments: ['apps', 'pacer'],
    workers: DEFAULT_WORKERS,
    logger: createLogger({ level: 'debug', stream: log }),
  });
  return {
    async stop() {
      await ctl.stop();
      await new Promise<void>((resolve) => log.end(resolve));
    },
  };
}

/** One spec's outcome in ginkgo's JSON report (the fields read here). */
interface SpecReport {
  ContainerHierarchyTexts?: string[];
  LeafNodeText: string;
  LeafNodeType: string;
  State: string;
  Failure?: { Message?: string };
}

/** Each spec of the focus by its full name: its state, and the start of its failure message. */
function outcomes(report: Array<{ SpecReports?: SpecReport[] }>): Map<string, { state: string; why: string }> {
  const out = new Map<string, { state: string; why: string }>();
  for (const suite of report)
    for (const s of suite.SpecReports ?? []) {
      const name = [...(s.ContainerHierarchyTexts ?? []), s.LeafNodeText].join(' ');
      // The report also holds every spec the focus left out (skipped), and the suite's setup nodes.
      if (s.LeafNodeType !== 'It' || !name.startsWith(PREFIX)) continue;
      out.set(name, { state: s.State, why: (s.Failure?.Message ?? '').split('\n')[0].slice(0, 200) });
    }
  return out;
}

function run(cmd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

for (const bed of BEDS.filter((b) => b === 'real'))
  describe(`e2e (${bed}): Kubernetes' own [sig-apps] Deployment specs`, function () {
    // The run without a controller takes about 6 minutes, the others about 2 (docs/testing.md).
    this.timeout(20 * 60_000);
    const how = 'hack/e2e/build.sh builds it with Go; make test runs it';
    before(function () {
      requireTool(this, 'kube-bed', 'hack/kube/build.sh builds it with Go; make test runs it');
      requireTool(this, 'e2e.test', how);
      requireTool(this, 'ginkgo', how);
    });

    for (const c of CONFIGURATIONS)
      it(`with ${c.name}: ${Object.values(c.expected).filter((s) => s === 'passed').length} pass, ${Object.values(c.expected).filter((s) => s === 'failed').length} fail`, async function () {
        if (c.bed.noDeploymentController && process.env.PACER_E2E_KUBECONFIG) {
          console.log(
            '      skipped: PACER_E2E_KUBECONFIG names a cluster whose Deployment controller cannot be turned off',
          );
          this.skip();
        }
        const dir = await mkdtemp(join(tmpdir(), 'pacer-upstream-e2e-'));
        const real = await startRealBed(c.bed);
        let controller: { stop(): Promise<void> } | undefined;
        try {
          controller = await c.start?.(real, join(dir, 'controller.log'));
          const r = await run(join(ROOT, 'hack', 'e2e', 'run.sh'), [
            '--kubeconfig',
            real.info.kubeconfig,
            '--procs',
            String(c.procs),
            '--report-dir',
            dir,
          ]);
          expect(r.code, `hack/e2e/run.sh failed: ${r.stderr}`).to.equal(0);
          const got = outcomes(JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')));
          const why = [...got]
            .filter(([name, o]) => o.state !== c.expected[name])
            .map(([name, o]) => `${name}: ${o.state} (${o.why})`)
            .join('\n');
          expect(
            Object.fromEntries([...got].map(([name, o]) => [name, o.state])),
            `outcomes differ from the recorded ones (reports${c.start ? " and the controller's log" : ''} kept in ${dir}):\n${why}`,
          ).to.deep.equal(c.expected);
          // Stopped first: its log is still being written until then.
          await controller?.stop();
          controller = undefined;
          await rm(dir, { recursive: true, force: true });
        } finally {
          await controller?.stop();
          await real.stop();
        }
      });
  });
