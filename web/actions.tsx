// What every action of the page shares: a confirmation before it is sent (with a text field when
// the action takes one: the freeze's reason), and its answer in the command's words.

import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { ActionResult, Operation } from '../src/dashboard/api.ts';
import { operate } from './api.ts';

export type Outcome = ActionResult & { status: number };

export function Result({ r }: { r: Outcome }) {
  return (
    <div
      class={r.ok ? 'notice ok' : 'notice error'}
      role={r.ok ? 'status' : 'alert'}
      data-result={r.ok ? 'ok' : r.status}
    >
      {r.ok ? null : <strong class="status">{r.status > 0 ? `${r.status} ` : ''}</strong>}
      <span class="message">{r.message}</span>
      {(r.warnings ?? []).map((w) => (
        <div key={w} class="warning">
          {w}
        </div>
      ))}
    </div>
  );
}

/** An operation waiting for its confirmation: the question, the button's word, a text field's label. */
export interface Asked {
  op: Operation;
  question: string;
  yes: string;
  /** The operation takes a text (the freeze's reason): the field's label. */
  input?: string;
}

function Ask({ a, onYes, onNo }: { a: Asked; onYes: (text: string) => void; onNo: () => void }) {
  const [text, setText] = useState('');
  return (
    <div class="backdrop">
      <div class="dialog" role="dialog" aria-modal="true" aria-labelledby="ask-question">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            onYes(text);
          }}
        >
          <p id="ask-question">{a.question}</p>
          {a.input !== undefined ? (
            <label class="field">
              {a.input}{' '}
              <input
                type="text"
                name="text"
                maxLength={1024}
                value={text}
                onInput={(e) => setText((e.currentTarget as HTMLInputElement).value)}
              />
            </label>
          ) : null}
          <div class="buttons">
            <button type="submit" class="primary" data-confirm="yes">
              {a.yes}
            </button>
            <button type="button" data-confirm="no" onClick={onNo}>
              Cancel
            </button>
          </div>
        </form>
      </div>
    </div>
  );
}

/**
 * One place's actions: `ask` opens the confirmation, Yes sends the operation (with the typed text
 * when it takes one), and `view` draws the dialog and the last answer.
 */
export function useOperations(): {
  ask: (a: Asked) => void;
  busy: boolean;
  view: JSX.Element;
} {
  const [asked, setAsked] = useState<Asked | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | undefined>(undefined);
  const run = async (text: string) => {
    if (!asked) return;
    const op: Operation =
      asked.op.kind === 'freeze' && asked.input !== undefined && text.trim() !== ''
        ? { ...asked.op, reason: text.trim() }
        : asked.op;
    // A plan's start takes its parameters as typed: KEY=VALUE words, as `plan start -p` takes them.
    const parameters =
      op.kind === 'plan' && op.action === 'start' && asked.input !== undefined
        ? text.split(/\s+/).filter((w) => w !== '')
        : undefined;
    setAsked(undefined);
    setBusy(true);
    setOutcome(await operate(op, parameters));
    setBusy(false);
  };
  return {
    ask: (a) => {
      setOutcome(undefined);
      setAsked(a);
    },
    busy,
    view: (
      <>
        {outcome ? <Result r={outcome} /> : null}
        {asked ? <Ask a={asked} onYes={run} onNo={() => setAsked(undefined)} /> : null}
      </>
    ),
  };
}
