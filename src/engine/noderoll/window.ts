// A node roll and its maintenance windows (docs/semantics/windows.md#node-rolls): outside a window
// nothing new is started, neither a roll, a scale-up, a cordon, a node's drain nor a zone move;
// what is under way finishes (a node draining is drained, terminated, waited for and gated on
// health). When a window is open is engine/windows.ts's to say; the pass (pass.ts) asks it and
// writes the status's window and its Window condition.

import type { NodeRollStatus } from '../../api/noderoll.ts';
import { metaTime } from '../../api/duration.ts';
import type { WindowState } from '../windows.ts';
import type { RollContext } from './context.ts';
import type { RollInput } from './types.ts';

/** No window is open: the words why (with the next opening), else undefined. */
export function outsideWindow(i: RollInput): string | undefined {
  return i.window && !i.window.open ? (i.window.words ?? 'outside its maintenance windows') : undefined;
}

/** Nothing new may start on this pass: says so once in the pass's words. True when closed. */
export function closedForNew(c: RollContext): boolean {
  const words = outsideWindow(c.i);
  if (words === undefined) return false;
  const said = `nothing new starts: ${words}`;
  if (!c.words.includes(said)) c.words.push(said);
  return true;
}

type Condition = NonNullable<NodeRollStatus['conditions']>[number];

/** The status's window and its Window condition (True InsideWindow, False OutsideWindow), its transition time kept while it holds. */
export function withWindow(
  status: NodeRollStatus,
  prev: NodeRollStatus | undefined,
  state: WindowState,
  words: string | undefined,
  now: number,
  /** Closed by an invalid default (DefaultWindowsInvalid) rather than by the clock. */
  invalid?: 'DefaultWindowsInvalid',
): NodeRollStatus {
  const window = {
    open: state.open,
    ...(state.open && state.closesAt !== undefined ? { closesAt: metaTime(state.closesAt) } : {}),
    ...(state.opensAt !== undefined ? { opensAt: metaTime(state.opensAt) } : {}),
  };
  const before = prev?.conditions?.find((c) => c.type === 'Window');
  const on = state.open ? ('True' as const) : ('False' as const);
  const condition: Condition = {
    type: 'Window',
    status: on,
    reason: state.open ? 'InsideWindow' : (invalid ?? 'OutsideWindow'),
    message: state.open
      ? `a maintenance window is open${window.closesAt ? ` until ${window.closesAt}` : ''}`
      : invalid
        ? `${words}; nothing new is cordoned, drained or terminated until it is fixed or deleted`
        : `${words}; nothing new is cordoned, drained or terminated until then`,
    lastTransitionTime: before && before.status === on ? before.lastTransitionTime : metaTime(now),
  };
  return {
    ...status,
    window,
    conditions: [...(status.conditions ?? []).filter((c) => c.type !== 'Window'), condition],
  };
}
