// An object's conditions as a table (a Deployment's, a NodeRoll's): type, status, reason, message,
// and how long ago the time the view carries (`timeLabel` names it).

import type { ConditionView } from '../src/dashboard/api.ts';
import { age } from './state.ts';

export function Conditions({
  conditions,
  now,
  timeLabel,
}: {
  conditions: readonly ConditionView[];
  now: number;
  /** "Updated" (a Deployment's lastUpdateTime) or "Changed" (a NodeRoll's lastTransitionTime). */
  timeLabel: string;
}) {
  return (
    <table class="conditions">
      <thead>
        <tr>
          <th>Type</th>
          <th>Status</th>
          <th>Reason</th>
          <th>Message</th>
          <th>{timeLabel}</th>
        </tr>
      </thead>
      <tbody>
        {conditions.map((c) => (
          <tr key={c.type} data-condition={c.type}>
            <td>{c.type}</td>
            <td>{c.status}</td>
            <td>{c.reason}</td>
            <td>{c.message}</td>
            <td>{age(c.lastUpdateTime, now)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
