import type { Readable } from "node:stream";
import { bodyTaken, takeBody } from "../http/request-body";
import { iterate } from "./disk/receive";

/** Past this many bytes an unwanted body is not worth reading: the connection is closed instead. */
const DRAIN_LIMIT = 64 * 1024 * 1024;

/**
 * A request refused before its body was read (bad signature, unknown upload…) still has that body
 * on the wire. Reading it to the end, in the background, lets the client receive the error answer
 * and keep its connection; a very large body is cut off instead.
 */
export function discardUnreadBody(req: Request): void {
  if (bodyTaken(req)) return;
  const body = takeBody(req);
  if (!body) return;
  void (async () => {
    let seen = 0;
    try {
      for await (const chunk of iterate(body)) {
        seen += chunk.length;
        if (seen > DRAIN_LIMIT) break; // leaving the loop cancels the stream, which closes the connection
      }
    } catch {
      // The client went away: nothing left to drain.
    }
  })();
}

/** The same for a body a reader has given up on part way (a decoder that refused it). */
export function drainReadable(stream: Readable): void {
  let seen = 0;
  stream.on("error", () => undefined); // the client went away: nothing left to drain
  stream.on("data", (chunk: Uint8Array) => {
    seen += chunk.length;
    if (seen > DRAIN_LIMIT) stream.destroy();
  });
  stream.resume();
}
