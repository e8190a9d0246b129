// Zone balance of a node group (docs/semantics/node-roll.md#zones), after the appendix of "Rolling
// Out the Mesos Slave Roller" (Knewton, https://medium.com/knerd/rolling-out-the-mesos-slave-roller-d786aa01c8c3):
//
//  * a group is balanced when the node counts of any two of its zones differ by at most 1;
//  * a group balanced before its scale-up and after it, once its original nodes are gone, has
//    zones of at most three counts x−1 (low), x (mid) and x+1 (high);
//  * then the moves needed are the lesser of the number of high zones and the number of low
//    zones; one move takes a node out of a high zone and adds one to a low zone; after them only
//    mids and lows, or mids and highs, remain: balanced.
//
// rebalanceMoves works for any counts (a group unbalanced by hand, or by a zone's capacity): it
// moves one node at a time from a fullest zone to an emptiest one while they differ by more than
// one, which on the appendix's shapes is exactly min(highs, lows) moves. Zones are visited in name
// order so that the same counts always give the same moves.

export type ZoneCounts = Readonly<Record<string, number>>;

export interface ZoneMove {
  /** The zone a node is taken out of. */
  readonly from: string;
  /** The zone a node is added to. */
  readonly to: string;
}

/** Any two zones differ by at most one node (no zone, or one: balanced). */
export function isBalanced(counts: ZoneCounts): boolean {
  const values = Object.values(counts);
  return values.length === 0 || Math.max(...values) - Math.min(...values) <= 1;
}

/** The moves that balance `counts`, one node each, in the order to carry them out. */
export function rebalanceMoves(counts: ZoneCounts): ZoneMove[] {
  const zones = Object.keys(counts).sort();
  const now = new Map(zones.map((z) => [z, counts[z]]));
  const moves: ZoneMove[] = [];
  for (;;) {
    let high = zones[0];
    let low = zones[0];
    for (const z of zones) {
      if (now.get(z)! > now.get(high)!) high = z;
      if (now.get(z)! < now.get(low)!) low = z;
    }
    if (zones.length === 0 || now.get(high)! - now.get(low)! <= 1) return moves;
    now.set(high, now.get(high)! - 1);
    now.set(low, now.get(low)! + 1);
    moves.push({ from: high, to: low });
  }
}

/** The zone counts after `moves`. */
export function afterMoves(counts: ZoneCounts, moves: readonly ZoneMove[]): Record<string, number> {
  const out: Record<string, number> = { ...counts };
  for (const m of moves) {
    out[m.from] = (out[m.from] ?? 0) - 1;
    out[m.to] = (out[m.to] ?? 0) + 1;
  }
  return out;
}

/** The node counts per zone of `nodes` (by their topology.kubernetes.io/zone label; "" without one). */
export function zoneCounts(
  nodes: ReadonlyArray<{ metadata: { labels?: Record<string, string> } }>,
  zones: readonly string[] = [],
): Record<string, number> {
  const out: Record<string, number> = Object.fromEntries(zones.map((z) => [z, 0]));
  for (const n of nodes) {
    const z = n.metadata.labels?.[ZONE_LABEL] ?? '';
    out[z] = (out[z] ?? 0) + 1;
  }
  return out;
}

/** The well-known label of a node's zone. */
export const ZONE_LABEL = 'topology.kubernetes.io/zone';

/** The group's zones in words: "zones a 2, b 2, c 2 (balanced)", or the moves that would balance them. */
export function zonesInWords(
  nodes: ReadonlyArray<{ metadata: { labels?: Record<string, string> } }>,
  zones: readonly string[] = [],
): string {
  const counts = zoneCounts(nodes, zones);
  const list = Object.keys(counts)
    .sort()
    .map((z) => `${z || '(no zone)'} ${counts[z]}`)
    .join(', ');
  if (isBalanced(counts)) return `zones ${list} (balanced)`;
  const moves = rebalanceMoves(counts);
  return `zones ${list}: ${moves.length} move(s) would balance them (${moves.map((m) => `${m.from} → ${m.to}`).join(', ')})`;
}
