// The page's one stream from the server (GET /api/v1/stream, Server-Sent Events): a snapshot, then
// batches of changes, each batch carrying the id of its last change. When the connection drops the
// browser reconnects by itself and sends the last id it saw (Last-Event-ID); the server then replays
// what came after it ("resumed") or, when it cannot, sends a new snapshot. A tab in the background
// closes its stream and opens it again, from where it was, when it is shown.

import type { Change, Resumed, Snapshot, Waiting } from '../src/dashboard/api.ts';

export type LinkState = 'connecting' | 'live' | 'reconnecting' | 'paused';

export interface StreamHandlers {
  snapshot(s: Snapshot, again: boolean): void;
  changes(c: Change[]): void;
  resumed(r: Resumed): void;
  /** The server cannot fill its cache yet, and why. */
  waiting(w: Waiting): void;
  link(state: LinkState): void;
  /** In the cluster, what the user may see has changed; the snapshot that came with it is loaded. */
  access?(): void;
  /** The server closed the stream (an HTTP error, such as 401 once a sign-in has ended). */
  closed?(): void;
}

export class Stream {
  private source: EventSource | undefined;
  private lastId = '';
  private everLive = false;
  private retry: number | undefined;
  private stopped = false;

  constructor(private readonly h: StreamHandlers) {
    document.addEventListener('visibilitychange', () => {
      if (document.hidden) this.pause();
      else if (!this.source && !this.stopped) this.open();
    });
  }

  open(): void {
    if (this.retry !== undefined) window.clearTimeout(this.retry);
    this.retry = undefined;
    this.h.link(this.everLive ? 'reconnecting' : 'connecting');
    const url = this.lastId ? `/api/v1/stream?lastEventId=${encodeURIComponent(this.lastId)}` : '/api/v1/stream';
    const es = new EventSource(url);
    this.source = es;
    const track = (e: MessageEvent) => {
      if (e.lastEventId) this.lastId = e.lastEventId;
    };
    es.addEventListener('snapshot', (e) => {
      track(e);
      this.h.snapshot(JSON.parse(e.data) as Snapshot, this.everLive);
      this.everLive = true;
      this.h.link('live');
    });
    // In the cluster: what the user may see has changed (a RoleBinding added or removed): everything
    // again, as they may see it now.
    es.addEventListener('access', (e) => {
      track(e);
      this.h.snapshot(JSON.parse(e.data) as Snapshot, false);
      this.h.access?.();
    });
    es.addEventListener('waiting', (e) => {
      this.h.waiting(JSON.parse(e.data) as Waiting);
    });
    es.addEventListener('resumed', (e) => {
      this.h.resumed(JSON.parse(e.data) as Resumed);
      this.h.link('live');
    });
    es.addEventListener('changes', (e) => {
      track(e);
      this.h.changes(JSON.parse(e.data) as Change[]);
    });
    es.addEventListener('error', () => {
      if (this.source !== es) return;
      this.h.link('reconnecting');
      // CONNECTING: the browser retries by itself (with Last-Event-ID). CLOSED (an HTTP error, the
      // server gone for good): open a new one in a while, from the last id seen.
      if (es.readyState === EventSource.CLOSED) {
        this.source = undefined;
        this.retry = window.setTimeout(() => this.open(), 2000);
        this.h.closed?.();
      }
    });
  }

  /** Closed for good (signed out): no reconnection, not even when the tab is shown again. */
  close(): void {
    this.stopped = true;
    this.pause();
  }

  private pause(): void {
    this.source?.close();
    this.source = undefined;
    if (this.retry !== undefined) window.clearTimeout(this.retry);
    this.retry = undefined;
    this.h.link('paused');
  }
}
