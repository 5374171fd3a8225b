/**
 * A request's body as the fastest source at hand. A Request built from a Node request (lib/server/
 * node-bridge.ts) carries that request, which is read directly: undici's web stream above it
 * costs a few promises and queue steps per 64 KiB chunk, a fifth of an upload's request-thread
 * time. Elsewhere (route files under Next.js, tests) it is the Request's own body.
 *
 * A body is read once, by one consumer: `takeBody` hands it out and `bodyTaken` says whether it
 * has been, whichever way it was read.
 */
/** The Node request behind a Request, until it is taken (then null). */
const nodeBodies = new WeakMap<Request, AsyncIterable<Uint8Array> | null>();

export type BodySource = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | null;

/** Says that `req`'s body can be read from `source` (the Node request it was built from). */
export function attachNodeBody(req: Request, source: AsyncIterable<Uint8Array>) {
  nodeBodies.set(req, source);
}

export function takeBody(req: Request): BodySource {
  const direct = nodeBodies.get(req);
  if (!direct || req.bodyUsed) return req.body;
  nodeBodies.set(req, null);
  return direct;
}

export function bodyTaken(req: Request): boolean {
  return req.bodyUsed || nodeBodies.get(req) === null;
}
