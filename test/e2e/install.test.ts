// The install manifests judged by a real API server (real control plane only): `kubectl apply -k
// manifests/ --dry-run=server` accepts every object (the NetworkPolicy, the RBAC, the Deployment),
// and Pod Security admission, which the pacer-system namespace sets to "restricted" (enforce, warn,
// audit), has nothing to say about the controller's pod template; the same template with privilege
// escalation allowed and capabilities kept is warned about, so silence is the admission's verdict.

import { expect } from 'chai';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { BEDS, ROOT, kubectlEnv } from './fixtures.ts';

for (const bed of BEDS.filter((b) => b === 'real'))
  describe(`e2e (${bed}): the install manifests pass the API server and Pod Security "restricted"`, function () {
    this.timeout(120_000);
    const k = kubectlEnv({ bed, tmpPrefix: 'pacer-install-', sim: {} });
    before(function () {
      return k.start(this);
    });
    after(() => k.stop());

    it('kubectl apply -k manifests/ --dry-run=server: every object accepted, no Pod Security warning', async () => {
      await k.ok(k.kubectl('apply', '-f', join(ROOT, 'manifests', 'base', 'namespace.yaml')));
      const r = await k.kubectl('apply', '-k', join(ROOT, 'manifests'), '--dry-run=server');
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout).to.contain('deployment.apps/pacer-controller created (server dry run)');
      expect(r.stdout).to.contain('networkpolicy.networking.k8s.io/pacer-controller created (server dry run)');
      expect(r.stderr).to.not.contain('PodSecurity');
    });

    it('the same pod template made unsafe is warned about in the restricted namespace', async () => {
      const d = parse(await readFile(join(ROOT, 'manifests', 'base', 'deployment.yaml'), 'utf8')) as {
        spec: { template: { spec: { containers: Array<{ securityContext: Record<string, unknown> }> } } };
      };
      d.spec.template.spec.containers[0].securityContext = { runAsNonRoot: true, readOnlyRootFilesystem: true };
      const file = join(k.dir, 'unsafe.yaml');
      await writeFile(file, stringify(d));
      const r = await k.kubectl('apply', '-f', file, '--dry-run=server');
      expect(r.stderr).to.match(
        /would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false .*unrestricted capabilities/,
      );
    });
  });
