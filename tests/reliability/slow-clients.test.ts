import crypto from "node:crypto";
import http from "node:http";
import net from "node:net";
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as boardsRoute from "../../app/v1/[slug]/boards/route";
import type { Workspace } from "../../lib/db/schema";
import { resetEnvCache } from "../../lib/env";
import { embeddedS3Credentials } from "../../lib/objectstore/identity";
import { publishDirectRoutes, unpublishDirectRoutes } from "../../lib/server/direct-routes";
import { createEaselServer, TIMEOUTS } from "../../lib/server/http-server.mjs";
import { answerWith } from "../../lib/server/node-bridge";
import { useTestDeps } from "../helpers/deps";
import { newApiToken, newWorkspace } from "../helpers/factories";

/**
 * Slow clients against the HTTP server Easel ships (lib/server/http-server.mjs, which `npm start`
 * runs with Next.js in-process). It sets the timeouts that are the protection — headersTimeout 60 s
 * (all headers of a request), requestTimeout 300 s (the whole request, body included), Node's
 * defaults, checked every 30 s. The first test pins those facts; the others run the same server
 * with the timeouts scaled down (2 s, 4 s, checked every 250 ms) so the behaviour can be watched in
 * seconds (the figures printed; no timing is asserted, the machine being shared): slowloris
 * connections trickling headers or bodies are cut, ordinary /v1 requests keep being answered
 * meanwhile, the 1 MiB body limit holds over a real socket, and readers that stop reading a large
 * object hold a bounded amount of memory. Object requests take the server's direct route, as in
 * production; /v1 requests go to the route handler Next.js would pick.
 */
const HEADERS_TIMEOUT = 2000;
const REQUEST_TIMEOUT = 4000;
const SLOW = Number(process.env.EASEL_SLOW_CLIENTS ?? 200); // slow connections per scenario

let deps: Awaited<ReturnType<typeof useTestDeps>>;
let ws: Workspace;
let token: string;
let server: http.Server;
let origin: string;
/** Object downloads being sent (the slow-reader test looks at how much each has queued). */
const downloads = new Set<http.ServerResponse>();

/** Stands in for Next.js: the boards route handler, streaming both ways. */
async function nextLike(req: http.IncomingMessage, res: http.ServerResponse) {
  const boards = /^\/v1\/([^/]+)\/boards$/.exec(new URL(req.url ?? "/", "http://127.0.0.1").pathname);
  const handler = boards ? boardsRoute[req.method as "GET" | "POST"] : undefined;
  if (!handler || !boards) return void res.writeHead(404).end("not found");
  await answerWith((request) => handler(request as never, { params: Promise.resolve({ slug: boards[1] }) }), req, res);
}

beforeAll(async () => {
  process.env.EASEL_RATE_LIMIT_PER_MIN = "1000000";
  resetEnvCache();
  deps = await useTestDeps();
  ws = await newWorkspace(deps.db, { plan: "team" });
  token = await newApiToken(deps.db, ws, { scopes: ["read", "write"] });
  publishDirectRoutes();
  server = createEaselServer(nextLike, { headersTimeout: HEADERS_TIMEOUT, requestTimeout: REQUEST_TIMEOUT, connectionsCheckingInterval: 250 });
  server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (!req.url?.startsWith("/storage/")) return;
    downloads.add(res);
    res.on("close", () => downloads.delete(res));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  unpublishDirectRoutes();
});

/** One ordinary request on a fresh connection: its status and how long it took. */
function ordinary(): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get(`${origin}/v1/${ws.slug}/boards`, { headers: { authorization: `Bearer ${token}` }, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
    });
    req.on("error", reject);
  });
}

/** Ordinary requests one after another for `ms` or until `done()`; latencies in order. */
async function ordinaryFor(ms: number, done: () => boolean = () => false) {
  const out: { status: number; ms: number }[] = [];
  const until = Date.now() + ms;
  while (Date.now() < until && !done()) {
    out.push(await ordinary());
    await new Promise((r) => setTimeout(r, 50));
  }
  return out;
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];

