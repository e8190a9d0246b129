// `kubectl pacer windows set|status|clear` (docs/semantics/windows.md#the-clusters-default): the
// cluster's default maintenance windows are the ConfigMap pacer-maintenance-windows in Pacer's
// namespace (pacer-system unless -n names another), beside the freeze switch. `set -f FILE` writes
// a file's `windows` and `blackouts` (in the shape of a NodeRoll's spec.windows and spec.blackouts)
// into it once they are valid; `status` says what they are and whether one is open now; `clear`
// deletes it. Like kubectl apply, setting what is already set says "unchanged"; like kubectl cordon,
// clearing what is clear says so; both succeed. Each change is an Event on the ConfigMap.

import { readFileSync } from 'node:fs';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { metaTime } from '../api/duration.ts';
import { formatFieldError } from '../api/validation.ts';
import { validateWindows } from '../api/windows.ts';
import type { Blackout, MaintenanceWindow, WindowsSpec } from '../api/windows.ts';
import {
  DEFAULT_BLACKOUTS_KEY,
  DEFAULT_WINDOWS_CONFIGMAP,
  DEFAULT_WINDOWS_KEY,
  closedInWords,
  defaultWindowsOf,
  effectiveWindows,
  windowState,
} from '../engine/index.ts';
import type { DefaultWindows } from '../engine/index.ts';
import { CONFIGMAPS } from '../kube/client.ts';
import { isKind } from '../kube/errors.ts';
import { tabwrite } from './format.ts';
import { getConfigMap, recordOnConfigMap } from './configmaps.ts';
import type { ConfigMap } from './configmaps.ts';
import type { Session } from './options.ts';
import { printData } from './options.ts';

/**
 * A file's default windows as the ConfigMap's data: its `windows` and `blackouts` lists, each
 * written as YAML under the key of its name. Every problem names the file and the field's path
 * (`windows[0].timeZone`) with the value given.
 */
export function windowsFileData(text: string, file: string): { data: Record<string, string> } | { errors: string[] } {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    return { errors: [`${file}: must be YAML or JSON: ${(err as Error).message.split('\n')[0]}`] };
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc))
    return {
      errors: [
        `${file}: must be a mapping with "windows" and/or "blackouts" (the shape of a NodeRoll's spec.windows and spec.blackouts), not ${Array.isArray(doc) ? 'a list' : JSON.stringify(doc)}`,
      ],
    };
  const errors: string[] = [];
  for (const key of Object.keys(doc))
    if (key !== DEFAULT_WINDOWS_KEY && key !== DEFAULT_BLACKOUTS_KEY)
      errors.push(`${file}: ${key}: Unsupported value: "${key}": supported keys: "windows", "blackouts"`);
  const spec = doc as WindowsSpec;
  errors.push(
    ...validateWindows(spec, '').map((e) => `${file}: ${formatFieldError({ ...e, field: e.field.slice(1) })}`),
  );
  if (errors.length > 0) return { errors };
  const data: Record<string, string> = {};
  if (spec.windows?.length) data[DEFAULT_WINDOWS_KEY] = toYaml(spec.windows);
  if (spec.blackouts?.length) data[DEFAULT_BLACKOUTS_KEY] = toYaml(spec.blackouts);
  if (Object.keys(data).length === 0)
    return {
      errors: [`${file}: names no window and no blackout (to remove the default: kubectl pacer windows clear)`],
    };
  return { data };
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** What the windows hold, in a line: "1 window, 1 blackout". */
function counted(d: Pick<DefaultWindows, 'windows' | 'blackouts'>): string {
  return `${plural(d.windows.length, 'window')}, ${plural(d.blackouts.length, 'blackout')}`;
}

/** set -f FILE: writes the file's windows and blackouts into the ConfigMap (created when missing). */
export async function runWindowsSet(s: Session, ns: string, file: string | undefined): Promise<number> {
  if (!file) {
    s.io.stderr.write('error: must specify -f FILE (a YAML file with "windows" and/or "blackouts"; "-" reads stdin)\n');
    return 1;
  }
  let text: string;
  try {
    text = readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (err) {
    s.io.stderr.write(`error: cannot read ${file}: ${(err as Error).message}\n`);
    return 1;
  }
  const read = windowsFileData(text, file);
  if ('errors' in read) {
    for (const e of read.errors) s.io.stderr.write(`error: ${e}\n`);
    return 1;
  }
  const where = `configmap ${ns}/${DEFAULT_WINDOWS_CONFIGMAP}`;
  const d = defaultWindowsOf({ metadata: { name: DEFAULT_WINDOWS_CONFIGMAP, namespace: ns }, data: read.data })!;
  const before = await getConfigMap(s, ns, DEFAULT_WINDOWS_CONFIGMAP);
  if (before) {
    const same =
      Object.keys(before.data ?? {}).length === Object.keys(read.data).length &&
      Object.entries(read.data).every(([k, v]) => before.data?.[k] === v);
    if (same) {
      s.io.stdout.write(`${where} unchanged: ${counted(d)}\n`);
      return 0;
    }
    // The whole data replaced: a key the file leaves out is removed.
    const removed = Object.fromEntries(Object.keys(before.data ?? {}).map((k) => [k, null]));
    await s.client.patch(CONFIGMAPS, ns, DEFAULT_WINDOWS_CONFIGMAP, { data: { ...removed, ...read.data } }, 'merge');
    await recordOnConfigMap(
      s,
      ns,
      before,
      'DefaultWindowsChanged',
      `default maintenance windows changed: ${counted(d)}`,
    );
    s.io.stdout.write(`${where} configured: ${counted(d)}\n`);
    return 0;
  }
  const created = await s.client.create<ConfigMap>(CONFIGMAPS, ns, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: DEFAULT_WINDOWS_CONFIGMAP,
      namespace: ns,
      labels: { 'app.kubernetes.io/name': 'pacer', 'app.kubernetes.io/component': 'maintenance-windows' },
    },
    data: read.data,
  });
  await recordOnConfigMap(s, ns, created, 'DefaultWindowsSet', `default maintenance windows set: ${counted(d)}`);
  s.io.stdout.write(
    `${where} created: ${counted(d)}; NodeRolls without windows of their own roll only inside these windows\n`,
  );
  return 0;
}

