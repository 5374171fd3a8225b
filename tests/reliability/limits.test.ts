import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Board, Workspace } from "../../lib/db/schema";
import { resetEnvCache } from "../../lib/env";
import { MAX_JSON_BODY_BYTES } from "../../lib/http/parse";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { newApiToken, newBoard, newWorkspace } from "../helpers/factories";
import { changedTables, stateSnapshotter } from "./helpers";

/**
 * Request body size limit (contract §1: 413 payload_too_large): every JSON route refuses a body
 * above 1 MiB, declared (Content-Length) or streamed without a length, and writes nothing; the
 * Idempotency-Key hash of a POST reads no more than the same limit.
 */
const A = "app/v1/[slug]";
const JSON_ROUTES = [
  { file: `${A}/boards/route.ts`, method: "POST", path: (s: string) => `/v1/${s}/boards` },
  { file: `${A}/boards/[boardToken]/route.ts`, method: "PATCH", path: (s: string, b: string) => `/v1/${s}/boards/${b}` },
  { file: `${A}/assets/upload_prepare/route.ts`, method: "POST", path: (s: string) => `/v1/${s}/assets/upload_prepare` },
  { file: `${A}/assets/upload_complete/route.ts`, method: "POST", path: (s: string) => `/v1/${s}/assets/upload_complete` },
  { file: `${A}/access_tokens/route.ts`, method: "POST", path: (s: string) => `/v1/${s}/access_tokens` },
  { file: "app/v1/trigger/route.ts", method: "POST", path: () => "/v1/trigger" },
];

let deps: Awaited<ReturnType<typeof useTestDeps>>;
let ws: Workspace;
let board: Board;
let token: string;

beforeAll(async () => {
  process.env.EASEL_RATE_LIMIT_PER_MIN = "100000";
  resetEnvCache();
  // Whole-table comparisons need a database no other test file writes to at the same time.
  deps = await useTestDeps({ isolated: true });
  ws = await newWorkspace(deps.db, { plan: "team" });
  board = await newBoard(deps.db, ws);
  token = await newApiToken(deps.db, ws, { scopes: ["read", "write"], webhooks: true });
});

/** A JSON object of exactly `bytes` bytes: {"board":{"title":"aaa…"}}. */
function bodyOf(bytes: number): string {
  const shell = '{"board":{"title":""}}';
  return `{"board":{"title":"${"a".repeat(bytes - shell.length)}"}}`;
}

/** A body streamed in 64 KiB chunks without a Content-Length, counting how much the server pulled. */
function streamed(total: number) {
  let pulled = 0;
  const chunk = new Uint8Array(64 * 1024).fill(0x61);
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= total) return controller.close();
      pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  return { stream, pulled: () => pulled };
}

describe("request body size limit", () => {
  it("every JSON route answers 413 payload_too_large above 1 MiB and changes nothing", async () => {
    const { snapshot } = await stateSnapshotter(deps.db);
    const before = await snapshot();
    const seen: string[] = [];
    for (const r of JSON_ROUTES) {
      const mod = await import(path.resolve(r.file));
      const res = await call(mod[r.method], { method: r.method, path: r.path(ws.slug, board.token), token, body: bodyOf(MAX_JSON_BODY_BYTES + 1), headers: { "content-type": "application/json" }, params: { slug: ws.slug, boardToken: board.token } });
      seen.push(`${r.method} ${r.file} ${res.status} ${res.body?.errors?.[0]?.extensions?.code} ${res.body?.errors?.[0]?.extensions?.max_size}`);
    }
    expect(seen).toEqual(JSON_ROUTES.map((r) => `${r.method} ${r.file} 413 payload_too_large ${MAX_JSON_BODY_BYTES}`));
    expect(changedTables(before, await snapshot())).toEqual([]);
  });

  it("a body of exactly 1 MiB is read (here: 422, the title is too long), one byte more is 413", async () => {
    const mod = await import(path.resolve(`${A}/boards/route.ts`));
    const at = await call(mod.POST, { method: "POST", path: `/v1/${ws.slug}/boards`, token, body: bodyOf(MAX_JSON_BODY_BYTES), headers: { "content-type": "application/json" }, params: { slug: ws.slug } });
    expect([at.status, at.body.errors[0].extensions.code]).toEqual([422, "validation_failed"]);
    const over = await call(mod.POST, { method: "POST", path: `/v1/${ws.slug}/boards`, token, body: bodyOf(MAX_JSON_BODY_BYTES + 1), headers: { "content-type": "application/json" }, params: { slug: ws.slug } });
    expect([over.status, over.body.errors[0].extensions.code]).toEqual([413, "payload_too_large"]);
  });

  it("a chunked body without Content-Length is cut off just past the limit, not read to its end (64 MiB offered)", async () => {
    const mod = await import(path.resolve(`${A}/boards/route.ts`));
    for (const idempotencyKey of [null, "fuzz-big-body"]) {
      const body = streamed(64 * 1024 * 1024);
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, "content-type": "application/json" };
      if (idempotencyKey) headers["idempotency-key"] = idempotencyKey;
      const req = new Request(`http://easel.test/v1/${ws.slug}/boards`, { method: "POST", headers, body: body.stream, duplex: "half" } as RequestInit);
      const res = await mod.POST(req, { params: Promise.resolve({ slug: ws.slug }) });
      const json = await res.json();
      console.log(`[limits] chunked 64 MiB body${idempotencyKey ? " with Idempotency-Key" : ""}: ${res.status} ${json.errors[0].extensions.code} after ${(body.pulled() / 1024 / 1024).toFixed(2)} MiB pulled`);
      expect([res.status, json.errors[0].extensions.code]).toEqual([413, "payload_too_large"]);
      expect(body.pulled()).toBeLessThan(MAX_JSON_BODY_BYTES + 4 * 64 * 1024 * 4);
    }
  });

  it("a declared Content-Length above the limit is refused before the body is read", async () => {
    const mod = await import(path.resolve("app/v1/trigger/route.ts"));
    const body = streamed(8 * 1024 * 1024);
    const req = new Request("http://easel.test/v1/trigger", { method: "POST", headers: { authorization: `Bearer ${token}`, "content-length": String(8 * 1024 * 1024), "content-type": "application/json" }, body: body.stream, duplex: "half" } as RequestInit);
    const res = await mod.POST(req, { params: Promise.resolve({}) });
    expect(res.status).toBe(413);
    expect(body.pulled()).toBeLessThanOrEqual(4 * 64 * 1024);
  });
});
