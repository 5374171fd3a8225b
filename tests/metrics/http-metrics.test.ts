import http from "node:http";
import type net from "node:net";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Workspace } from "../../lib/db/schema";
import { setDeps } from "../../lib/deps";
import { resetEnvCache } from "../../lib/env";
import { queueDepth } from "../../lib/jobs/executor/store/queue";
import { log } from "../../lib/log/logger.mjs";
import { setQueueDepthSource } from "../../lib/metrics/registry.mjs";
import { publishDirectRoutes, unpublishDirectRoutes } from "../../lib/server/direct-routes";
import { createEaselServer } from "../../lib/server/http-server.mjs";
import { storageFor } from "../../lib/storage";
import { useTestDeps } from "../helpers/deps";
import { newApiToken, newBoard, newWorkspace } from "../helpers/factories";
import { uploadToStore } from "../helpers/store-uploads";
import { captureLogs, sample } from "./helpers";

/**
 * /metrics and the access log on Easel's own server (contract §10), in-process: one server with a
 * metrics token, one without. A stand-in for Next.js answers every path the server leaves to it
 * (logging a line of its own, as app code would); the embedded object store is served for real.
 */
const TOKEN = "metrics-test-token-0123456789abcdef";
let deps: Awaited<ReturnType<typeof useTestDeps>>;
let logs: ReturnType<typeof captureLogs>;
const servers: http.Server[] = [];
let origin: string;
let bare: string;
let appCalls: string[] = [];

