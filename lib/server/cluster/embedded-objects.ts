import http from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Clock } from "../../clock";
import { DomainError, type ErrorCode } from "../../errors";
import { log } from "../../log/logger.mjs";
import type { Layout } from "../../objectstore/disk/layout";
import { localObjects, type ObjectOps } from "../../storage/gcs/local-objects";
import { ownerSocketPath, storeRole } from "./role";

/**
 * gcs workspaces on the embedded store read and write its files directly (local-objects.ts), not
 * over HTTP as s3 workspaces do, and the store's object locks and read pins live in the memory of
 * the process that serves it. Under EASEL_WORKERS a worker that does not own the store therefore
 * asks the owner to do each operation, over the owner's private socket (owner-listener.mjs); on
 * the owner, and in a single process, these are the local operations themselves. The role is
 * looked up per call: a member that becomes the owner does the next call itself.
 */

/** The path prefix of these calls on the private listener (never on the public one). */
export const OBJECT_OPS_PREFIX = "/_easel/objects/";
const SERVE_KEY = Symbol.for("easel.cluster.objectOps");

export function embeddedObjects(lay: Layout, bucket: string, clock: Clock): ObjectOps {
  const local = localObjects(lay, bucket, clock);
  const socketPath = ownerSocketPath();
  if (!socketPath) return local;
  const remote = remoteObjects(socketPath);
  const pick = () => (storeRole() === "owner" ? local : remote);
  return {
    ready: () => pick().ready(),
    head: (key) => pick().head(key),
    md5: (key) => pick().md5(key),
    read: (key, range) => pick().read(key, range),
    write: (key, body, contentType) => pick().write(key, body, contentType),
    copy: (from, to) => pick().copy(from, to),
    delete: (key) => pick().delete(key),
  };
}

type Call = { op: string; query?: Record<string, string>; body?: Buffer | ReadableStream<Uint8Array>; contentType?: string };

const agent = new http.Agent({ keepAlive: true, timeout: 30_000 });

/** One call to the owner; resolves with its answer once its status is known (the body still streaming). */
function call(socketPath: string, c: Call): Promise<http.IncomingMessage> {
  const qs = new URLSearchParams(c.query ?? {}).toString();
  return new Promise((resolve, reject) => {
    const req = http.request({ socketPath, agent, method: "POST", path: `${OBJECT_OPS_PREFIX}${c.op}${qs ? `?${qs}` : ""}`, headers: c.contentType ? { "x-easel-content-type": c.contentType } : {} }, async (res) => {
      if (res.statusCode === 200) return resolve(res);
      const chunks: Buffer[] = [];
      for await (const chunk of res) chunks.push(chunk as Buffer);
      try {
        const { code, message } = JSON.parse(Buffer.concat(chunks).toString()) as { code: ErrorCode; message: string };
        reject(new DomainError(code, message));
      } catch {
        reject(new DomainError("storage_unavailable", `${c.op}: the object store's owner answered ${res.statusCode}`));
      }
    });
    req.on("error", (err) => {
      log().warn({ component: "cluster", operation: c.op, err }, "the object store's owner could not be reached");
      reject(new DomainError("storage_unavailable", `${c.op}: storage is unavailable`));
    });
    if (c.body === undefined) req.end();
    else if (Buffer.isBuffer(c.body)) req.end(c.body);
    else pipeline(Readable.fromWeb(c.body as never), req).catch((err) => req.destroy(err));
  });
}

async function json<T>(res: http.IncomingMessage): Promise<T> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString()) as T;
}

function remoteObjects(socketPath: string): ObjectOps {
  return {
    async ready() {
      await json(await call(socketPath, { op: "ready" }));
    },
    async head(key) {
      return (await json<{ info: Awaited<ReturnType<ObjectOps["head"]>> }>(await call(socketPath, { op: "head", query: { key } }))).info;
    },
    async md5(key) {
      return (await json<{ md5: string }>(await call(socketPath, { op: "md5", query: { key } }))).md5;
    },
    async read(key, range) {
      const query: Record<string, string> = { key };
      if (range) {
        query.start = String(range.start);
        if (range.end !== undefined) query.end = String(range.end);
      }
      return Readable.toWeb(await call(socketPath, { op: "read", query })) as unknown as ReadableStream<Uint8Array>;
    },
    async write(key, body, contentType) {
      await json(await call(socketPath, { op: "write", query: { key }, body, contentType }));
    },
    async copy(fromKey, toKey) {
      await json(await call(socketPath, { op: "copy", query: { from: fromKey, to: toKey } }));
    },
    async delete(key) {
      await json(await call(socketPath, { op: "delete", query: { key } }));
    },
  };
}

/**
 * The owner's side: answers a call from a member with its own local operations. Published for the
 * private listener (plain Node.js, which cannot import this bundled code).
 */
export function publishObjectOps(lay: () => Layout, bucket: string, clock: Clock) {
  let ops: ObjectOps | null = null;
  const serve = (req: http.IncomingMessage, res: http.ServerResponse): boolean => {
    const url = new URL(req.url ?? "/", "http://owner.internal");
    if (!url.pathname.startsWith(OBJECT_OPS_PREFIX)) return false;
    ops ??= localObjects(lay(), bucket, clock);
    const q = (name: string) => url.searchParams.get(name) ?? "";
    const ok = (body: unknown) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
    const op = url.pathname.slice(OBJECT_OPS_PREFIX.length);
    const run = async () => {
      switch (op) {
        case "ready":
          return ok({ ready: await ops!.ready() });
        case "head":
          return ok({ info: await ops!.head(q("key")) });
        case "md5":
          return ok({ md5: await ops!.md5(q("key")) });
        case "read": {
          const start = url.searchParams.get("start");
          const end = url.searchParams.get("end");
          const stream = await ops!.read(q("key"), start === null ? undefined : { start: Number(start), end: end === null ? undefined : Number(end) });
          res.writeHead(200, { "content-type": "application/octet-stream" });
          const body = Readable.fromWeb(stream as never);
          res.on("close", () => body.destroy());
          body.on("error", () => res.destroy());
          body.pipe(res);
          return;
        }
        case "write":
          await ops!.write(q("key"), Readable.toWeb(req) as unknown as ReadableStream<Uint8Array>, String(req.headers["x-easel-content-type"] ?? "application/octet-stream"));
          return ok({});
        case "copy":
          await ops!.copy(q("from"), q("to"));
          return ok({});
        case "delete":
          await ops!.delete(q("key"));
          return ok({});
        default:
          throw new DomainError("validation_failed", `no object operation ${op}`);
      }
    };
    run().catch((err: Error) => {
      if (res.headersSent) return res.destroy();
      if (err instanceof DomainError) return res.writeHead(409, { "content-type": "application/json" }).end(JSON.stringify({ code: err.code, message: err.message }));
      log().error({ component: "cluster", operation: op, err }, "an object operation for another worker failed");
      res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ code: "storage_unavailable", message: `${op}: storage is unavailable` }));
    });
    return true;
  };
  (globalThis as { [SERVE_KEY]?: typeof serve })[SERVE_KEY] = serve;
}
