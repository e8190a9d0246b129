// Loaded by mocha before any test file (.mocharc.json): puts the Kubernetes binaries that
// hack/kube/build.sh built for this checkout (kubectl, and the real control plane when built) first on
// PATH, so every test runs the kubectl of the release the project pins, not whatever else the
// machine has; and, when built, Kubernetes' own e2e test binary and ginkgo (hack/e2e/build.sh),
// which test/e2e/upstream-deployment.test.ts runs; and Cluster API's managers with capi-bed
// (hack/capi/build.sh), which test/e2e/capi.test.ts runs; Helm (hack/helm/build.sh), which the chart's
// tests run; and pacer-image (hack/image/build.sh), which lays out the controller's image. `make test`
// builds them first; `npx mocha` alone uses them once built.

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

for (const script of [
  '../hack/image/build.sh',
  '../hack/helm/build.sh',
  '../hack/capi/build.sh',
  '../hack/e2e/build.sh',
  '../hack/kube/build.sh',
]) {
  const binDir = execFileSync(fileURLToPath(new URL(script, import.meta.url)), ['--bin-dir'], {
    encoding: 'utf8',
  }).trim();
  if (existsSync(binDir)) process.env.PATH = `${binDir}:${process.env.PATH ?? ''}`;
}