async function start(metricsToken: string | null): Promise<string> {
  const server = createEaselServer(
    async (req, res) => {
      appCalls.push(req.url ?? "");
      log().info({ in_app: true }, "the app handles it");
      res.writeHead(req.url?.startsWith("/v1/acme/assets/") ? 200 : 404, { "content-type": "application/json" }).end("{}");
    },
    { metricsToken },
  );
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

beforeAll(async () => {
  logs = captureLogs("debug");
  deps = await useTestDeps();
  // The real embedded store behind presigned URLs, reached through the server under test.
  setDeps({ ...deps, storage: (kind, baseUrl) => storageFor(kind, { baseUrl, db: deps.db, clock: deps.clock }) });
  publishDirectRoutes();
  origin = await start(TOKEN);
  bare = await start(null);
  vi.stubEnv("EASEL_PUBLIC_URL", origin);
  resetEnvCache();
});

afterAll(async () => {
  logs.restore();
  setQueueDepthSource(undefined);
  unpublishDirectRoutes();
  vi.unstubAllEnvs();
  resetEnvCache();
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

const scrape = async (headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }, at = origin) => {
  const r = await fetch(`${at}/metrics`, { headers });
  return { status: r.status, type: r.headers.get("content-type"), text: await r.text(), auth: r.headers.get("www-authenticate") };
};

describe("GET /metrics", () => {
  it("answers 404 when EASEL_METRICS_TOKEN is not set, itself: the app never sees /metrics", async () => {
    appCalls = [];
    for (const headers of [{}, { authorization: `Bearer ${TOKEN}` }] as Record<string, string>[]) {
      const r = await scrape(headers, bare);
      expect(r.status).toBe(404);
      expect(JSON.parse(r.text)).toEqual({ status: "not_found" });
    }
    expect(appCalls).toEqual([]);
  });

  it("answers 401 without the token, with a wrong one, or in another scheme", async () => {
    for (const headers of [{}, { authorization: "Bearer wrong" }, { authorization: `Bearer ${TOKEN}x` }, { authorization: `Basic ${TOKEN}` }, { authorization: TOKEN }] as Record<string, string>[]) {
      const r = await scrape(headers);
      expect(r.status, JSON.stringify(headers)).toBe(401);
      expect(JSON.parse(r.text)).toEqual({ status: "unauthorized" });
      expect(r.auth).toMatch(/^Bearer /);
    }
    expect(appCalls).toEqual([]);
  });

  it("answers the Prometheus text format with the token: Easel's metrics and the process's own", async () => {
    const r = await scrape();
    expect(r.status).toBe(200);
    expect(r.type).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const name of ["easel_http_requests_total", "easel_http_request_duration_seconds", "easel_job_runs_total", "easel_webhook_deliveries_total", "easel_upload_bytes_received_total", "easel_job_queue_depth"]) {
      expect(r.text).toContain(`# TYPE ${name} `);
    }
    expect(r.text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(r.text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
  });

  it("every line of the scrape is valid Prometheus exposition: HELP and TYPE comments, then samples of declared families", async () => {
    const { text } = await scrape();
    const declared = new Map<string, string>();
    const sampleLine = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\["\\n])*",?)*\})? (-?(?:\d+(?:\.\d*)?(?:e[+-]?\d+)?|\.\d+)|[+-]?(?:inf|infinity|nan))( -?\d+)?$/i;
    // Values as Prometheus reads them (Go's ParseFloat: NaN and Inf in any case; prom-client writes "Nan").
    const lines = text.split("\n");
    expect(lines.at(-1)).toBe(""); // ends with a newline
    for (const line of lines.slice(0, -1)) {
      if (line === "") continue; // the format ignores empty lines
      const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
      if (type) {
        expect(declared.has(type[1]), `family ${type[1]} declared twice`).toBe(false);
        declared.set(type[1], type[2]);
        continue;
      }
      if (/^# HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*$/.test(line)) continue;
      const m = sampleLine.exec(line);
      expect(m, `not a sample line: ${line}`).not.toBeNull();
      const family = [...declared.keys()].find((f) => m![1] === f || (/^(histogram|summary)$/.test(declared.get(f)!) && [`${f}_bucket`, `${f}_sum`, `${f}_count`].includes(m![1])));
      expect(family, `sample of an undeclared family: ${line}`).toBeDefined();
    }
    expect(declared.get("easel_http_requests_total")).toBe("counter");
    expect(declared.get("easel_http_request_duration_seconds")).toBe("histogram");
    expect(declared.get("easel_job_queue_depth")).toBe("gauge");
  });

  it("counts requests by method, route template and status; never a raw path, slug or token", async () => {
    const assetToken = "Zq7rawAssetTokenXyz";
    const series = (method: string, route: string, status: number) => `easel_http_requests_total{method="${method}",route="${route}",status="${status}"}`;
    const before = (await scrape()).text;
    for (let i = 0; i < 3; i++) await (await fetch(`${origin}/v1/acme/assets/${assetToken}?X-Amz-Signature=abc${i}`)).text();
    await (await fetch(`${origin}/v1/acme/assets/${assetToken}/versions`)).text();
    await (await fetch(`${origin}/no/such/${assetToken}`)).text();
    await (await fetch(`${origin}/healthz`)).text();
    const other = await new Promise<number>((resolve, reject) =>
      http.request(`${origin}/v1/acme/assets/${assetToken}`, { method: "PURGE" }, (res) => (res.resume(), resolve(res.statusCode ?? 0))).on("error", reject).end(),
    );
    expect(other).toBe(200);
    const after = (await scrape()).text;
    const delta = (s: string) => sample(after, s) - sample(before, s);
    expect(delta(series("GET", "/v1/[slug]/assets/[token]", 200))).toBe(3);
    expect(delta(series("GET", "/v1/[slug]/assets/[token]/versions", 200))).toBe(1);
    expect(delta(series("GET", "unmatched", 404))).toBe(1);
    expect(delta(series("GET", "/healthz", 200))).toBe(1);
    expect(delta(series("other", "/v1/[slug]/assets/[token]", 200))).toBe(1);
    expect(delta(series("GET", "/metrics", 200))).toBe(1); // the scrape before this one
    expect(delta(`easel_http_request_duration_seconds_count{method="GET",route="/v1/[slug]/assets/[token]",status="200"}`)).toBe(3);
    expect(after).not.toContain(assetToken);
    expect(after).not.toContain("acme");
    expect(after).not.toContain("X-Amz-Signature");
  });

  it("counts the bytes of uploads the embedded store received, on both of its protocols", async () => {
    const png = (i: number) => sharp({ create: { width: 40 + i, height: 30, channels: 3, background: { r: i * 40, g: 90, b: 20 } } }).png().toBuffer();
    const sent: number[] = [];
    for (const kind of ["s3", "gcs"] as const) {
      const ws: Workspace = await newWorkspace(deps.db, { plan: "team", storage: kind });
      const token = await newApiToken(deps.db, ws);
      const board = (await newBoard(deps.db, ws)).token;
      const before = sample((await scrape()).text, "easel_upload_bytes_received_total");
      const bytes = await png(sent.length + 1);
      await uploadToStore(ws, token, bytes, { collection_token: board });
      const after = sample((await scrape()).text, "easel_upload_bytes_received_total");
      expect(after - before, kind).toBe(bytes.length);
      sent.push(bytes.length);
    }
    const r = await scrape();
    // The requests themselves are counted under the store's templates, never under a key.
    expect(sample(r.text, `easel_http_requests_total{method="PUT",route="/storage/gcs/[[...path]]",status="200"}`)).toBeGreaterThanOrEqual(1);
    expect(sample(r.text, `easel_http_requests_total{method="PUT",route="/storage/s3/[[...path]]",status="200"}`)).toBeGreaterThanOrEqual(1);
  });

  it("reports the job queue's depth at scrape time, and leaves it out (still answering) when the count does not come in time", async () => {
    setQueueDepthSource(() => queueDepth(deps.db, new Date()));
    const r = await scrape();
    expect(r.text).toMatch(/^easel_job_queue_depth\{state="due"\} 0$/m);
    expect(r.text).toMatch(/^easel_job_queue_depth\{state="scheduled"\} 0$/m);
    expect(r.text).toMatch(/^easel_job_queue_depth\{state="leased"\} 0$/m);
    setQueueDepthSource(() => new Promise(() => undefined)); // a database that never answers
    const hung = await scrape();
    expect(hung.status).toBe(200);
    expect(hung.text).not.toMatch(/^easel_job_queue_depth\{/m);
    expect(hung.text).toContain("easel_http_requests_total{");
    expect(logs.lines.some((l) => l.level === "warn" && String(l.msg).includes("job queue depth"))).toBe(true);
    setQueueDepthSource(undefined);
  });
});

describe("the access log", () => {
  const requestLines = () => logs.lines.filter((l) => l.msg === "request");

  it("one line per request with request_id, method, route template, status and duration; the id is the X-Request-Id answered", async () => {
    const n = requestLines().length;
    const r = await fetch(`${origin}/v1/acme/assets/SecretAssetTok?X-Amz-Signature=deadbeef&X-Amz-Credential=key`);
    await r.text();
    const id = r.headers.get("x-request-id")!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await vi.waitFor(() => expect(requestLines().length).toBe(n + 1));
    const line = requestLines().at(-1)!;
    expect(line).toMatchObject({ level: "info", request_id: id, method: "GET", route: "/v1/[slug]/assets/[token]", status: 200 });
    expect(typeof line.duration_ms).toBe("number");
    expect(line.duration_ms as number).toBeGreaterThanOrEqual(0);
    expect(typeof line.time).toBe("string");
    // Whatever the app logs while serving the request carries its id.
    expect(logs.lines.filter((l) => l.msg === "the app handles it" && l.request_id === id)).toHaveLength(1);
    const written = JSON.stringify(logs.lines);
    expect(written).not.toContain("SecretAssetTok");
    expect(written).not.toContain("deadbeef");
  });

  it("a well-formed incoming X-Request-Id is echoed and logged; a malformed one is replaced", async () => {
    const echoed = await fetch(`${origin}/v1/acme/assets/abc`, { headers: { "x-request-id": "lb-7f3a.42:trace" } });
    await echoed.text();
    expect(echoed.headers.get("x-request-id")).toBe("lb-7f3a.42:trace");
    const replaced = await fetch(`${origin}/v1/acme/assets/abc`, { headers: { "x-request-id": "has spaces and {braces}" } });
    await replaced.text();
    const newId = replaced.headers.get("x-request-id")!;
    expect(newId).not.toBe("has spaces and {braces}");
    await vi.waitFor(() => expect(requestLines().some((l) => l.request_id === newId)).toBe(true));
    expect(requestLines().filter((l) => l.request_id === "lb-7f3a.42:trace")).toMatchObject([{ route: "/v1/[slug]/assets/[token]", status: 200 }]);
    expect(JSON.stringify(logs.lines)).not.toContain("{braces}");
  });

  it("health and metrics probes are logged at debug level, everything else at info", async () => {
    await (await fetch(`${origin}/healthz`)).text();
    await scrape();
    await (await fetch(`${origin}/nothing-here`)).text();
    await vi.waitFor(() => expect(requestLines().some((l) => l.route === "unmatched" && l.status === 404)).toBe(true));
    const byRoute = (route: string) => requestLines().filter((l) => l.route === route);
    expect(byRoute("/healthz").every((l) => l.level === "debug")).toBe(true);
    expect(byRoute("/metrics").every((l) => l.level === "debug")).toBe(true);
    expect(byRoute("unmatched").every((l) => l.level === "info")).toBe(true);
  });

  it("a request whose client goes away before any answer is logged as 499, aborted", async () => {
    const n = requestLines().length;
    let arrived!: () => void;
    const inApp = new Promise<void>((r) => (arrived = r));
    const hanging = createEaselServer(() => (arrived(), new Promise(() => undefined)), { metricsToken: null });
    servers.push(hanging);
    await new Promise<void>((r) => hanging.listen(0, "127.0.0.1", r));
    const req = http.request(`http://127.0.0.1:${(hanging.address() as net.AddressInfo).port}/v1/acme/boards`);
    req.on("error", () => undefined); // the abort below is the point
    req.end();
    await inApp;
    req.destroy();
    await vi.waitFor(() => expect(requestLines().slice(n).some((l) => l.route === "/v1/[slug]/boards")).toBe(true));
    expect(requestLines().slice(n).find((l) => l.route === "/v1/[slug]/boards")).toMatchObject({ status: 499, aborted: true, level: "info" });
  });
});
