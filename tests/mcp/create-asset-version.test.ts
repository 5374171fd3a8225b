import type http from "node:http";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Board, Plan, Workspace } from "../../lib/db/schema";
import { resetEnvCache } from "../../lib/env";
import { mcpRoute } from "../../lib/mcp/http";
import { useTestDeps } from "../helpers/deps";
import { md5hex, newApiToken, newBoard, newWorkspace, randomPng } from "../helpers/factories";
import { uploadAsset } from "../helpers/uploads";
import { versions } from "../helpers/versions";
import { callTool, connect, ok, toolError, type McpHandlers } from "./helpers/client";
import { selfSignedCert, startServer, streamBytes, type Pem, type TestServer } from "./helpers/servers";

/**
 * create_asset_version against a local HTTPS server whose self-signed certificate the test
 * trusts. A process trusts extra roots through NODE_EXTRA_CA_CERTS at start-up, which a running
 * test worker cannot change, so the test builds the route's handlers with the certificate
 * (`mcpRoute({ download: { ca } })`, the same factory app/mcp/route.ts calls without options).
 * 127.0.0.1 is a private address: EASEL_WEBHOOK_ALLOW_PRIVATE=1 lets the download reach it.
 */
const LIMIT = 5 * 1024 * 1024; // 5,242,880 bytes: refused from here on

let deps: Awaited<ReturnType<typeof useTestDeps>>;
let pem: Pem;
let files: TestServer;
let png: Buffer;
let trusted: McpHandlers;
let impatient: McpHandlers;
const requests: string[] = [];
const sentBytes = new Map<string, number>();

function handler(req: http.IncomingMessage, res: http.ServerResponse) {
  const path = req.url ?? "";
  requests.push(path);
  const stream = (total: number, headers: http.OutgoingHttpHeaders) => {
    res.writeHead(200, headers); // no Content-Length: chunked, so only counting while streaming can tell
    void streamBytes(res, total).then((n) => sentBytes.set(path, n));
  };
  switch (path) {
    case "/photo.png":
      // A server that says nothing useful about the type: the bytes decide.
      return void res.writeHead(200, { "content-type": "application/octet-stream", "content-length": png.length }).end(png);
    case "/at-limit":
      return stream(LIMIT, { "content-type": "image/png" });
    case "/endless":
      return stream(64 * 1024 * 1024, { "content-type": "video/mp4" });
    case "/under-limit":
      return stream(LIMIT - 1, { "content-type": "image/png" });
    case "/declares-big":
      return void res.writeHead(200, { "content-length": String(LIMIT + 1) }).end("tiny");
    case "/lies": {
      // Claims 1 KiB in Content-Length while the chunked framing carries 6 MiB.
      const socket = req.socket;
      socket.write("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 1024\r\nTransfer-Encoding: chunked\r\n\r\n");
      const chunk = Buffer.alloc(64 * 1024, 0x62);
      for (let i = 0; i < 96; i++) socket.write(`${chunk.length.toString(16)}\r\n${chunk.toString("latin1")}\r\n`, "latin1");
      socket.end("0\r\n\r\n");
      return;
    }
    case "/to-http":
      return void res.writeHead(302, { location: `http://127.0.0.1:${files.port}/photo.png` }).end();
    case "/page.html":
      return void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end("<!doctype html><title>Sign in</title>");
    case "/silent":
      return; // never answers
    default:
      return void res.writeHead(404).end("not here");
  }
}

function allowPrivate(on: boolean) {
  if (on) process.env.EASEL_WEBHOOK_ALLOW_PRIVATE = "1";
  else delete process.env.EASEL_WEBHOOK_ALLOW_PRIVATE;
  resetEnvCache();
}

type Ctx = { ws: Workspace; token: string; board: Board; client: Client };
const clients: Client[] = [];
async function workspace(plan: Plan = "team", handlers: McpHandlers = trusted): Promise<Ctx> {
  const ws = await newWorkspace(deps.db, { plan });
  const token = await newApiToken(deps.db, ws);
  const client = await connect(token, handlers);
  clients.push(client);
  return { ws, token, board: await newBoard(deps.db, ws), client };
}
async function newAsset(c: Ctx, onBoard = true) {
  return (await uploadAsset(c.ws, c.token, deps.store.s3, await randomPng(), onBoard ? { collection_token: c.board.token } : {})).asset;
}
const head = async (c: Ctx, token: string) => (await versions(c.ws, c.token, token)).body.head_version_number;
const create = (c: Ctx, asset: { token: string }, args: Record<string, unknown>) => callTool(c.client, "create_asset_version", { organization: c.ws.slug, asset_token: asset.token, ...args });
const url = (path: string) => `${files.origin}${path}`;

let team: Ctx;
beforeAll(async () => {
  deps = await useTestDeps();
  pem = selfSignedCert({ ips: ["127.0.0.1"] });
  files = await startServer(handler, pem);
  png = await randomPng(24, 24);
  trusted = mcpRoute({ download: { ca: pem.cert } });
  impatient = mcpRoute({ download: { ca: pem.cert, timeoutMs: 300 } });
  team = await workspace();
});
afterEach(() => allowPrivate(false));
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await files?.close();
});

