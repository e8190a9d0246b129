// Which shard owns an object when the controller runs as several shards (docs/sharding.md).
//
// The unit of assignment is the namespace: a Deployment's ReplicaSets, its dependencies named
// without a namespace, its custom Plans and AnalysisRuns all live in its namespace, so one shard
// owns the whole graph and no pass reads or writes across two shards' objects. Cluster-scoped
// objects (NodeRolls, and the freeze switch the node roller obeys) belong to shard 0.
//
// The hash is jump consistent hash (Lamping and Veach, "A Fast, Minimal Memory, Consistent Hash
// Algorithm", 2014, https://arxiv.org/abs/1406.2294) over the 64-bit FNV-1a hash of the namespace's
// UTF-8 bytes. What jump hash promises, and the table test holds it to: going from N to N + 1
// shards moves about 1/(N + 1) of the namespaces, and every one that moves goes to the new shard
// N; none moves between the old shards. Going down from N + 1 to N moves only shard N's.

const MASK64 = (1n << 64n) - 1n;
const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
/** The 64-bit linear congruential step of jump hash. */
const LCG_MULTIPLIER = 2862933555777941757n;

/** The most shards a controller may be split into (a bound for flag checks, not of the hash). */
export const MAX_SHARDS = 1000;

/** FNV-1a, 64 bits, of the text's UTF-8 bytes. */
export function fnv1a64(text: string): bigint {
  let h = FNV_OFFSET;
  for (const byte of new TextEncoder().encode(text)) {
    h ^= BigInt(byte);
    h = (h * FNV_PRIME) & MASK64;
  }
  return h;
}

/** Jump consistent hash: the bucket in [0, buckets) of a 64-bit key. */
export function jumpHash(key: bigint, buckets: number): number {
  if (!Number.isInteger(buckets) || buckets < 1)
    throw new Error(`jump hash: buckets must be at least 1, got ${buckets}`);
  let k = key & MASK64;
  let b = -1;
  let j = 0;
  while (j < buckets) {
    b = j;
    k = (k * LCG_MULTIPLIER + 1n) & MASK64;
    j = Math.floor((b + 1) * (2 ** 31 / (Number(k >> 33n) + 1)));
  }
  return b;
}

/**
 * The shard of an object in `namespace` among `shards`: 0 for a cluster-scoped object (no
 * namespace), and for one shard; otherwise the namespace's jump hash.
 */
export function shardOf(namespace: string | undefined, shards: number): number {
  if (!Number.isInteger(shards) || shards < 1 || shards > MAX_SHARDS)
    throw new Error(`shards must be an integer from 1 to ${MAX_SHARDS}, got ${shards}`);
  if (shards === 1 || namespace === undefined || namespace === '') return 0;
  return jumpHash(fnv1a64(namespace), shards);
}

/** The namespace of a work-queue key ("namespace/name", or "name" for a cluster-scoped object). */
export function namespaceOfKey(key: string): string | undefined {
  const slash = key.indexOf('/');
  return slash < 0 ? undefined : key.slice(0, slash);
}

/** A replica's fair share of `shards` among `members` live replicas: ceil(shards / members). */
export function fairShare(shards: number, members: number): number {
  return Math.ceil(shards / Math.max(1, members));
}
