import { z } from "zod";
import { isSameOriginRequest, sessionPrincipal } from "../auth/session-principal";
import type { Deps } from "../deps";
import { DomainError, notFound } from "../errors";
import { findWorkspaceBySlug } from "../workspaces/get-workspace";
import { maySeeDeliveries, mayWatchWorkspace } from "./access";
import { Cursor, parseSince } from "./cursor";
import { changeFrame, heartbeatFrame, readyFrame, resetFrame, retryFrame } from "./frames";
import { liveHub } from "./live-hub";
import { takeStreamSlot } from "./stream-slots";

export type StreamOptions = { heartbeatMs?: number; retryMs?: number };

/** Proxies commonly cut a response silent for 30-60 s; a comment every 20 s keeps it open. */
const HEARTBEAT_MS = 20_000;
/** The browser's wait before reconnecting a dropped stream. */
const RETRY_MS = 2_000;
/** Frames queued for a client that does not read: past this the stream ends, and the reconnect catches up. */
const MAX_QUEUED_FRAMES = 500;

const Slug = z.string().min(1).max(100);

const encoder = new TextEncoder();

/**
 * GET /api/live/:slug: the server-sent events of one workspace's changes, to a signed-in page of
 * this site. A `Last-Event-ID` (sent by EventSource when it reconnects) within this node's window
 * replays what was missed; an older or unknown one answers `reset` (refetch everything). A first
 * stream may say `?since=<ms>` (a little before its page read its data): what changed since then
 * is replayed, so nothing falls between the page's render and its stream.
 */
export async function openLiveStream(deps: Deps, req: Request, slug: string, opts: StreamOptions = {}): Promise<Response> {
  // ---- access: a session cookie (never a bearer token), from this site's own pages, on a workspace it may read
  const principal = await sessionPrincipal(req, deps);
  if (!principal) throw new DomainError("unauthenticated", "Sign in to the web UI first");
  if (!isSameOriginRequest(req)) throw new DomainError("unauthenticated", "Live updates are served only to this site's own pages");
  const parsedSlug = Slug.safeParse(slug);
  const workspace = parsedSlug.success ? await findWorkspaceBySlug(deps.db, parsedSlug.data) : null;
  if (!workspace || !mayWatchWorkspace(principal, workspace)) throw notFound("workspace_not_found", "Workspace");

  // ---- a slot, and the node's hub
  const giveBack = takeStreamSlot(principal.userId);
  let hub;
  try {
    hub = await liveHub(deps.db);
  } catch (err) {
    giveBack();
    throw err;
  }
  const header = req.headers.get("last-event-id");
  const since = parseSince(new URL(req.url).searchParams.get("since"));
  const from = header ? { lastEventId: Cursor.safeParse(header).success ? header : "unknown" } : since !== undefined ? { since } : undefined;

  // ---- the stream
  let end = () => {};
  // Set when the reader cancels the body: its stream is closed then, and must not be closed again.
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let open = true;
      const send = (text: string) => {
        if (!open) return;
        if ((controller.desiredSize ?? 0) < -MAX_QUEUED_FRAMES) return end();
        controller.enqueue(encoder.encode(text));
      };
      send(retryFrame(opts.retryMs ?? RETRY_MS));
      if (hub.isStopped) {
        // The node is stopping: the browser reconnects, to another node behind a balancer.
        controller.close();
        giveBack();
        return;
      }
      const { catchUp, unsubscribe } = hub.subscribe(
        workspace.id,
        {
          userId: principal.userId,
          seesDeliveries: maySeeDeliveries(principal, workspace),
          deliver: (m) => send(changeFrame(m)),
          reset: () => send(resetFrame(hub.cursorFor(workspace.id))),
          close: () => end(),
        },
        from,
      );
      const beat = setInterval(() => send(heartbeatFrame), opts.heartbeatMs ?? HEARTBEAT_MS);
      const onAbort = () => end();
      end = () => {
        if (!open) return;
        open = false;
        clearInterval(beat);
        unsubscribe();
        giveBack();
        req.signal.removeEventListener("abort", onAbort);
        if (!cancelled) controller.close();
      };
      req.signal.addEventListener("abort", onAbort);
      if ("reset" in catchUp) send(resetFrame(hub.cursorFor(workspace.id)));
      else {
        send(readyFrame(catchUp.replay.length ? undefined : hub.cursorFor(workspace.id)));
        for (const m of catchUp.replay) send(changeFrame(m));
      }
    },
    cancel() {
      cancelled = true;
      end();
    },
  });
  return new Response(body, {
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      // no-transform: no compressing proxy (nor Next.js) may hold frames back to fill a buffer.
      "Cache-Control": "no-store, no-transform",
      "X-Accel-Buffering": "no",
    },
  });
}