describe("create_asset_version", () => {
  it("downloads the file and writes it as a new version, exactly like a version-writing PATCH", async () => {
    allowPrivate(true);
    const asset = await newAsset(team);
    deps.jobs.clear();
    const res = ok(await create(team, asset, { url: url("/photo.png"), comment: "before the new photo" }));
    expect(res).toMatchObject({ head_version_number: 2, data: { md5: md5hex(png), size: png.length, media_type: "image/png", head_version_number: 2 } });
    expect((await deps.store.s3.bytes(res.data.primary_storage_id)).equals(png)).toBe(true);
    expect(deps.jobs.sent.map((e) => e.name).sort()).toEqual(["asset/changed", "asset/processing.requested"]); // in no promised order
    const list = (await versions(team.ws, team.token, asset.token)).body;
    expect(list.data).toEqual([expect.objectContaining({ version_number: 1, md5: asset.md5, source: "UPLOAD", comment: "before the new photo" })]);
  });

  it("refuses the same URL without EASEL_WEBHOOK_ALLOW_PRIVATE: 127.0.0.1 is not public, and nothing is fetched", async () => {
    const asset = await newAsset(team);
    requests.length = 0;
    const error = toolError(await create(team, asset, { url: url("/photo.png") }), "validation_failed");
    expect(error).toMatchObject({ field: "url", reason: "private_address" });
    expect(error.message).toMatch(/Nothing was written/);
    expect(requests).toEqual([]);
    expect(await head(team, asset.token)).toBe(1);
  });

  it("refuses http://, also when an https URL redirects there", async () => {
    allowPrivate(true);
    const asset = await newAsset(team);
    expect(toolError(await create(team, asset, { url: `http://127.0.0.1:${files.port}/photo.png` }), "validation_failed")).toMatchObject({ field: "url", reason: "scheme" });
    expect(toolError(await create(team, asset, { url: url("/to-http") }), "validation_failed")).toMatchObject({ field: "url", reason: "scheme" });
    expect(await head(team, asset.token)).toBe(1);
  });

  it("5 MiB: 5,242,880 bytes refused while streaming (no Content-Length); 5,242,879 accepted", async () => {
    allowPrivate(true);
    const asset = await newAsset(team);
    const error = toolError(await create(team, asset, { url: url("/at-limit") }), "payload_too_large");
    expect(error).toMatchObject({ field: "url", max_size: LIMIT - 1 });
    expect(await head(team, asset.token)).toBe(1);
    // A body far over the limit is cut off as it arrives: the server never gets to send it all.
    toolError(await create(team, asset, { url: url("/endless") }), "payload_too_large");
    await expect.poll(() => sentBytes.get("/endless")).toBeDefined();
    expect(sentBytes.get("/endless")).toBeLessThan(16 * 1024 * 1024);
    const res = ok(await create(team, asset, { url: url("/under-limit") }));
    expect(res.data).toMatchObject({ size: LIMIT - 1, media_type: "image/png" });
    expect(res.head_version_number).toBe(2);
  });

  it("5 MiB: a declared size at the limit is refused before reading; a Content-Length that lies about the body is refused", async () => {
    allowPrivate(true);
    const asset = await newAsset(team);
    expect(toolError(await create(team, asset, { url: url("/declares-big") }), "payload_too_large").field).toBe("url");
    expect(toolError(await create(team, asset, { url: url("/lies") }), "validation_failed")).toMatchObject({ field: "url", reason: "network" });
    expect(await head(team, asset.token)).toBe(1);
  });

  it("an error status, an HTML page and a server that never answers are refused with their reason", async () => {
    allowPrivate(true);
    const asset = await newAsset(team);
    expect(toolError(await create(team, asset, { url: url("/gone") }), "validation_failed")).toMatchObject({ reason: "http_status", status: 404 });
    expect(toolError(await create(team, asset, { url: url("/page.html") }), "validation_failed")).toMatchObject({ reason: "html_page" });
    const slow = await workspace("team", impatient);
    const slowAsset = await newAsset(slow);
    expect(toolError(await create(slow, slowAsset, { url: url("/silent") }), "validation_failed")).toMatchObject({ reason: "timeout" });
    expect(await head(team, asset.token)).toBe(1);
  });

  it("a certificate nobody trusts is refused (the app's own route trusts Node's roots only)", async () => {
    allowPrivate(true);
    const plain = await workspace("team", (await import("../../app/mcp/route")) as McpHandlers);
    const asset = await newAsset(plain);
    const error = toolError(await create(plain, asset, { url: url("/photo.png") }), "validation_failed");
    expect(error).toMatchObject({ reason: "network" });
    expect(error.message).toMatch(/SELF_SIGNED|CERT/);
  });

  it("the version gates run before the download: creative, off-board and unknown assets fetch nothing", async () => {
    allowPrivate(true);
    requests.length = 0;
    const creative = await workspace("creative");
    toolError(await create(creative, await newAsset(creative), { url: url("/photo.png") }), "versioning_not_enabled");
    toolError(await create(team, await newAsset(team, false), { url: url("/photo.png") }), "version_write_forbidden");
    toolError(await create(team, { token: "missing" }, { url: url("/photo.png") }), "asset_not_found");
    expect(requests).toEqual([]);
  });

  it("arguments are validated with the field named", async () => {
    const asset = await newAsset(team);
    expect(toolError(await create(team, asset, {}), "validation_failed").field).toBe("url");
    expect(toolError(await create(team, asset, { url: url("/photo.png"), media_type: "png" }), "validation_failed").field).toBe("media_type");
    expect(toolError(await create(team, asset, { url: "not a url" }), "validation_failed")).toMatchObject({ field: "url", reason: "invalid_url" });
  });

  it("media_type is bounded like REST's: 255 characters downloads and writes, 256 is refused before any download", async () => {
    const asset = await newAsset(team);
    const typeOf = (n: number) => `image/${"p".repeat(n - "image/".length)}`;
    requests.length = 0;
    expect(toolError(await create(team, asset, { url: url("/photo.png"), media_type: typeOf(256) }), "validation_failed").field).toBe("media_type");
    expect(requests).toEqual([]);
    allowPrivate(true);
    const written = ok(await create(team, asset, { url: url("/photo.png"), media_type: typeOf(255) }));
    expect(written.data.media_type).toBe(typeOf(255));
  });
});
