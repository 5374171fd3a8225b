import { setImmediate as nextTurn } from "node:timers/promises";

/** Text gathered before it is encoded and handed to the stream (one socket write's worth). */
const CHUNK_CHARS = 64 * 1024;
/** Text written between two turns of the event loop: a few milliseconds of JSON.stringify. */
const TURN_CHARS = 512 * 1024;

/**
 * The JSON text of `body`, piece by piece: `{`, each member, and each element of a top-level
 * array (a page's `data`) on its own, in JSON.stringify's order and with its members' rules
 * (a member whose value has no JSON text is left out, an array element without one is `null`).
 */
function* jsonPieces(body: Record<string, unknown>): Generator<string> {
  yield "{";
  let first = true;
  for (const [key, value] of Object.entries(body)) {
    if (Array.isArray(value)) {
      yield `${first ? "" : ","}${JSON.stringify(key)}:[`;
      for (let i = 0; i < value.length; i++) yield (i ? "," : "") + (JSON.stringify(value[i]) ?? "null");
      yield "]";
    } else {
      const text = JSON.stringify(value) as string | undefined;
      if (text === undefined) continue;
      yield `${first ? "" : ","}${JSON.stringify(key)}:${text}`;
    }
    first = false;
  }
  yield "}";
}

/**
 * Response.json(body), with the same bytes, written as the client reads it: a page of the largest
 * assets is 18.7 MB of JSON, and one JSON.stringify of it held the event loop for 100-180 ms
 * (contract §12 allows a request 100 ms). Each element of a top-level array is serialised
 * alone, the stream pauses for a turn of the event loop every half megabyte, and the next piece
 * is made only when the client (the socket) has taken the last: at most a chunk or two is held.
 */
export function streamedJson(body: Record<string, unknown>, status = 200, headers?: HeadersInit): Response {
  return streamedText(jsonPieces(body), status, headers);
}

function* arrayPieces(elements: string[]): Generator<string> {
  yield "[";
  for (let i = 0; i < elements.length; i++) yield (i ? "," : "") + elements[i];
  yield "]";
}

/** A JSON array of elements already serialised (each element's JSON text), written as streamedJson writes. */
export function streamedJsonArray(elements: string[], status = 200, headers?: HeadersInit): Response {
  return streamedText(arrayPieces(elements), status, headers);
}

function streamedText(pieces: Generator<string>, status: number, headers?: HeadersInit): Response {
  const encoder = new TextEncoder();
  let sinceTurn = 0;
  let done = false;
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (sinceTurn >= TURN_CHARS) {
          sinceTurn = 0;
          await nextTurn();
        }
        let chunk = "";
        while (!done && chunk.length < CHUNK_CHARS && sinceTurn < TURN_CHARS) {
          const next = pieces.next();
          if (next.done) done = true;
          else {
            chunk += next.value;
            sinceTurn += next.value.length;
          }
        }
        if (chunk) controller.enqueue(encoder.encode(chunk));
        if (done) controller.close();
      },
      cancel() {
        pieces.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
  const out = new Headers(headers);
  out.set("content-type", "application/json");
  out.delete("content-length");
  return new Response(stream, { status, headers: out });
}
