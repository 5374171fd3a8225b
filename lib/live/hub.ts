import type { Db } from "../db";
import { newId } from "../jobs/executor/ids";
import { log } from "../log/logger.mjs";
import { Cursor, cursorTime } from "./cursor";
import { listenLive } from "./listen";
import { AccessEnded, LiveMessage } from "./message";

/** How many recent messages a node keeps for streams that reconnect (its catch-up window). */
export const CATCH_UP_MESSAGES = 2_000;

/**
 * A cursor that names no message this node holds is read as a time: what the stream's workspace
 * had since then, from this much earlier (a message's id is taken before its transaction commits,
 * and nodes' clocks differ a little), is replayed. A change seen twice costs a page a refetch.
 */
export const CURSOR_MARGIN_MS = 5_000;

export type LiveListener = {
  /** The signed-in person the stream is for. */
  userId: number;
  /** Whether they may manage the workspace's webhook triggers (contract §11: admins and owners): only then do `delivery` messages reach them. */
  seesDeliveries: boolean;
  deliver: (m: LiveMessage) => void;
  /** Messages may have been missed: the page refetches everything. */
  reset: () => void;
  /** The node is stopping: end the stream (the browser reconnects, to another node behind a balancer). */
  close: () => void;
};

/** What a stream starts with: the messages after its cursor, or `reset` when the cursor is not in the window. */
export type CatchUp = { replay: LiveMessage[] } | { reset: true };

/** Where a stream starts: after a message it saw, or at a time (a page's first stream: since its data was read). */
export type From = { lastEventId: string } | { since: number } | undefined;

/**
 * One process's end of the live channel: a single LISTEN, fanned out to the open streams of each
 * workspace, and the last CATCH_UP_MESSAGES messages in the order PostgreSQL delivered them (the
 * commit order, the same on every node) for cursors of streams that reconnect.
 */
export class LiveHub {
  private readonly recent: LiveMessage[] = [];
  private readonly byWorkspace = new Map<number, Set<LiveListener>>();
  private unlisten: (() => Promise<void>) | null = null;
  private stopped = false;
  /** Since when this node has heard everything (its LISTEN started, or was re-established). */
  private completeSince = Date.now();

  constructor(private readonly db: Db) {}

  async start(): Promise<void> {
    this.unlisten = await listenLive(this.db, (payload) => this.receive(payload), () => this.lost("the database connection of the live channel was re-established"));
  }

  /** Open streams, over every workspace (tests check that none is left behind). */
  get listenerCount(): number {
    let n = 0;
    for (const set of this.byWorkspace.values()) n += set.size;
    return n;
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /**
   * Where a stream of one workspace resumes when nothing newer reaches it: the id of that
   * workspace's newest message in the window, else a cursor of the present moment. Never another
   * workspace's id: a stream's cursor must not show when other workspaces are busy.
   */
  cursorFor(workspaceId: number): string {
    for (let i = this.recent.length - 1; i >= 0; i--) if (this.recent[i].workspaceId === workspaceId) return this.recent[i].id;
    return newId();
  }

  /** Since when this node holds every message: its window's oldest when the window is full, else since it started listening. */
  private windowFrom(): number {
    const oldest = this.recent[0];
    return oldest && this.recent.length >= CATCH_UP_MESSAGES ? cursorTime(oldest.id) : this.completeSince;
  }

  /**
   * Registers a stream, and answers in the same step what it missed after `lastEventId`, so that
   * nothing falls between the catch-up and the live messages.
   */
  subscribe(workspaceId: number, listener: LiveListener, from?: From): { catchUp: CatchUp; unsubscribe: () => void } {
    const mine = (ms: LiveMessage[]) => ms.filter((m) => m.workspaceId === workspaceId && listenerSees(listener, m));
    const since = (ms: number): CatchUp => (ms < this.windowFrom() ? { reset: true } : { replay: mine(this.recent.filter((m) => cursorTime(m.id) >= ms)) });
    let catchUp: CatchUp = { replay: [] };
    if (from && "lastEventId" in from) {
      const at = this.recent.findIndex((m) => m.id === from.lastEventId);
      if (at !== -1) catchUp = { replay: mine(this.recent.slice(at + 1)) };
      else if (!Cursor.safeParse(from.lastEventId).success) catchUp = { reset: true };
      else {
        // A cursor of a quiet moment (cursorFor), or a message that left the window: read as a time.
        const at = cursorTime(from.lastEventId);
        catchUp = at < this.windowFrom() ? { reset: true } : since(Math.max(at - CURSOR_MARGIN_MS, this.windowFrom()));
      }
    } else if (from && "since" in from) {
      catchUp = since(from.since);
    }
    let set = this.byWorkspace.get(workspaceId);
    if (!set) this.byWorkspace.set(workspaceId, (set = new Set()));
    set.add(listener);
    return {
      catchUp,
      unsubscribe: () => {
        set.delete(listener);
        if (set.size === 0 && this.byWorkspace.get(workspaceId) === set) this.byWorkspace.delete(workspaceId);
      },
    };
  }

  /** Ends every stream and stops listening (the process is stopping). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const set of [...this.byWorkspace.values()]) for (const l of [...set]) l.close();
    this.byWorkspace.clear();
    await this.unlisten?.().catch((err: unknown) => log().warn({ component: "live", err }, "UNLISTEN failed while stopping; the connection closes with the database"));
    this.unlisten = null;
  }

  /** A notification from the channel: kept for catch-up, handed to the streams of its workspace. */
  private receive(payload: string): void {
    let message: LiveMessage;
    try {
      const parsed: unknown = JSON.parse(payload);
      const ended = AccessEnded.safeParse(parsed);
      if (ended.success) return this.endAccess(ended.data.accessEnded);
      message = LiveMessage.parse(parsed);
    } catch (err) {
      log().warn({ component: "live", err }, "a live message that does not parse was dropped");
      return;
    }
    // Progress is superseded by the next report within a second or two: kept for catch-up, a long
    // encode's reports would push every other change out of the window.
    if (message.kind !== "encode_progress") this.recent.push(message);
    if (this.recent.length > CATCH_UP_MESSAGES) this.recent.splice(0, this.recent.length - CATCH_UP_MESSAGES);
    for (const l of [...(this.byWorkspace.get(message.workspaceId) ?? [])]) if (listenerSees(l, message)) l.deliver(message);
  }

  /** A person lost the workspace: their streams of it end now (not kept for catch-up, so a later stream of theirs is not ended by it). */
  private endAccess({ workspaceId, userId }: AccessEnded["accessEnded"]): void {
    for (const l of [...(this.byWorkspace.get(workspaceId) ?? [])]) if (l.userId === userId) l.close();
  }

  /** Messages may have been lost: no cursor from before is trusted, and every open page refetches. */
  private lost(reason: string) {
    log().warn({ component: "live", reason, streams: this.listenerCount }, "live messages may have been missed: open pages refetch everything");
    this.recent.length = 0;
    this.completeSince = Date.now();
    for (const set of this.byWorkspace.values()) for (const l of [...set]) l.reset();
  }
}

/** A `delivery` names a webhook trigger: only people who may manage triggers see it. */
const listenerSees = (l: LiveListener, m: LiveMessage) => m.kind !== "delivery" || l.seesDeliveries;
