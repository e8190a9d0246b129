// A pod's log on a Deployment's page: the API server's pods/log (through the dashboard), its last
// lines and then, with follow, what comes, until the pane is closed or another pod is chosen. What
// the API server refuses (a pod gone, a kubelet it cannot reach) is shown in its words; nothing
// else is ever shown as a line of the log.

import { useEffect, useRef, useState } from 'preact/hooks';
import { streamLog } from './api.ts';

/** The lines asked for first (kubectl logs --tail), and the most the pane keeps while following. */
export const LOG_TAIL_LINES = 500;
const KEEP_CHARS = 256 * 1024;

export function PodLog({
  namespace,
  pod,
  containers,
  onClose,
}: {
  namespace: string;
  pod: string;
  /** The template's containers: a choice when there are several (the API server needs one then). */
  containers: string[];
  onClose: () => void;
}) {
  const [container, setContainer] = useState(containers[0] ?? '');
  const [follow, setFollow] = useState(true);
  const [text, setText] = useState('');
  const [state, setState] = useState<'reading' | 'ended' | { error: string }>('reading');
  const pre = useRef<HTMLPreElement>(null);

  useEffect(() => {
    const abort = new AbortController();
    setText('');
    setState('reading');
    void streamLog(
      namespace,
      pod,
      { ...(containers.length > 1 ? { container } : {}), follow, tailLines: LOG_TAIL_LINES },
      (t) => setText((now) => (now + t).slice(-KEEP_CHARS)),
      abort.signal,
    ).then((r) => {
      if (!abort.signal.aborted) setState(r ?? 'ended');
    });
    return () => abort.abort();
  }, [namespace, pod, container, follow, containers.length]);

  useEffect(() => {
    if (pre.current) pre.current.scrollTop = pre.current.scrollHeight;
  }, [text]);

  return (
    <section class="podlog" data-log-pod={pod}>
      <h2>
        Log of {pod}{' '}
        <button type="button" class="small" data-log="close" onClick={onClose}>
          close
        </button>
      </h2>
      <div class="log-controls">
        {containers.length > 1 ? (
          <label>
            Container{' '}
            <select
              name="log-container"
              value={container}
              onChange={(e) => setContainer((e.currentTarget as HTMLSelectElement).value)}
            >
              {containers.map((c) => (
                <option key={c} value={c}>
                  {c}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        <label>
          <input
            type="checkbox"
            name="log-follow"
            checked={follow}
            onChange={(e) => setFollow((e.currentTarget as HTMLInputElement).checked)}
          />{' '}
          follow
        </label>
        <span class="log-state" data-log-state={typeof state === 'string' ? state : 'error'}>
          {state === 'reading' ? (follow ? 'following…' : 'reading…') : state === 'ended' ? 'end of the log' : ''}
        </span>
      </div>
      {typeof state === 'object' ? (
        <div class="notice error" role="alert" data-log-error="">
          {state.error}
        </div>
      ) : null}
      <pre class="log" ref={pre} data-log-text="">
        {text}
      </pre>
    </section>
  );
}
