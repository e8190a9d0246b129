// The recorded upstream hashes and the generated Go types, checked against Go itself: runs
// hack/gotypes' programs (the real go-spew and k8s.io/api of the release the control plane pins)
// and compares with what the unit tests rely on without Go:
// * each row of test/fixtures/podtemplate-hash/*.json has the hash upstream's ComputeHash gives;
// * src/engine/kubernetes/podtemplate-types.json is what cmd/podtemplate-schema prints now;
// * hack/gotypes pins the modules hack/kube's control plane is built from.
// Needs go (skipped without it, a failure under CI=true).

import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { requireTool } from '../fixtures/tools.ts';

const run = promisify(execFile);
const GOTYPES = fileURLToPath(new URL('../../hack/gotypes/', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../fixtures/podtemplate-hash/', import.meta.url));
const GO_HOW = 'Go 1.26 or newer, as the control plane in hack/kube needs';
const goEnv = { ...process.env, GOTOOLCHAIN: 'local', GOFLAGS: '-mod=readonly' };

/** module path → version required in a go.mod. */
function requires(goMod: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of readFileSync(goMod, 'utf8').matchAll(
    /^\s*(?:require\s+)?([a-z0-9.\-/]+\.[a-z]+\/[^\s]+)\s+(v[^\s]+)/gm,
  ))
    out.set(m[1], m[2]);
  return out;
}

describe('pod-template-hash against Go (hack/gotypes)', function () {
  this.timeout(900_000);

  it("pins the modules of hack/kube's control plane: k8s.io/api, k8s.io/apimachinery, k8s.io/utils, go-spew", () => {
    const kube = requires(fileURLToPath(new URL('../../hack/kube/go.mod', import.meta.url)));
    const ours = requires(`${GOTYPES}go.mod`);
    for (const mod of ['k8s.io/api', 'k8s.io/apimachinery', 'k8s.io/utils', 'github.com/davecgh/go-spew']) {
      expect(ours.get(mod), `${mod} in hack/gotypes/go.mod`).to.be.a('string');
      expect(ours.get(mod), `${mod}: hack/gotypes/go.mod against hack/kube/go.mod`).to.equal(kube.get(mod));
    }
  });

  for (const file of ['corpus.json', 'kube-controller-manager.json']) {
    it(`${file}: every recorded hash is upstream's ComputeHash of the row's template`, async function () {
      const go = requireTool(this, 'go', GO_HOW);
      const rows: Array<{ name: string; hash: string }> = JSON.parse(readFileSync(`${FIXTURES}${file}`, 'utf8'));
      const { stdout } = await run(go, ['run', './cmd/podtemplate-hash', `${FIXTURES}${file}`], {
        cwd: GOTYPES,
        env: goEnv,
        maxBuffer: 1 << 24,
      });
      const fromGo = stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { name: string; hash: string });
      expect(fromGo.map((r) => [r.name, r.hash])).to.deep.equal(rows.map((r) => [r.name, r.hash]));
    });
  }

  it('src/engine/kubernetes/podtemplate-types.json is what cmd/podtemplate-schema prints', async function () {
    const go = requireTool(this, 'go', GO_HOW);
    const { stdout } = await run(go, ['run', './cmd/podtemplate-schema'], {
      cwd: GOTYPES,
      env: goEnv,
      maxBuffer: 1 << 24,
    });
    const checkedIn = readFileSync(
      fileURLToPath(new URL('../../src/engine/kubernetes/podtemplate-types.json', import.meta.url)),
      'utf8',
    );
    expect(
      stdout === checkedIn,
      'regenerate it: cd hack/gotypes && go run ./cmd/podtemplate-schema > ../../src/engine/kubernetes/podtemplate-types.json',
    ).to.be.true;
  });
});
