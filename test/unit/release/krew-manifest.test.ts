// krew's manifest rules (scripts/krew-manifest.ts), a row per rule krew states in its validation
// (internal/index/validation/validate.go): each bad manifest gets krew's reason with the value given,
// and the good one passes.

import { expect } from 'chai';
import { type KrewPlatform, type KrewPlugin, krewManifestError } from '../../../scripts/krew-manifest.ts';

const SHA = 'a'.repeat(64);
const platform = (over: Partial<KrewPlatform> = {}): KrewPlatform => ({
  selector: { matchLabels: { os: 'linux', arch: 'amd64' } },
  uri: 'https://example.org/pacer.tar.gz',
  sha256: SHA,
  files: [{ from: 'pacer/*', to: '.' }],
  bin: 'bin/kubectl-pacer.js',
  ...over,
});
const manifest = (spec: Record<string, unknown> = {}, top: Partial<KrewPlugin> = {}): KrewPlugin => ({
  apiVersion: 'krew.googlecontainertools.github.com/v1alpha2',
  kind: 'Plugin',
  metadata: { name: 'pacer' },
  spec: { version: 'v0.1.0', shortDescription: 'Rollouts for Pacer', platforms: [platform()], ...spec },
  ...top,
});

describe('krew manifest rules', () => {
  it('a manifest as make release writes it passes', () => {
    expect(krewManifestError('pacer', manifest())).to.equal(undefined);
    expect(krewManifestError('pacer', manifest({ version: 'v1.2.3-rc.1+build.5' }))).to.equal(undefined);
    expect(
      krewManifestError(
        'pacer',
        manifest({ platforms: [platform({ files: undefined, selector: { matchExpressions: [{ key: 'os' }] } })] }),
      ),
    ).to.equal(undefined);
  });

  const rows: Array<[string, string, KrewPlugin, string]> = [
    [
      'an old apiVersion',
      'pacer',
      manifest({}, { apiVersion: 'krew.googlecontainertools.github.com/v1alpha1' }),
      'plugin manifest has apiVersion="krew.googlecontainertools.github.com/v1alpha1", not supported (want "krew.googlecontainertools.github.com/v1alpha2")',
    ],
    [
      'another kind',
      'pacer',
      manifest({}, { kind: 'Deployment' }),
      'plugin manifest has kind="Deployment", but only "Plugin" is supported',
    ],
    [
      'a name with a dot',
      'pa.cer',
      manifest({}, { metadata: { name: 'pa.cer' } }),
      'the plugin name "pa.cer" is not allowed, must match ^[\\w-]+$',
    ],
    [
      "a Windows device's name",
      'con',
      manifest({}, { metadata: { name: 'con' } }),
      'the plugin name "con" is not allowed, must match ^[\\w-]+$',
    ],
    [
      'a name other than the file',
      'pacer',
      manifest({}, { metadata: { name: 'pace' } }),
      'plugin should be named "pacer", not "pace"',
    ],
    ['no short description', 'pacer', manifest({ shortDescription: '' }), 'should have a short description'],
    [
      'a short description on two lines',
      'pacer',
      manifest({ shortDescription: 'one\ntwo' }),
      'should not have line breaks in short description (got "one\\ntwo")',
    ],
    ['no platform', 'pacer', manifest({ platforms: [] }), 'should have a platform specified'],
    ['no version', 'pacer', manifest({ version: '' }), 'should have a version specified'],
    [
      'a version without its v',
      'pacer',
      manifest({ version: '0.1.0' }),
      'failed to parse plugin version "0.1.0": want vMAJOR.MINOR.PATCH (semantic versioning with a leading "v")',
    ],
    [
      'no uri',
      'pacer',
      manifest({ platforms: [platform({ uri: '' })] }),
      'platforms[0] is badly constructed: `uri` has to be set',
    ],
    [
      'no sha256',
      'pacer',
      manifest({ platforms: [platform(), platform({ sha256: '' })] }),
      'platforms[1] is badly constructed: `sha256` sum has to be set',
    ],
    [
      'a checksum in capitals',
      'pacer',
      manifest({ platforms: [platform({ sha256: 'A'.repeat(64) })] }),
      `platforms[0] is badly constructed: \`sha256\` value "${'A'.repeat(64)}" is not valid, must match pattern ^[a-f0-9]{64}$`,
    ],
    [
      'no bin',
      'pacer',
      manifest({ platforms: [platform({ bin: '' })] }),
      'platforms[0] is badly constructed: `bin` has to be set',
    ],
    [
      'files given empty',
      'pacer',
      manifest({ platforms: [platform({ files: [] })] }),
      'platforms[0] is badly constructed: `files` is invalid: `files` has to be unspecified or non-empty',
    ],
    [
      'a file without to',
      'pacer',
      manifest({ platforms: [platform({ files: [{ from: '*' }] })] }),
      'platforms[0] is badly constructed: `files` is invalid: `to` field has to be set (got {"from":"*"})',
    ],
    [
      'no selector',
      'pacer',
      manifest({ platforms: [platform({ selector: null })] }),
      'platforms[0] is badly constructed: invalid platform selector: nil selector is not supported',
    ],
    [
      'an empty selector',
      'pacer',
      manifest({ platforms: [platform({ selector: {} })] }),
      'platforms[0] is badly constructed: invalid platform selector: empty selector is not supported',
    ],
    [
      'a selector on a label krew does not set',
      'pacer',
      manifest({ platforms: [platform({ selector: { matchLabels: { os: 'linux', distro: 'debian' } } })] }),
      'platforms[0] is badly constructed: invalid platform selector: key "distro" not supported (only "os" and "arch")',
    ],
    [
      'matchLabels given empty',
      'pacer',
      manifest({ platforms: [platform({ selector: { matchLabels: {}, matchExpressions: [{ key: 'os' }] } })] }),
      'platforms[0] is badly constructed: invalid platform selector: `matchLabels` specified but empty',
    ],
  ];
  for (const [what, name, m, message] of rows)
    it(`${what}: ${message}`, () => {
      expect(krewManifestError(name, m)).to.equal(message);
    });
});
