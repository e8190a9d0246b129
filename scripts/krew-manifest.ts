// The rules krew holds a plugin manifest to before it installs it (krew's ValidatePlugin and
// validatePlatform, https://github.com/kubernetes-sigs/krew/blob/master/internal/index/validation/validate.go),
// written here so that `make release` refuses a manifest krew would refuse, with krew's reasons.
// The semantic-version check is krew's too: a leading "v", then MAJOR.MINOR.PATCH with an optional
// pre-release and build (https://semver.org).

/** What krew reads of a manifest (index.Plugin); anything else is carried along unchecked. */
export interface KrewPlugin {
  apiVersion?: unknown;
  kind?: unknown;
  metadata?: { name?: unknown };
  spec?: {
    version?: unknown;
    shortDescription?: unknown;
    platforms?: unknown;
  };
}

export interface KrewPlatform {
  selector?: { matchLabels?: Record<string, string>; matchExpressions?: Array<{ key: string }> } | null;
  uri?: string;
  sha256?: string;
  bin?: string;
  files?: Array<{ from?: string; to?: string }> | null;
}

export const KREW_API_VERSION = 'krew.googlecontainertools.github.com/v1alpha2';
const SHA256 = /^[a-f0-9]{64}$/;
const SAFE_NAME = /^[\w-]+$/;
// Names Windows reserves for devices: krew refuses them as plugin names.
const WINDOWS_RESERVED = [
  'CON',
  'PRN',
  'AUX',
  'NUL',
  ...[1, 2, 3, 4, 5, 6, 7, 8, 9].flatMap((i) => [`COM${i}`, `LPT${i}`]),
];
const SEMVER =
  /^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/;

/**
 * The first rule `manifest` breaks for a plugin installed as `name`, in krew's words with the value
 * given, or undefined when krew would accept it. krew stops at the first problem; so does this.
 */
export function krewManifestError(name: string, manifest: KrewPlugin): string | undefined {
  const m = manifest ?? {};
  if (m.apiVersion !== KREW_API_VERSION)
    return `plugin manifest has apiVersion=${JSON.stringify(m.apiVersion ?? '')}, not supported (want ${JSON.stringify(KREW_API_VERSION)})`;
  if (m.kind !== 'Plugin')
    return `plugin manifest has kind=${JSON.stringify(m.kind ?? '')}, but only "Plugin" is supported`;
  if (!SAFE_NAME.test(name) || WINDOWS_RESERVED.includes(name.toUpperCase()))
    return `the plugin name ${JSON.stringify(name)} is not allowed, must match ${SAFE_NAME.source}`;
  const metaName = m.metadata?.name;
  if (metaName !== name) return `plugin should be named ${JSON.stringify(name)}, not ${JSON.stringify(metaName ?? '')}`;
  const spec = m.spec ?? {};
  if (typeof spec.shortDescription !== 'string' || spec.shortDescription === '')
    return 'should have a short description';
  if (/[\r\n]/.test(spec.shortDescription))
    return `should not have line breaks in short description (got ${JSON.stringify(spec.shortDescription)})`;
  if (!Array.isArray(spec.platforms) || spec.platforms.length === 0) return 'should have a platform specified';
  if (typeof spec.version !== 'string' || spec.version === '') return 'should have a version specified';
  if (!SEMVER.test(spec.version))
    return `failed to parse plugin version ${JSON.stringify(spec.version)}: want vMAJOR.MINOR.PATCH (semantic versioning with a leading "v")`;
  for (const [i, p] of (spec.platforms as KrewPlatform[]).entries()) {
    const err = platformError(p ?? {});
    if (err) return `platforms[${i}] is badly constructed: ${err}`;
  }
  return undefined;
}

function platformError(p: KrewPlatform): string | undefined {
  if (!p.uri) return '`uri` has to be set';
  if (!p.sha256) return '`sha256` sum has to be set';
  if (!SHA256.test(p.sha256))
    return `\`sha256\` value ${JSON.stringify(p.sha256)} is not valid, must match pattern ${SHA256.source}`;
  if (!p.bin) return '`bin` has to be set';
  if (p.files !== undefined && p.files !== null) {
    if (p.files.length === 0) return '`files` is invalid: `files` has to be unspecified or non-empty';
    for (const op of p.files) {
      if (!op.from) return `\`files\` is invalid: \`from\` field has to be set (got ${JSON.stringify(op)})`;
      if (!op.to) return `\`files\` is invalid: \`to\` field has to be set (got ${JSON.stringify(op)})`;
    }
  }
  const sel = p.selector;
  if (!sel) return 'invalid platform selector: nil selector is not supported';
  if (sel.matchLabels === undefined && (sel.matchExpressions ?? []).length === 0)
    return 'invalid platform selector: empty selector is not supported';
  const keys = [...Object.keys(sel.matchLabels ?? {}), ...(sel.matchExpressions ?? []).map((e) => e.key)];
  const bad = keys.find((k) => k !== 'os' && k !== 'arch');
  if (bad !== undefined)
    return `invalid platform selector: key ${JSON.stringify(bad)} not supported (only "os" and "arch")`;
  if (sel.matchLabels !== undefined && Object.keys(sel.matchLabels).length === 0)
    return 'invalid platform selector: `matchLabels` specified but empty';
  if (sel.matchExpressions !== undefined && sel.matchExpressions.length === 0)
    return 'invalid platform selector: `matchExpressions` specified but empty';
  return undefined;
}