/** clear: deletes the ConfigMap. */
export async function runWindowsClear(s: Session, ns: string): Promise<number> {
  const where = `configmap ${ns}/${DEFAULT_WINDOWS_CONFIGMAP}`;
  const before = await getConfigMap(s, ns, DEFAULT_WINDOWS_CONFIGMAP);
  if (!before) {
    s.io.stdout.write(`no default maintenance windows (no ${where})\n`);
    return 0;
  }
  try {
    await s.client.delete(CONFIGMAPS, ns, DEFAULT_WINDOWS_CONFIGMAP);
  } catch (err) {
    if (!isKind(err, 'NotFound')) throw err;
  }
  await recordOnConfigMap(s, ns, before, 'DefaultWindowsCleared', 'default maintenance windows cleared');
  s.io.stdout.write(
    `${where} deleted: NodeRolls without windows of their own may roll at any time (their own blackouts still hold)\n`,
  );
  return 0;
}

/** The status as a document (-o json|yaml). */
export interface WindowsStatus {
  configMap: string;
  /** The ConfigMap exists. */
  set: boolean;
  windows?: MaintenanceWindow[];
  blackouts?: Blackout[];
  /** Its problems: while there is any, every NodeRoll is held. */
  errors?: string[];
  /** For a NodeRoll without windows of its own: open now, until when, and the next opening (RFC 3339). */
  open?: boolean;
  closesAt?: string;
  opensAt?: string;
  /** Closed: why, in the words of the NodeRoll's Window condition. */
  message?: string;
}

/** Where the default stands at `now`, from its ConfigMap (undefined: none). */
export function windowsStatus(cm: ConfigMap | undefined, ns: string, now: number): WindowsStatus {
  const configMap = `${ns}/${DEFAULT_WINDOWS_CONFIGMAP}`;
  if (!cm) return { configMap, set: false };
  const d = defaultWindowsOf(cm);
  if (!d) return { configMap, set: true, windows: [], blackouts: [] };
  const base = { configMap, set: true, windows: [...d.windows], blackouts: [...d.blackouts] };
  const eff = effectiveWindows({}, d);
  if (eff.invalid !== undefined) return { ...base, errors: [...d.errors], open: false, message: eff.invalid };
  const state = windowState(eff.spec, now);
  return {
    ...base,
    open: state.open,
    ...(state.open && state.closesAt !== undefined ? { closesAt: metaTime(state.closesAt) } : {}),
    ...(state.opensAt !== undefined ? { opensAt: metaTime(state.opensAt) } : {}),
    ...(state.open ? {} : { message: closedInWords(eff, state) }),
  };
}

/** The status as text: the windows and blackouts as tables, then whether one is open now. */
export function describeWindows(st: WindowsStatus): string {
  if (!st.set)
    return `no default maintenance windows (no configmap ${st.configMap}): NodeRolls without windows of their own may roll at any time\n`;
  const lines = [`Default maintenance windows (configmap ${st.configMap}):`];
  const windows = st.windows ?? [];
  const blackouts = st.blackouts ?? [];
  const cell = (v: unknown) => (v === undefined || v === '' ? '-' : String(v));
  const table = (rows: string[][]) =>
    tabwrite(`${rows.map((r) => r.join('\t')).join('\n')}\n`)
      .trimEnd()
      .split('\n')
      .map((l) => `  ${l}`.trimEnd());
  if (windows.length > 0)
    lines.push(
      'Windows:',
      ...table([
        ['DAYS', 'START', 'DURATION', 'TIME ZONE'],
        ...windows.map((w) => [
          Array.isArray(w.days) ? w.days.join(',') : 'every day',
          cell(w.start),
          cell(w.duration),
          w.timeZone ?? 'UTC',
        ]),
      ]),
    );
  else lines.push('Windows: none (open at any time but for the blackouts)');
  if (blackouts.length > 0)
    lines.push(
      'Blackouts:',
      ...table([
        ['START', 'END', 'TIME ZONE', 'REASON'],
        ...blackouts.map((b) => [cell(b.start), cell(b.end), b.timeZone ?? 'UTC', cell(b.reason)]),
      ]),
    );
  if (st.errors?.length) {
    lines.push('Invalid: every NodeRoll is held until this is fixed (kubectl pacer windows set -f) or cleared:');
    for (const e of st.errors) lines.push(`  ${e}`);
  } else if (st.open) lines.push(`Open${st.closesAt ? ` until ${st.closesAt}` : ''}.`);
  else lines.push(`Closed: ${st.message}.`);
  return `${lines.join('\n')}\n`;
}

/** status: the default windows, and whether one is open now (-o json|yaml: the same as a document). */
export async function runWindowsStatus(
  s: Session,
  ns: string,
  o: { output?: string },
  now = Date.now(),
): Promise<number> {
  const st = windowsStatus(await getConfigMap(s, ns, DEFAULT_WINDOWS_CONFIGMAP), ns, now);
  if (o.output) printData(s.io, o.output, st);
  else s.io.stdout.write(describeWindows(st));
  return 0;
}
