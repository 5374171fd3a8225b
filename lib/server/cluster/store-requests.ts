import http from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { log } from "../../log/logger.mjs";
import { ownerSocketPath, storeRole } from "./role";

type ServeStoreRequest = (req: Request) => Promise<Response>;

const agent = new http.Agent({ keepAlive: true, timeout: 30_000 });

/**
 * The server's own S3 requests to the embedded store (lib/storage/s3/in-process-handler.ts) are
 * answered by `local` in the process that owns the store. Under EASEL_WORKERS, on any other worker
 * they go to the owner's private socket, which serves `/storage/*` as the public port does: the
 * same signed request, streamed both ways. A client of the public port is forwarded the same way
 * (forward.mjs).
 */
export function servedByStoreOwner(local: ServeStoreRequest): ServeStoreRequest {
  const socketPath = ownerSocketPath();
  if (!socketPath) return local;
  return (req) => (storeRole() === "owner" ? local(req) : askOwner(socketPath, req));
}

function askOwner(socketPath: string, req: Request): Promise<Response> {
  const url = new URL(req.url);
  const headers: Record<string, string> = {};
  req.headers.forEach((value, name) => (headers[name] = value));
  return new Promise((resolve, reject) => {
    const outgoing = http.request({ socketPath, agent, method: req.method, path: `${url.pathname}${url.search}`, headers }, (res) => {
      const answerHeaders = new Headers();
      for (const [name, value] of Object.entries(res.headers)) {
        if (value === undefined) continue;
        for (const v of Array.isArray(value) ? value : [value]) answerHeaders.append(name, v);
      }
      const status = res.statusCode ?? 502;
      const bodiless = req.method === "HEAD" || status === 204 || status === 304;
      if (bodiless) res.resume();
      resolve(new Response(bodiless ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), { status, headers: answerHeaders }));
    });
    outgoing.on("error", (err) => {
      log().warn({ component: "cluster", method: req.method, path: url.pathname, err }, "the object store's owner could not be reached; the storage call fails");
      reject(err);
    });
    if (!req.body) outgoing.end();
    else pipeline(Readable.fromWeb(req.body as import("node:stream/web").ReadableStream), outgoing).catch((err: Error) => outgoing.destroy(err));
  });
}
