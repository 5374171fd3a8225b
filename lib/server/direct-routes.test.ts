import crypto from "node:crypto";
import type http from "node:http";
import type { AddressInfo } from "node:net";
import { GetObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { useTestDeps } from "../../tests/helpers/deps";
import { embeddedLayout } from "../objectstore";
import { createBucket } from "../objectstore/disk/objects";
import { embeddedS3Credentials } from "../objectstore/identity";
import { storageFor } from "../storage";
import { makeS3Client } from "../storage/s3/config";
import { publishDirectRoutes, unpublishDirectRoutes } from "./direct-routes";
import { createEaselServer } from "./http-server.mjs";

// Easel's HTTP server as `npm start` runs it, with a stand-in for Next.js that records what it
// was handed: object store requests must be answered before it, everything else must reach it.
let deps: Awaited<ReturnType<typeof useTestDeps>>;
let server: http.Server;
let origin: string;
const reachedNext: string[] = [];

beforeAll(async () => {
  deps = await useTestDeps();
  await createBucket(embeddedLayout(), "easel", deps.clock());
  server = createEaselServer(async (req, res) => {
    reachedNext.push(`${req.method} ${req.url}`);
    req.resume();
    res.writeHead(299, { "content-type": "text/plain" }).end("next");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  unpublishDirectRoutes();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  reachedNext.length = 0;
  publishDirectRoutes();
});

async function s3Client() {
  return makeS3Client({ endpoint: `${origin}/storage/s3`, region: "us-east-1", bucket: "easel", forcePathStyle: true, credentials: await embeddedS3Credentials(deps.db), embedded: true });
}

describe("Easel's HTTP server", () => {
  it("answers the S3 endpoint itself: presigned PUT and GET, a refused signature, nothing handed to Next.js", async () => {
    const client = await s3Client();
    const options = { expiresIn: 60, signingDate: deps.clock() };
    const bytes = crypto.randomBytes(300_000);
    const put = await fetch(await getSignedUrl(client, new PutObjectCommand({ Bucket: "easel", Key: "ws/direct.bin" }), options), { method: "PUT", body: bytes });
    expect(put.status).toBe(200);
    expect(put.headers.get("etag")).toBe(`"${crypto.createHash("md5").update(bytes).digest("hex")}"`);

    const get = await fetch(await getSignedUrl(client, new GetObjectCommand({ Bucket: "easel", Key: "ws/direct.bin" }), options));
    expect(get.status).toBe(200);
    // Answered from node:http, the object's length is sent as such (Next.js drops it from route answers).
    expect(get.headers.get("content-length")).toBe(String(bytes.length));
    expect(Buffer.from(await get.arrayBuffer()).equals(bytes)).toBe(true);

    // A refused body is drained from the Node request (the connection stays usable), nothing stored.
    const forged = await fetch(`${origin}/storage/s3/easel/ws/forged.bin?X-Amz-Signature=00`, { method: "PUT", body: crypto.randomBytes(2 * 1024 * 1024) });
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain("<Error>");
    const after = await fetch(await getSignedUrl(client, new GetObjectCommand({ Bucket: "easel", Key: "ws/forged.bin" }), options));
    expect(after.status).toBe(404);
    await after.arrayBuffer();
    expect(reachedNext).toEqual([]);
  });

  it("answers the GCS endpoint itself: a resumable session in two chunks", async () => {
    const driver = storageFor("gcs", { baseUrl: origin, db: deps.db, clock: deps.clock });
    const bytes = crypto.randomBytes(256 * 1024 + 1000);
    const prepared = await driver.prepareUpload({ key: "ws/direct-gcs.bin", size: bytes.length, contentType: "application/octet-stream", expiresAt: new Date(deps.clock().getTime() + 3600_000) });
    const start = await fetch(prepared.uploadUrl, { method: "POST", headers: { "x-goog-resumable": "start" } });
    expect(start.status).toBe(201);
    const session = start.headers.get("location") as string;
    expect(session.startsWith(`${origin}/storage/gcs/`)).toBe(true);
    const first = await fetch(session, { method: "PUT", body: bytes.subarray(0, 256 * 1024), headers: { "content-range": `bytes 0-${256 * 1024 - 1}/${bytes.length}` } });
    expect(first.status).toBe(308);
    expect(first.headers.get("range")).toBe(`bytes=0-${256 * 1024 - 1}`);
    const last = await fetch(session, { method: "PUT", body: bytes.subarray(256 * 1024), headers: { "content-range": `bytes ${256 * 1024}-${bytes.length - 1}/${bytes.length}` } });
    expect(last.status).toBe(200);
    expect(await driver.md5("ws/direct-gcs.bin")).toBe(crypto.createHash("md5").update(bytes).digest("hex"));
    expect(reachedNext).toEqual([]);
  });

  it("hands every other path to Next.js, including look-alikes of the mounts", async () => {
    for (const path of ["/v1/acme/boards", "/storage", "/storage/s3x/easel/k", "/storage/gcsx", "/storagefoo/s3", "/media/x", "/"]) {
      const r = await fetch(`${origin}${path}`);
      expect(r.status, path).toBe(299);
      await r.arrayBuffer();
    }
    expect(reachedNext).toHaveLength(7);
  });

  it("before start-up publishes the direct routes, the object store is reached through Next.js", async () => {
    unpublishDirectRoutes();
    const r = await fetch(`${origin}/storage/s3/easel/ws/direct.bin`);
    expect(r.status).toBe(299);
    await r.arrayBuffer();
    expect(reachedNext).toEqual(["GET /storage/s3/easel/ws/direct.bin"]);
  });
});
