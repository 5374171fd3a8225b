import type { Clock } from "../../clock";
import type { Db } from "../../db";
import { log } from "../../log/logger.mjs";
import { parseCheckpointItemId } from "./checkpoint-id";
import { offerLocalSlots } from "./local-slots";
import { notifyWork } from "./signal";
import { storeCheckpoint, type CheckpointedStep } from "./store/checkpoint";
import { ingestEvents, type IncomingEvent } from "./store/ingest";

/**
 * Where the Inngest client sends events and checkpoints in the embedded default. The host never
 * resolves: the client's `fetch` (embeddedFetch) answers this origin in-process, speaking the
 * event API (`POST /e/:key` → `{ ids, status: 200 }`; events are stored before `send()` returns)
 * and the checkpoint API (`POST /v1/checkpoint/:runId/async`) the SDK expects of an Inngest server.
 */
export const EMBEDDED_BASE_URL = "http://easel-jobs.internal/";

/** The database (and clock) the events of a client go to: the app's deps, or a test's own. */
export type EventSink = () => Promise<{ db: Db; clock: Clock }>;

const json = (body: unknown, status: number) => Response.json(body, { status });

const CHECKPOINT_PATH = /^\/v1\/checkpoint\/([^/]+)\/async$/;

/** The steps of a checkpoint, or null when one is not a step result (the only op a discovery call checkpoints). */
function checkpointedSteps(value: unknown): CheckpointedStep[] | null {
  if (!Array.isArray(value) || value.length === 0) return null;
  const steps: CheckpointedStep[] = [];
  for (const op of value as Record<string, unknown>[]) {
    if (!op || op.op !== "StepRun" || typeof op.id !== "string") return null;
    const name = typeof op.displayName === "string" ? op.displayName : typeof op.name === "string" ? op.name : null;
    steps.push({ id: op.id, name, data: op.data });
  }
  return steps;
}

/**
 * A checkpoint (`POST /v1/checkpoint/:runId/async`): the results of steps a call ran, posted by
 * the SDK before it goes on with the function. Stored while the call's lease (`qi_id`) is held;
 * 409 otherwise, which the SDK takes as "this call is stale" and stops. No bearer check: the
 * origin is answered only inside this process, for this process's own client.
 */
async function checkpoint(request: Received, runId: string, sink: EventSink): Promise<Response> {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(request.body) as Record<string, unknown>;
  } catch {
    return json({ error: "invalid JSON" }, 400);
  }
  const item = parseCheckpointItemId(body?.qi_id);
  const steps = checkpointedSteps(body?.steps);
  if (!item || !steps) return json({ error: "a checkpoint needs qi_id and step results" }, 400);
  const { db, clock } = await sink();
  const held = await storeCheckpoint(db, { runId: decodeURIComponent(runId), itemId: item.id, leaseToken: item.leaseToken, steps, now: clock() });
  return held ? json({}, 200) : json({ error: "the call's lease is no longer held" }, 409);
}

/** A request to the embedded origin, as the client's fetch was given it. */
type Received = { method: string; url: string; body: string };

async function receive(request: Received, sink: EventSink): Promise<Response> {
  const url = new URL(request.url);
  const checkpointOf = request.method === "POST" ? CHECKPOINT_PATH.exec(url.pathname) : null;
  if (checkpointOf) return checkpoint(request, checkpointOf[1], sink);
  if (request.method === "POST" && /^\/e\/[^/]+$/.test(url.pathname)) {
    let body: unknown;
    try {
      body = JSON.parse(request.body);
    } catch {
      return json({ error: "invalid JSON", status: 400 }, 400);
    }
    const events = (Array.isArray(body) ? body : [body]) as IncomingEvent[];
    if (!events.every((e) => e && typeof e === "object" && typeof e.name === "string" && e.name)) {
      return json({ error: "every event needs a name", status: 400 }, 400);
    }
    const { db, clock } = await sink();
    // An executor of this process with free slots gets the new runs' first calls leased by the
    // insert itself: no claim statement, and no wake-up when it took every run.
    const offer = offerLocalSlots(db);
    let ingested: Awaited<ReturnType<typeof ingestEvents>>;
    try {
      ingested = await ingestEvents(db, events, clock(), offer);
    } catch (err) {
      offer?.release();
      throw err;
    }
    offer?.adopt(ingested.claims);
    if (ingested.claims.length < ingested.runs.length) notifyWork();
    return json({ ids: ingested.ids, status: 200 }, 200);
  }
  if (url.pathname === "/fn/register") {
    // An unsigned PUT to the serve route asks the SDK to sync out of band; the executor syncs in band only.
    return json({ error: "Easel's embedded executor syncs in band only" }, 400);
  }
  return json({ error: `no route ${request.method} ${url.pathname}` }, 404);
}

/**
 * What the client asked of the embedded origin. The SDK calls `fetch(url, { method, body })` with
 * a string body, read here as it is: no fetch `Request` to build and stream for every event and
 * checkpoint. Anything else is read through a `Request`.
 */
async function received(input: RequestInfo | URL, init: RequestInit | undefined, url: string): Promise<Received> {
  if (!(input instanceof Request) && (init?.body === undefined || init.body === null || typeof init.body === "string")) {
    return { method: (init?.method ?? "GET").toUpperCase(), url, body: init?.body ?? "" };
  }
  const request = new Request(input, init);
  return { method: request.method, url, body: await request.text() };
}

/** The client's `fetch`: the embedded origin is answered in-process, any other URL goes to the network. */
export function embeddedFetch(sink: EventSink): typeof fetch {
  return async (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (!url.startsWith(EMBEDDED_BASE_URL)) return fetch(input, init);
    try {
      return await receive(await received(input, init, url), sink);
    } catch (err) {
      // The sender gets a 500: an event sender keeps its events (the outbox tries them again), a
      // checkpointing SDK retries, then answers the step in its call instead.
      log().error({ component: "jobs", err, path: new URL(url).pathname }, "storing events or a checkpoint failed; answered 500 to the sender");
      return json({ error: "could not be stored", status: 500 }, 500);
    }
  };
}
