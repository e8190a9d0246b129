// What the dashboard shows of a NodeRoll and of the freeze switch, as pure functions: each node's
// step from the roll's checkpoint (status.nodes), the zones of its original nodes and of the nodes
// its selector matches now, the health gate's state, the conditions; the switch's reason and since.
// docs/semantics/node-roll.md and docs/semantics/freeze.md say what the fields mean.

import type { NodeRoll } from '../api/noderoll.ts';
import { selectorMatches, selectorToString } from '../api/selector.ts';
import { FREEZE_SINCE_KEY, freezeOf } from '../engine/index.ts';
import type { FreezeView, HealthGateView, NodeRollView } from './api.ts';

/** The node label that names its zone (Kubernetes' well-known label). */
export const ZONE_LABEL = 'topology.kubernetes.io/zone';

/** What the hub keeps of a Node: its name, labels and zone. */
export interface NodeFacts {
  name: string;
  labels: Record<string, string>;
}

export const zoneOf = (labels: Record<string, string> | undefined) => labels?.[ZONE_LABEL] ?? '';

/**
 * Where the health gate stands: done with the roll; paused on a health or analysis wait; waiting
 * while a node is past its removal (Deregistered) and the workloads (or its analysis run) are not
 * yet healthy, or while the roll's message says what it waits for (`waiting for: deployment
 * default/web: 1 of 3 available`, the roller's words), the message as the detail; open otherwise.
 */
export function healthGate(roll: NodeRoll): HealthGateView {
  const spec = roll.spec ?? {};
  const st = roll.status ?? {};
  const scope = spec.healthGate?.selector
    ? `workloads matching ${selectorToString(spec.healthGate.selector)}`
    : 'every Pacer Deployment and ReplicaSet';
  const analysis = (spec.healthGate?.analysis?.templates ?? []).map(
    (t) => `${t.clusterScope ? 'cluster:' : ''}${t.templateName}`,
  );
  const base = { scope, analysis };
  if (st.done || st.phase === 'Complete') return { ...base, state: 'done', detail: '' };
  if (st.paused && (st.paused.wait === 'healthy' || st.paused.wait === 'analysis'))
    return { ...base, state: 'paused', detail: st.paused.message };
  const atGate = (st.nodes ?? []).filter((n) => n.step === 'Deregistered').map((n) => n.name);
  if (atGate.length > 0 || /\bwaiting for: /.test(st.message ?? ''))
    return { ...base, state: 'waiting', detail: st.message || `after ${atGate.join(', ')}` };
  return { ...base, state: 'open', detail: '' };
}

function counts(zones: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const z of zones) out[z] = (out[z] ?? 0) + 1;
  return out;
}

/**
 * A NodeRoll's view. `seenZones` are the zones of every node the dashboard has seen, by name (the
 * original nodes' zones are counted from it: a node removed before the dashboard started counts as
 * '?'); `nodes` are the cluster's nodes now.
 */
export function nodeRollView(
  roll: NodeRoll,
  seenZones: ReadonlyMap<string, string>,
  nodes: readonly NodeFacts[],
): NodeRollView {
  const spec = roll.spec ?? {};
  const st = roll.status ?? {};
  const skipped = new Set(st.skipped ?? []);
  const mode = spec.mode ?? 'Replace';
  const selected = spec.nodeSelector ? nodes.filter((n) => selectorMatches(spec.nodeSelector, n.labels)) : [];
  return {
    uid: roll.metadata.uid ?? '',
    namespace: '',
    name: roll.metadata.name ?? '',
    phase: st.phase ?? 'Pending',
    message: st.message ?? '',
    mode,
    nodeGroup: spec.nodeGroup ?? '',
    nodesAtATime: spec.nodesAtATime ?? 1,
    desiredNodes: mode === 'Replace' ? (spec.desiredNodes ?? null) : null,
    specPaused: spec.paused === true,
    pause: st.paused ? { node: st.paused.node ?? '', wait: st.paused.wait, message: st.paused.message } : null,
    nodes: (st.nodes ?? []).map((n) => ({
      name: n.name,
      step: n.step,
      since: n.step === 'Pending' ? '' : n.since,
      skipped: skipped.has(n.name),
      zone: seenZones.get(n.name) ?? '',
    })),
    zonesBefore: counts((st.originalNodes ?? []).map((n) => seenZones.get(n) ?? '?')),
    zonesNow: counts(selected.map((n) => zoneOf(n.labels))),
    zoneMoves: st.zoneMoves ? { planned: st.zoneMoves.planned, moved: [...st.zoneMoves.moved] } : null,
    gate: healthGate(roll),
    conditions: (st.conditions ?? []).map((c) => ({
      type: c.type,
      status: c.status,
      reason: c.reason,
      message: c.message,
      lastUpdateTime: c.lastTransitionTime,
    })),
    createdAt: roll.metadata.creationTimestamp ?? '',
  };
}

/** The freeze switch's view, or undefined for any other ConfigMap. */
export function freezeView(cm: {
  metadata: { name?: string; namespace?: string; creationTimestamp?: string };
  data?: Record<string, string>;
}): FreezeView | undefined {
  const f = freezeOf(cm);
  if (!f) return undefined;
  return {
    namespace: cm.metadata.namespace ?? '',
    name: cm.metadata.name ?? '',
    reason: f.reason,
    since: cm.data?.[FREEZE_SINCE_KEY] ?? cm.metadata.creationTimestamp ?? '',
  };
}
