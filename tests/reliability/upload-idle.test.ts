import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import { CreateBucketCommand, HeadObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embeddedLayout } from "../../lib/objectstore";
import { embeddedS3Credentials } from "../../lib/objectstore/identity";
import { publishDirectRoutes, unpublishDirectRoutes } from "../../lib/server/direct-routes";
import { createEaselServer, TIMEOUTS, uploadIdleTimeoutFromEnv } from "../../lib/server/http-server.mjs";
import { useTestDeps } from "../helpers/deps";

/**
 * Upload bodies to the storage routes are cut only when idle, never by a total time (contract §10,
 * EASEL_UPLOAD_IDLE_TIMEOUT_S). The server runs with the timeouts scaled down: a request body
 * total of 2 s (what bounds /v1 bodies) and an upload idle bound of 1.5 s. A 64 MiB PUT trickled
 * over more than twice the total bound completes; a PUT that stalls is cut and leaves nothing.
 */
const REQUEST_TIMEOUT = 2_000;
const IDLE_TIMEOUT = 1_500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let server: http.Server;
let origin: string;
let s3: S3Client;

beforeAll(async () => {
  const deps = await useTestDeps();
  publishDirectRoutes();
  server = createEaselServer(async (_req, res) => void res.writeHead(404).end(), { requestTimeout: REQUEST_TIMEOUT, uploadIdleTimeout: IDLE_TIMEOUT, connectionsCheckingInterval: 250 });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  const credentials = await embeddedS3Credentials(deps.db);
  s3 = new S3Client({ endpoint: `${origin}/storage/s3`, region: "us-east-1", forcePathStyle: true, credentials, requestChecksumCalculation: "WHEN_REQUIRED", responseChecksumValidation: "WHEN_REQUIRED", maxAttempts: 1 });
  await s3.send(new CreateBucketCommand({ Bucket: "idle" })).catch((err: Error) => {
    if (err.name !== "BucketAlreadyOwnedByYou") throw err;
  });
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  unpublishDirectRoutes();
});

/** A presigned PUT sent by hand: `chunks` written one per `everyMs`, then (unless `stallAfter`) the end. */
function trickledPut(url: string, chunks: Buffer[], everyMs: number, stallAfter?: number) {
  const total = chunks.reduce((n, c) => n + c.length, 0);
  return new Promise<{ status: number; cut: boolean; ms: number }>((resolve) => {
    const started = Date.now();
    const req = http.request(url, { method: "PUT", agent: false, headers: { "content-length": String(total) } }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, cut: false, ms: Date.now() - started }));
    });
    req.on("error", () => resolve({ status: 0, cut: true, ms: Date.now() - started }));
    void (async () => {
      for (const [i, chunk] of chunks.entries()) {
        if (stallAfter !== undefined && i === stallAfter) return; // and never another byte
        if (req.destroyed) return;
        req.write(chunk);
        await sleep(everyMs);
      }
      req.end();
    })();
  });
}

describe("upload bodies are cut only when idle", () => {
  it("reads EASEL_UPLOAD_IDLE_TIMEOUT_S (default 120 s) and refuses a value that is no positive number", () => {
    expect(TIMEOUTS.uploadIdleTimeout).toBe(120_000);
    expect(uploadIdleTimeoutFromEnv(undefined)).toBe(120_000);
    expect(uploadIdleTimeoutFromEnv("30")).toBe(30_000);
    expect(() => uploadIdleTimeoutFromEnv("0")).toThrow(/EASEL_UPLOAD_IDLE_TIMEOUT_S/);
    expect(() => uploadIdleTimeoutFromEnv("soon")).toThrow(/EASEL_UPLOAD_IDLE_TIMEOUT_S/);
  });

  it("a 64 MiB PUT trickled over more than twice the total request bound, never idle for long, completes intact", async () => {
    const body = crypto.randomBytes(64 * 1024 * 1024);
    const chunks = Array.from({ length: 32 }, (_, i) => body.subarray(i * 2 * 1024 * 1024, (i + 1) * 2 * 1024 * 1024));
    const url = await getSignedUrl(s3, new PutObjectCommand({ Bucket: "idle", Key: "trickled.bin" }), { expiresIn: 600 });
    const answer = await trickledPut(url, chunks, 150); // ~4.8 s in all, a chunk every 150 ms
    console.log(`[upload-idle] 64 MiB in 32 chunks every 150 ms: ${answer.status} after ${answer.ms} ms (total bound ${REQUEST_TIMEOUT} ms, idle bound ${IDLE_TIMEOUT} ms)`);
    expect(answer.ms).toBeGreaterThan(2 * REQUEST_TIMEOUT);
    expect(answer.status).toBe(200);
    const head = await s3.send(new HeadObjectCommand({ Bucket: "idle", Key: "trickled.bin" }));
    expect(head.ContentLength).toBe(body.length);
    expect(head.ETag).toBe(`"${crypto.createHash("md5").update(body).digest("hex")}"`);
  }, 60_000);

  it("a PUT that stalls past the idle bound is cut and leaves no object and no received bytes behind", async () => {
    const chunks = Array.from({ length: 8 }, () => crypto.randomBytes(256 * 1024));
    const url = await getSignedUrl(s3, new PutObjectCommand({ Bucket: "idle", Key: "stalled.bin" }), { expiresIn: 600 });
    const answer = await trickledPut(url, chunks, 50, 4);
    console.log(`[upload-idle] stalled after 1 MiB of 2 MiB: cut=${answer.cut} after ${answer.ms} ms`);
    expect(answer.cut).toBe(true);
    expect(answer.ms).toBeGreaterThanOrEqual(IDLE_TIMEOUT);
    await expect(s3.send(new HeadObjectCommand({ Bucket: "idle", Key: "stalled.bin" }))).rejects.toMatchObject({ name: "NotFound" });
    // The store removes what it had received once the request is gone.
    const tmp = embeddedLayout().tmpDir;
    let left: string[] = [];
    for (let i = 0; i < 50; i++) {
      left = fs.existsSync(tmp) ? fs.readdirSync(tmp) : [];
      if (left.length === 0) break;
      await sleep(100);
    }
    expect(left).toEqual([]);
  }, 30_000);
});
