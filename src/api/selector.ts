// Label selectors (metav1.LabelSelector): matching, emptiness and the string form that the scale
// subresource and `kubectl get -l` use.

import type { LabelSelector } from './types.ts';

/** An empty selector ({}) selects everything; upstream refuses it for Deployments. */
export function isEmptySelector(s: LabelSelector | undefined): boolean {
  return !s || (Object.keys(s.matchLabels ?? {}).length === 0 && (s.matchExpressions ?? []).length === 0);
}

/** Does `selector` match `labels`? A missing selector matches nothing, an empty one everything. */
export function selectorMatches(
  selector: LabelSelector | undefined,
  labels: Record<string, string> | undefined,
): boolean {
  if (!selector) return false;
  const l = labels ?? {};
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) {
    if (l[k] !== v) return false;
  }
  for (const r of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(l, r.key);
    switch (r.operator) {
      case 'In':
        if (!has || !(r.values ?? []).includes(l[r.key])) return false;
        break;
      case 'NotIn':
        if (has && (r.values ?? []).includes(l[r.key])) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

// Remembered per selector object: the engine writes it into every status it computes.
const selectorStrings = new WeakMap<LabelSelector, string>();

/** The selector in the string syntax of `?labelSelector=` ("app=web,tier in (a,b)"), keys sorted. */
export function selectorToString(s: LabelSelector | undefined): string {
  if (!s) return '';
  let out = selectorStrings.get(s);
  if (out === undefined) selectorStrings.set(s, (out = formatSelector(s)));
  return out;
}

function formatSelector(s: LabelSelector): string {
  const parts: string[] = [];
  for (const k of Object.keys(s.matchLabels ?? {}).sort()) parts.push(`${k}=${s.matchLabels![k]}`);
  for (const r of s.matchExpressions ?? []) {
    const values = [...(r.values ?? [])].sort().join(',');
    switch (r.operator) {
      case 'In':
        parts.push(`${r.key} in (${values})`);
        break;
      case 'NotIn':
        parts.push(`${r.key} notin (${values})`);
        break;
      case 'Exists':
        parts.push(r.key);
        break;
      case 'DoesNotExist':
        parts.push(`!${r.key}`);
        break;
    }
  }
  return parts.join(',');
}
