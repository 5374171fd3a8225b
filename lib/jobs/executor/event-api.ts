import type { Clock } from "../../clock";
import type { Db } from "../../db";
import { notifyWork } from "./signal";
import { ingestEvents, type IncomingEvent } from "./store/ingest";
import { log } from "../../log/logger.mjs";

/**
 * Where the Inngest client sends events in the embedded default. The host never resolves: the
 * client's `fetch` (embeddedFetch) answers this origin in-process, speaking the event API the SDK
 * expects (`POST /e/:key` → `{ ids, status: 200 }`). Events are stored before `send()` returns.
 */
export const EMBEDDED_BASE_URL = "http://easel-jobs.internal/";

/** The database (and clock) the events of a client go to: the app's deps, or a test's own. */
export type EventSink = () => Promise<{ db: Db; clock: Clock }>;

const json = (body: unknown, status: number) => Response.json(body, { status });

async function receive(request: Request, sink: EventSink): Promise<Response> {
  const url = new URL(request.url);
  if (request.method === "POST" && /^\/e\/[^/]+$/.test(url.pathname)) {
    let body: unknown;
    try {
      body = await request.json();
    } catch {
      return json({ error: "invalid JSON", status: 400 }, 400);
    }
    const events = (Array.isArray(body) ? body : [body]) as IncomingEvent[];
    if (!events.every((e) => e && typeof e === "object" && typeof e.name === "string" && e.name)) {
      return json({ error: "every event needs a name", status: 400 }, 400);
    }
    const { db, clock } = await sink();
    const { ids } = await ingestEvents(db, events, clock());
    notifyWork();
    return json({ ids, status: 200 }, 200);
  }
  if (url.pathname === "/fn/register") {
    // An unsigned PUT to the serve route asks the SDK to sync out of band; the executor syncs in band only.
    return json({ error: "Easel's embedded executor syncs in band only" }, 400);
  }
  return json({ error: `no route ${request.method} ${url.pathname}` }, 404);
}

/** The client's `fetch`: the embedded origin is answered in-process, any other URL goes to the network. */
export function embeddedFetch(sink: EventSink): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    if (!request.url.startsWith(EMBEDDED_BASE_URL)) return fetch(request);
    try {
      return await receive(request, sink);
    } catch (err) {
      // The sender gets a 500 and keeps the events (the outbox tries them again).
      log().error({ component: "jobs", err }, "storing events failed; answered 500 to the sender");
      return json({ error: "events could not be stored", status: 500 }, 500);
    }
  };
}
