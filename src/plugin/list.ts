// `kubectl pacer list [-A]`: one line per Deployment with its strategy, counts and rollout state,
// laid out like `kubectl get` (tabwriter minwidth 6, padding 3).

import type { Deployment } from '../api/types.ts';
import { strategyTypeOf } from '../api/strategies/index.ts';
import { DEPLOYMENTS } from '../kube/client.ts';
import { tabwrite } from './format.ts';
import type { Session } from './options.ts';
import { printList } from './options.ts';
import { deploymentState } from './state.ts';

/** The table for `items` (sorted by namespace, then name); `allNamespaces` adds NAMESPACE. */
export function listTable(items: readonly Deployment[], allNamespaces: boolean): string {
  const sorted = [...items].sort(
    (a, b) =>
      (a.metadata.namespace ?? '').localeCompare(b.metadata.namespace ?? '') ||
      (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''),
  );
  const head = ['NAME', 'STRATEGY', 'DESIRED', 'UPDATED', 'AVAILABLE', 'STATUS'];
  const lines = [(allNamespaces ? ['NAMESPACE', ...head] : head).join('\t')];
  for (const d of sorted) {
    const cells = [
      d.metadata.name ?? '',
      strategyTypeOf(d),
      String(d.spec.replicas ?? 1),
      String(d.status?.updatedReplicas ?? 0),
      String(d.status?.availableReplicas ?? 0),
      deploymentState(d).phase,
    ];
    lines.push((allNamespaces ? [d.metadata.namespace ?? '', ...cells] : cells).join('\t'));
  }
  return tabwrite(`${lines.join('\n')}\n`, { minwidth: 6, padding: 3 });
}

export async function runList(s: Session, o: { allNamespaces: boolean; output?: string }): Promise<number> {
  const list = await s.client.list<Deployment>(DEPLOYMENTS, o.allNamespaces ? undefined : s.namespace);
  return printList(s, list, o, (items) => listTable(items, o.allNamespaces));
}
