import type http from "node:http";
import { serveGcs, serveS3, type ServeOptions } from "../objectstore";
import { admitDirectBody } from "../objectstore/admission/direct-admission";
import { GCS_MOUNT_PATH, S3_MOUNT_PATH } from "../objectstore/mounts";
import { answerBusy } from "./busy-answers.mjs";
import { answerWith } from "./node-bridge";

/**
 * Takes a request of Easel's HTTP server before Next.js sees it when one of the routes below
 * serves it; false leaves it to Next.js.
 */
export type DirectRoutes = (req: http.IncomingMessage, res: http.ServerResponse) => boolean;

/**
 * The embedded object store's two endpoints, answered from the node:http request itself.
 *
 * Upload parts are the one place where Easel moves bulk bytes through its own process. Under a
 * route handler every body chunk also passes through Next.js's request adaptation (a web stream
 * copied chunk by chunk, the router's per-request work), which cost about a quarter of upload
 * throughput on two cores (docs/storage.md). The handlers are the very functions the route files in
 * app/storage call, so the protocol code is one; the route files still serve these paths under
 * `next dev` and when Easel runs without its server entry.
 */
const MOUNTS: [string, "s3" | "gcs", (req: Request, opts: ServeOptions) => Promise<Response>][] = [
  [S3_MOUNT_PATH, "s3", serveS3],
  [GCS_MOUNT_PATH, "gcs", serveGcs],
];

/**
 * A body write is admitted here, from the node request, before a web Request is built for it
 * (lib/objectstore/admission): refused at once, or given a slot that the response's close gives
 * back (once, whether the response was sent or the connection dropped).
 */
export const serveDirectRoutes: DirectRoutes = (req, res) => {
  const path = pathOf(req.url ?? "/");
  for (const [mount, protocol, handler] of MOUNTS) {
    if (path === mount || path.startsWith(`${mount}/`)) {
      const admission = admitDirectBody(protocol, mount, req.method ?? "GET", req.url ?? "/", req.headers["x-amz-copy-source"] !== undefined);
      if (admission && !admission.admitted) {
        answerBusy(res, path, "Too many uploads at once to this URL, this workspace or this server; retry after the time in Retry-After.");
        return true;
      }
      if (admission) res.once("close", () => admission.slot.release());
      void answerWith((request) => handler(request, { bodyAdmitted: admission !== null }), req, res);
      return true;
    }
  }
  return false;
};

function pathOf(url: string): string {
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}

/** The symbol lib/server/http-server.mjs looks up per request. */
const KEY = Symbol.for("easel.directRoutes");

/**
 * Hands the direct routes to Easel's HTTP server, which runs Next.js in the same process: the
 * server is plain Node.js and cannot import this bundled code, so it finds them on a global.
 */
export function publishDirectRoutes() {
  (globalThis as { [KEY]?: DirectRoutes })[KEY] = serveDirectRoutes;
}

/** Tests that published the direct routes take them back. */
export function unpublishDirectRoutes() {
  delete (globalThis as { [KEY]?: DirectRoutes })[KEY];
}
