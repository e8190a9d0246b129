// Whether two JSON values are the same document: what a watch delivers, what a client is about to
// send, what the simulated API server stores. Key order does not matter, array order does.
//
// Not node:util's isDeepStrictEqual, on purpose:
//   * a member set to undefined is an absent member, as after a JSON round trip: an object built in
//     this process (`{ a: 1, b: undefined }`) equals the one the server would store (`{ a: 1 }`);
//   * numbers compare with ===, so 0 equals -0 (JSON has one zero).
// It allocates nothing (no key arrays), because the caches run it on every part of every
// ReplicaSet and Deployment event (kube/intern.ts).

/** Deep equality of two JSON values, an undefined member counted as absent. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let members = 0;
  for (const k in x) {
    const v = x[k];
    if (v === undefined) continue;
    if (!Object.hasOwn(y, k) || !jsonEqual(v, y[k])) return false;
    members++;
  }
  return members === definedMembers(y);
}

function definedMembers(o: Record<string, unknown>): number {
  let n = 0;
  for (const k in o) if (o[k] !== undefined) n++;
  return n;
}
