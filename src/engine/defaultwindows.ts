// The cluster's default maintenance windows (docs/semantics/windows.md#the-clusters-default): the
// ConfigMap pacer-maintenance-windows in Pacer's namespace, beside the freeze switch, whose data keys
// `windows` and `blackouts` hold lists in the shape of a NodeRoll's spec.windows and spec.blackouts.
// Pure: the ConfigMap (as the controller's cache or a file holds it) and a NodeRoll's own spec in,
// the windows that roll keeps out.
//
//   * windows:   the roll's own spec.windows when it has any, else the default's;
//   * blackouts: the roll's own and the default's, both (a blackout only ever takes time away, so
//     the cluster's holiday holds every roll, and a roll's own one holds that roll too);
//   * an invalid ConfigMap (a key that is not YAML, not a list, a field that fails validation, a
//     key other than the two) holds every roll that is not done, whatever its own windows, with the
//     key, the path and the value in its Window condition: nobody can tell which windows the
//     operator meant, and a roll that goes on regardless would disrupt at the very time the
//     ConfigMap was written to keep free. Nothing else stops: Deployments never read it.
//
// Deployments keep their windows opt-in (their own spec.windows, or the native annotations): a
// rollout is a change someone has just applied and is usually waiting for, often a fix, and a
// default that held every Deployment by the clock would be a second freeze nobody switched on.

import { formatFieldError } from '../api/validation.ts';
import type { Blackout, MaintenanceWindow, WindowsSpec } from '../api/windows.ts';
import { parseWindowsData } from '../api/windows.ts';
import { metaTime } from '../api/duration.ts';
import type { WindowState } from './windows.ts';

/** The ConfigMap of the default windows, in Pacer's namespace (the freeze switch's). */
export const DEFAULT_WINDOWS_CONFIGMAP = 'pacer-maintenance-windows';
/** Its data keys: each a YAML (or JSON) list in the shape of the spec field of the same name. */
export const DEFAULT_WINDOWS_KEY = 'windows';
export const DEFAULT_BLACKOUTS_KEY = 'blackouts';

/** The ConfigMap as far as it is read. */
export interface WindowsConfigMap {
  metadata: { name?: string; namespace?: string };
  data?: Record<string, string>;
}

/** The default windows a ConfigMap says. */
export interface DefaultWindows {
  /** Where they come from, as "configmap NAMESPACE/NAME" (for messages). */
  source: string;
  windows: readonly MaintenanceWindow[];
  blackouts: readonly Blackout[];
  /** Every problem, each with its key, path and value; any one holds every roll. */
  errors: readonly string[];
}

const read = new WeakMap<WindowsConfigMap, DefaultWindows>();

/**
 * The default windows `cm` says; undefined when there is no such ConfigMap (or it names none and
 * has no error: an empty ConfigMap is no default). Remembered per object, as the cache never edits one.
 */
export function defaultWindowsOf(cm: WindowsConfigMap | undefined): DefaultWindows | undefined {
  if (!cm || cm.metadata.name !== DEFAULT_WINDOWS_CONFIGMAP) return undefined;
  let d = read.get(cm);
  if (!d) {
    const { spec, errors } = parseWindowsData(cm.data);
    d = {
      source: `configmap ${cm.metadata.namespace ?? 'default'}/${DEFAULT_WINDOWS_CONFIGMAP}`,
      windows: spec.windows ?? [],
      blackouts: spec.blackouts ?? [],
      errors: errors.map(formatFieldError),
    };
    read.set(cm, d);
  }
  return d.errors.length === 0 && d.windows.length === 0 && d.blackouts.length === 0 ? undefined : d;
}

/** The windows one roll keeps: its spec's and the default's, combined as the header says. */
export interface EffectiveWindows {
  spec: WindowsSpec;
  /** The windows are the default's (the roll has none of its own). */
  defaultWindows: boolean;
  /** spec.blackouts from this index on are the default's. */
  defaultBlackoutsFrom: number;
  /** The default's source, when it takes part. */
  source?: string;
  /** The default is invalid: its problems in words; the roll is held. */
  invalid?: string;
}

/** The windows a roll whose spec says `own` keeps, with the cluster's default `d` (undefined: none). */
export function effectiveWindows(own: WindowsSpec, d: DefaultWindows | undefined): EffectiveWindows {
  const ownWindows = own.windows ?? [];
  const ownBlackouts = own.blackouts ?? [];
  if (!d) return { spec: own, defaultWindows: false, defaultBlackoutsFrom: ownBlackouts.length };
  if (d.errors.length > 0)
    return {
      spec: own,
      defaultWindows: false,
      defaultBlackoutsFrom: ownBlackouts.length,
      source: d.source,
      invalid: `the cluster's default maintenance windows (${d.source}) are invalid: ${d.errors.join('; ')}`,
    };
  const useDefault = ownWindows.length === 0 && d.windows.length > 0;
  return {
    spec: {
      windows: useDefault ? [...d.windows] : [...ownWindows],
      blackouts: [...ownBlackouts, ...d.blackouts],
    },
    defaultWindows: useDefault,
    defaultBlackoutsFrom: ownBlackouts.length,
    source: d.source,
  };
}

/** Why nothing new is disrupted now, in words, with whose windows or blackout it is and the next opening. */
export function closedInWords(e: EffectiveWindows, state: WindowState): string {
  if (e.invalid !== undefined) return e.invalid;
  const b = state.blackout !== undefined ? e.spec.blackouts?.[state.blackout] : undefined;
  const fromDefault = state.blackout !== undefined && state.blackout >= e.defaultBlackoutsFrom;
  const why = b
    ? `blackout ${b.start} to ${b.end}${b.reason ? ` (${b.reason})` : ''}${fromDefault ? ` of the cluster's default (${e.source})` : ''}`
    : e.defaultWindows
      ? `outside the cluster's default maintenance windows (${e.source})`
      : 'outside its maintenance windows';
  const next =
    state.opensAt !== undefined
      ? `the next window opens at ${metaTime(state.opensAt)}`
      : 'no window opens within the next 400 days';
  return `${why}: ${next}`;
}
