// int-or-string values (maxSurge, maxUnavailable): an integer, or a percentage string "N%".
// Same rules as apimachinery's intstr.GetScaledValueFromIntOrPercent.

import type { IntOrString } from './types.ts';

/**
 * An integer is returned as it is (not scaled, not capped); "p%" of `total` is rounded up or down.
 * Throws, with upstream's words, for a string that is not a percentage ("invalid value for
 * IntOrString: invalid type: string is not a percentage") or whose number does not parse ("invalid
 * value for IntOrString: invalid value \"a%\": strconv.Atoi: parsing \"a\": invalid syntax").
 * Like Go's strconv.Atoi, a sign is accepted ("-5%"); validation rejects those earlier.
 */
// The engine scales the same few strings ("25%") on every pass: parse each once.
const percents = new Map<string, number>();

export function scaledValue(v: IntOrString, total: number, roundUp: boolean): number {
  if (typeof v === 'number') return v;
  let p = percents.get(v);
  if (p === undefined) {
    p = parsePercent(v);
    if (percents.size > 1000) percents.clear();
    percents.set(v, p);
  }
  const exact = (p * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

function parsePercent(v: string): number {
  const prefix = 'invalid value for IntOrString: ';
  if (!v.endsWith('%')) throw new Error(`${prefix}invalid type: string is not a percentage`);
  const digits = v.slice(0, -1);
  if (!/^[+-]?[0-9]+$/.test(digits)) {
    throw new Error(
      `${prefix}invalid value ${JSON.stringify(v)}: strconv.Atoi: parsing ${JSON.stringify(digits)}: invalid syntax`,
    );
  }
  return Number.parseInt(digits, 10);
}
