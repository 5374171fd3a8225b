import { publicPart, type LiveMessage } from "./message";

/**
 * The text of server-sent events (the WHATWG event-stream format). Every `data:` is one line of
 * JSON (JSON.stringify never emits a raw newline), and ids are ULIDs, so nothing needs escaping.
 */
const idLine = (cursor: string | undefined) => (cursor ? `id: ${cursor}\n` : "");

/** How long the browser waits before reconnecting a dropped stream. */
export const retryFrame = (ms: number) => `retry: ${ms}\n\n`;

export const changeFrame = (m: LiveMessage) => `id: ${m.id}\nevent: change\ndata: ${JSON.stringify(publicPart(m))}\n\n`;

/** The stream is open; `cursor`: where a reconnect resumes if no change arrives before it. */
export const readyFrame = (cursor: string | undefined) => `${idLine(cursor)}event: ready\ndata: {}\n\n`;

/** Changes may have been missed (cursor too old, or the channel was lost): refetch everything. */
// An empty `id:` clears the browser's cursor: the old one is worthless now.
export const resetFrame = (cursor: string | undefined) => `id: ${cursor ?? ""}\nevent: reset\ndata: {}\n\n`;

/** A comment line: ignored by EventSource, keeps proxies from cutting an idle stream. */
export const heartbeatFrame = ": keep-alive\n\n";
