// @ts-check
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import { log, withLogContext } from "../../log/logger.mjs";
import { DIRECT_ROUTES } from "../http-server.mjs";

const OBJECT_OPS = Symbol.for("easel.cluster.objectOps");

/**
 * The store owner's private listener: the unix socket other workers forward `/storage/*` requests
 * to (forward.mjs). It believes the client-address header and request id the forwarder set, which
 * the public listener never does: only processes of this deployment can open the socket (it is
 * made 0600 in a 0700 folder of the primary's). The forwarder logs and counts each request once,
 * on the worker the client reached, so this listener does neither.
 *
 * @param {string} socketPath
 * @returns {Promise<http.Server>}
 */
export async function listenForForwardedRequests(socketPath) {
  const server = http.createServer({ requestTimeout: 0 }, (req, res) => {
    const incoming = req.headers["x-request-id"];
    const id = typeof incoming === "string" && incoming !== "" ? incoming : randomUUID();
    withLogContext({ request_id: id }, () => {
      /** @type {((req: http.IncomingMessage, res: http.ServerResponse) => boolean) | undefined} */
      const direct = /** @type {any} */ (globalThis)[DIRECT_ROUTES];
      if (direct?.(req, res)) return;
      // gcs workspaces' object operations of other workers (lib/server/cluster/embedded-objects.ts).
      /** @type {((req: http.IncomingMessage, res: http.ServerResponse) => boolean) | undefined} */
      const objectOps = /** @type {any} */ (globalThis)[OBJECT_OPS];
      if (objectOps?.(req, res)) return;
      res.writeHead(direct ? 404 : 503, { "content-type": "text/plain", connection: "close" }).end(direct ? "not a storage route" : "starting");
    });
  });
  // Longer than the forwarders' idle connections live (forward.mjs), so none is closed under a request.
  server.keepAliveTimeout = 60_000;
  // A socket file a dead owner left behind: nothing listens on it any more.
  fs.rmSync(socketPath, { force: true });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve(undefined));
  });
  fs.chmodSync(socketPath, 0o600);
  server.on("error", (err) => log().error({ component: "cluster", err }, "the private listener of the object store failed"));
  return server;
}
