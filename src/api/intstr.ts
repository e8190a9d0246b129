// int-or-string values (maxSurge, maxUnavailable): an integer, or a percentage string "N%".
// Same rules as apimachinery's intstr.GetScaledValueFromIntOrPercent.

import type { IntOrString } from './types.ts';

const PERCENT = /^[0-9]+%$/;

/** True when `v` is a non-negative integer or a string such as "25%". */
export function isIntOrPercent(v: unknown): v is IntOrString {
  if (typeof v === 'number') return Number.isInteger(v);
  return typeof v === 'string' && PERCENT.test(v);
}

/** The literal value is zero: 0, "0%" (or "00%"). Validation looks at the literal, not the scaled value. */
export function isZeroIntOrPercent(v: IntOrString | undefined): boolean {
  if (v === undefined) return false;
  if (typeof v === 'number') return v === 0;
  return PERCENT.test(v) && Number.parseInt(v.slice(0, -1), 10) === 0;
}

/**
 * An integer is returned as it is (not scaled, not capped); "p%" of `total` is rounded up or down.
 * Throws for a string that is not a percentage ("invalid type: string is not a percentage") or an
 * unparseable percentage ("invalid value for IntOrString: invalid value \"a%\"").
 */
export function scaledValue(v: IntOrString, total: number, roundUp: boolean): number {
  if (typeof v === 'number') return v;
  if (!v.endsWith('%')) throw new Error('invalid type: string is not a percentage');
  const digits = v.slice(0, -1);
  if (!/^[0-9]+$/.test(digits)) throw new Error(`invalid value for IntOrString: invalid value "${v}"`);
  const p = Number.parseInt(digits, 10);
  const exact = (p * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}
