// The JSON merge patch (RFC 7386) that turns `from` into `to`: changed keys carry their new value,
// removed keys are null, objects recurse, arrays and scalars are replaced whole. Used to write only
// what the engine changed on a Deployment, so that a concurrent writer's other fields survive and
// defaults the API server filled in are never echoed back.

import { jsonEqual } from './jsonequal.ts';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The patch from `from` to `to`, or undefined when they are equal. */
export function mergePatchDiff(from: unknown, to: unknown): Json | undefined {
  if (jsonEqual(from, to)) return undefined;
  if (!isObject(from) || !isObject(to)) return (to === undefined ? null : to) as Json;
  const patch: Record<string, Json> = {};
  for (const k of Object.keys(from)) {
    if (from[k] !== undefined && to[k] === undefined) patch[k] = null;
  }
  for (const k of Object.keys(to)) {
    if (to[k] === undefined) continue;
    const d = mergePatchDiff(from[k], to[k]);
    if (d !== undefined) patch[k] = d;
  }
  return patch;
}