/** `n` raw connections that send `start`, then one `drip` every 500 ms, forever; each records when the server closed it. */
async function trickle(n: number, start: string, drip: string) {
  const opened = Date.now();
  const closedAt: number[] = [];
  const firstBytes: string[] = [];
  const sockets = await Promise.all(
    Array.from({ length: n }, () => new Promise<net.Socket>((resolve) => {
      const s = net.connect(Number(new URL(origin).port), "127.0.0.1", () => resolve(s));
      s.setNoDelay(true);
      s.on("error", () => undefined);
      s.once("data", (d) => firstBytes.push(d.toString("latin1").split("\r\n")[0]));
      s.on("close", () => closedAt.push(Date.now() - opened));
      s.write(start);
    })),
  );
  const timer = setInterval(() => {
    for (const s of sockets) if (!s.destroyed) s.write(drip);
  }, 500);
  return {
    closedAt,
    firstBytes,
    stop: () => {
      clearInterval(timer);
      for (const s of sockets) s.destroy();
    },
  };
}

describe("slow clients", () => {
  it("Easel's server keeps Node's HTTP timeouts (what protects it from slow clients)", () => {
    const shipped = createEaselServer(async () => undefined);
    // Node's own request timeout is off: the server bounds request bodies itself (300 s in all for
    // /v1, idle-only for uploads to the storage routes; tests/reliability/upload-idle.test.ts).
    const facts = { headersTimeout: shipped.headersTimeout, nodeRequestTimeout: shipped.requestTimeout, keepAliveTimeout: shipped.keepAliveTimeout, timeout: shipped.timeout, maxHeaderSize: http.maxHeaderSize };
    console.log(`[slow] Node ${process.version} timeouts of Easel's server: ${JSON.stringify(facts)}, its own bounds ${JSON.stringify(TIMEOUTS)}`);
    expect(facts).toEqual({ headersTimeout: 60_000, nodeRequestTimeout: 0, keepAliveTimeout: 5_000, timeout: 0, maxHeaderSize: 16_384 });
    const plain = http.createServer();
    expect([plain.headersTimeout, plain.requestTimeout, plain.keepAliveTimeout]).toEqual([TIMEOUTS.headersTimeout, TIMEOUTS.requestTimeout, TIMEOUTS.keepAliveTimeout]);
    expect(TIMEOUTS.uploadIdleTimeout).toBe(120_000);
  });

  it(`${SLOW} connections trickling headers are cut after headersTimeout; ordinary requests are served meanwhile`, async () => {
    const slow = await trickle(SLOW, `GET /v1/${ws.slug}/boards HTTP/1.1\r\nHost: x\r\n`, "X-Slow: 1\r\n");
    // Ordinary requests run until every slow connection is cut (or a generous deadline: the
    // machine is shared, so no timing is asserted, only that the cut happens and nothing else fails).
    const served = await ordinaryFor(HEADERS_TIMEOUT + 30_000, () => slow.closedAt.length === SLOW);
    slow.stop();
    const lat = served.map((s) => s.ms);
    console.log(
      `[slow] ${SLOW} connections trickling headers: ${slow.closedAt.length} cut by the server, the last ${Math.max(...slow.closedAt)} ms after opening (headersTimeout ${HEADERS_TIMEOUT} ms), first answer "${slow.firstBytes[0]}"; meanwhile ${served.length} ordinary requests, all ${[...new Set(served.map((s) => s.status))].join("/")}, p50 ${pct(lat, 50).toFixed(0)} ms, p99 ${pct(lat, 99).toFixed(0)} ms, max ${Math.max(...lat).toFixed(0)} ms`,
    );
    expect(slow.closedAt).toHaveLength(SLOW);
    expect(Math.min(...slow.closedAt)).toBeGreaterThanOrEqual(HEADERS_TIMEOUT);
    expect(slow.firstBytes.every((b) => b === "HTTP/1.1 408 Request Timeout")).toBe(true);
    expect(served.every((s) => s.status === 200)).toBe(true);
    expect(served.length).toBeGreaterThan(0);
  }, 60_000);

  it(`${SLOW} connections trickling a body are cut after requestTimeout; ordinary requests are served meanwhile`, async () => {
    const head = `POST /v1/${ws.slug}/boards HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"board":{"title":"`;
    const slow = await trickle(SLOW, head, "a");
    const served = await ordinaryFor(REQUEST_TIMEOUT + 30_000, () => slow.closedAt.length === SLOW);
    slow.stop();
    const lat = served.map((s) => s.ms);
    console.log(
      `[slow] ${SLOW} connections trickling a body (1 byte / 500 ms): ${slow.closedAt.length} cut, the last ${Math.max(...slow.closedAt)} ms after opening (requestTimeout ${REQUEST_TIMEOUT} ms); meanwhile ${served.length} ordinary requests, all ${[...new Set(served.map((s) => s.status))].join("/")}, p50 ${pct(lat, 50).toFixed(0)} ms, p99 ${pct(lat, 99).toFixed(0)} ms, max ${Math.max(...lat).toFixed(0)} ms`,
    );
    expect(slow.closedAt).toHaveLength(SLOW);
    expect(Math.min(...slow.closedAt)).toBeGreaterThanOrEqual(REQUEST_TIMEOUT);
    expect(served.every((s) => s.status === 200)).toBe(true);
  }, 60_000);

  it("a declared body over 1 MiB is refused (413) over a real socket before it is sent", async () => {
    const started = Date.now();
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(`${origin}/v1/${ws.slug}/boards`, { method: "POST", agent: false, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "content-length": String(64 * 1024 * 1024) } }, (res) => {
        let body = "";
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
      req.write('{"board":'); // and nothing more: the answer must not wait for 64 MiB
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).errors[0].extensions.code).toBe("payload_too_large");
    console.log(`[slow] POST declaring 64 MiB, 9 bytes sent: ${answer.status} payload_too_large after ${Date.now() - started} ms`);
  });

  it("readers that stop reading a large object hold bounded memory; ordinary requests are served meanwhile", async () => {
    const creds = await embeddedS3Credentials(deps.db);
    const s3 = new S3Client({ endpoint: `${origin}/storage/s3`, region: "us-east-1", forcePathStyle: true, credentials: creds, requestChecksumCalculation: "WHEN_REQUIRED", responseChecksumValidation: "WHEN_REQUIRED", maxAttempts: 1 });
    await s3.send(new CreateBucketCommand({ Bucket: "easel" }));
    const size = 32 * 1024 * 1024;
    await s3.send(new PutObjectCommand({ Bucket: "easel", Key: "big.bin", Body: crypto.randomBytes(size) }));
    const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket: "easel", Key: "big.bin" }), { expiresIn: 600 });
    const readers = 20;
    const sockets: http.ClientRequest[] = [];
    const received: number[] = [];
    await Promise.all(
      Array.from({ length: readers }, (_, i) => new Promise<void>((resolve) => {
        const req = http.get(url, { agent: false }, (res) => {
          received[i] = 0;
          res.once("data", (d: Buffer) => {
            received[i] += d.length;
            res.pause(); // and never read again
            resolve();
          });
        });
        req.on("error", () => undefined);
        sockets.push(req);
      })),
    );
    const served = await ordinaryFor(2000);
    const buffered = [...downloads].map((r) => r.writableLength);
    const lat = served.map((s) => s.ms);
    console.log(
      `[slow] ${readers} readers paused after their first chunk of a 32 MiB object: ${downloads.size} downloads open, each with at most ${(Math.max(...buffered) / 1024).toFixed(0)} KiB queued in the server (${((buffered.reduce((a, b) => a + b, 0)) / 1024 / 1024).toFixed(1)} MiB in all, vs ${(readers * size) / 1024 / 1024} MiB if bodies were buffered); meanwhile ${served.length} ordinary requests, all ${[...new Set(served.map((s) => s.status))].join("/")}, p50 ${pct(lat, 50).toFixed(0)} ms, max ${Math.max(...lat).toFixed(0)} ms`,
    );
    expect(downloads.size).toBe(readers);
    expect(Math.max(...buffered)).toBeLessThan(4 * 1024 * 1024);
    expect(served.every((s) => s.status === 200)).toBe(true);
    for (const s of sockets) s.destroy();
    s3.destroy();
  }, 60_000);
});
