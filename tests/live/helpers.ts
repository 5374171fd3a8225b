import { expect } from "vitest";
import * as liveRoute from "../../app/api/live/[slug]/route";
import type { Db } from "../../lib/db";
import { newUser, sessionHeaders as sessionHeadersOf, sessionHeadersFor } from "../helpers/sessions";

/** A signed-in web UI session: the cookie a browser sends, for a new owner. */
export async function sessionHeaders(db: Db): Promise<Record<string, string>> {
  return sessionHeadersOf(db, await newUser(db, { owner: true }));
}

export { sessionHeadersFor };

export type SseEvent = { event: string; id?: string; data: unknown; raw: string };

/** An open stream of the route, read event by event. */
export type OpenStream = {
  status: number;
  response: Response;
  /** The next event (heartbeat comments and `retry:` skipped) matching `match`, within `timeoutMs`. */
  next: (match?: (e: SseEvent) => boolean, timeoutMs?: number) => Promise<SseEvent>;
  /** Everything read so far, comments included. */
  text: () => string;
  /** The browser goes away (the request's signal aborts, as Next.js does when the connection closes). */
  close: () => void;
  /** The reader stops reading (the response body is cancelled). */
  cancel: () => Promise<void>;
};

/** Opens GET /api/live/:slug in-process, as Next.js calls the route: the request's signal aborts when the client leaves. */
export async function openStream(slug: string, headers: Record<string, string>, query = ""): Promise<OpenStream> {
  const abort = new AbortController();
  const req = new Request(`http://easel.test/api/live/${slug}${query}`, { headers, signal: abort.signal });
  return readEvents(await liveRoute.GET(req, { params: Promise.resolve({ slug }) }), abort);
}

/** Reads a live stream's answer event by event (`abort`: what closes its request). */
export function readEvents(response: Response, abort: AbortController): OpenStream {
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let all = "";
  const queue: SseEvent[] = [];
  // A read still pending when a wait timed out is taken up by the next wait, so no chunk is lost.
  let inflight: Promise<ReadableStreamReadResult<Uint8Array>> | null = null;
  const pump = async (deadline: number) => {
    if (!reader) throw new Error(`no stream: ${response.status}`);
    inflight ??= reader.read();
    const timer = new Promise<"timeout">((r) => setTimeout(() => r("timeout"), Math.max(0, deadline - Date.now())));
    const got = await Promise.race([inflight, timer]);
    if (got === "timeout") return;
    inflight = null;
    if (got.done) throw new Error(`stream ended; read so far:\n${all}`);
    const chunk = decoder.decode(got.value, { stream: true });
    buffer += chunk;
    all += chunk;
    let at;
    while ((at = buffer.indexOf("\n\n")) !== -1) {
      const block = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      const fields = block.split("\n").filter((l) => !l.startsWith(":"));
      const field = (name: string) => fields.find((l) => l.startsWith(`${name}:`))?.slice(name.length + 1).trim();
      const event = field("event");
      if (!event) continue;
      queue.push({ event, id: field("id"), data: JSON.parse(field("data") ?? "null"), raw: block });
    }
  };
  const next = async (match: (e: SseEvent) => boolean = () => true, timeoutMs = 5_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = queue.findIndex(match);
      if (i !== -1) return queue.splice(i, 1)[0];
      if (Date.now() >= deadline) throw new Error(`no matching event within ${timeoutMs} ms; read so far:\n${all}`);
      await pump(deadline);
    }
  };
  return { status: response.status, response, next, text: () => all, close: () => abort.abort(), cancel: () => reader!.cancel() };
}

export const isChange = (asset: string, kind?: string) => (e: SseEvent) =>
  e.event === "change" && (e.data as { asset?: string }).asset === asset && (kind === undefined || (e.data as { kind: string }).kind === kind);

export async function expectError(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(await res.json()).toMatchObject({ errors: [{ extensions: { code } }] });
}
