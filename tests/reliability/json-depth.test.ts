import path from "node:path";
import { encode } from "next-auth/jwt";
import { beforeAll, describe, expect, it } from "vitest";
import * as mcp from "../../app/mcp/route";
import { authSecret } from "../../lib/auth/session-principal";
import { createAdminUser } from "../../lib/auth/users";
import type { Board, Workspace } from "../../lib/db/schema";
import { resetEnvCache } from "../../lib/env";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { newApiToken, newBoard, newWorkspace } from "../helpers/factories";
import { changedTables, stateSnapshotter } from "./helpers";

/**
 * Contract §12, "Bounded work per request": a body nested deeper than 64 levels answers 400
 * invalid_json on every route that reads JSON (it used to reach a recursive walk and answer a 500
 * RangeError), /mcp answers a JSON-RPC parse error, and nothing is written.
 */
const A = "app/v1/[slug]";
const V1_JSON_ROUTES = [
  { file: `${A}/boards/route.ts`, method: "POST", path: (s: string) => `/v1/${s}/boards` },
  { file: `${A}/boards/[boardToken]/route.ts`, method: "PATCH", path: (s: string, b: string) => `/v1/${s}/boards/${b}` },
  { file: `${A}/assets/upload_prepare/route.ts`, method: "POST", path: (s: string) => `/v1/${s}/assets/upload_prepare` },
  { file: `${A}/assets/upload_complete/route.ts`, method: "POST", path: (s: string) => `/v1/${s}/assets/upload_complete` },
  { file: `${A}/assets/[token]/route.ts`, method: "PATCH", path: (s: string) => `/v1/${s}/assets/nosuchasset` },
  { file: `${A}/assets/[token]/revert/route.ts`, method: "POST", path: (s: string) => `/v1/${s}/assets/nosuchasset/revert` },
  { file: `${A}/access_tokens/route.ts`, method: "POST", path: (s: string) => `/v1/${s}/access_tokens` },
  { file: "app/v1/trigger/route.ts", method: "POST", path: () => "/v1/trigger" },
];
const ADMIN_JSON_ROUTES = [
  { file: "app/api/admin/workspaces/route.ts", method: "POST", path: () => "/api/admin/workspaces" },
  { file: "app/api/admin/workspaces/[slug]/route.ts", method: "PATCH", path: (s: string) => `/api/admin/workspaces/${s}` },
  { file: "app/api/admin/workspaces/[slug]/tokens/route.ts", method: "POST", path: (s: string) => `/api/admin/workspaces/${s}/tokens` },
];

const SESSION_COOKIE = "authjs.session-token";
const deepArrays = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
/** {"board":{"title":"x","fields":{"a":{"a":…}}}}: `depth` levels in all, a shape the routes would otherwise read. */
const deepBoard = (depth: number) => `{"board":{"title":"x","fields":${'{"a":'.repeat(depth - 2)}1${"}".repeat(depth - 2)}}}`;

let deps: Awaited<ReturnType<typeof useTestDeps>>;
let ws: Workspace;
let board: Board;
let token: string;
let sessionHeaders: Record<string, string>;

beforeAll(async () => {
  process.env.EASEL_RATE_LIMIT_PER_MIN = "100000";
  resetEnvCache();
  // Whole-table comparisons need a database no other test file writes to at the same time.
  deps = await useTestDeps({ isolated: true });
  ws = await newWorkspace(deps.db, { plan: "team" });
  board = await newBoard(deps.db, ws);
  token = await newApiToken(deps.db, ws, { scopes: ["read", "write"], webhooks: true });
  const user = await createAdminUser(deps.db, { email: `depth-${ws.slug}@easel.test`, password: "correct horse battery", now: new Date() });
  const cookie = await encode({ token: { sub: String(user.id), email: user.email }, secret: await authSecret(deps.db), salt: SESSION_COOKIE, maxAge: 3600 });
  sessionHeaders = { cookie: `${SESSION_COOKIE}=${cookie}`, origin: "http://easel.test", "sec-fetch-site": "same-origin" };
});

describe("JSON nesting limit", () => {
  it("a 100,000-deep body to POST /v1/:slug/boards answers 400 invalid_json quickly and writes nothing", async () => {
    const { snapshot } = await stateSnapshotter(deps.db);
    const before = await snapshot();
    const mod = await import(path.resolve(`${A}/boards/route.ts`));
    const started = performance.now();
    const res = await call(mod.POST, { method: "POST", path: `/v1/${ws.slug}/boards`, token, body: deepArrays(100_000), headers: { "content-type": "application/json" }, params: { slug: ws.slug } });
    const ms = performance.now() - started;
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toEqual({ message: "The request body nests deeper than 64 levels", extensions: { code: "invalid_json" } });
    expect(ms).toBeLessThan(1000);
    expect(changedTables(before, await snapshot())).toEqual([]);
  });

  it("64 levels are read (the board is made), 65 are refused", async () => {
    const mod = await import(path.resolve(`${A}/boards/route.ts`));
    const post = (body: string) => call(mod.POST, { method: "POST", path: `/v1/${ws.slug}/boards`, token, body, headers: { "content-type": "application/json" }, params: { slug: ws.slug } });
    const at64 = await post(deepBoard(64));
    // The schema ignores the unknown nested key: the body was parsed and read, and the board made.
    expect([at64.status, at64.body.data?.title]).toEqual([201, "x"]);
    const at65 = await post(deepBoard(65));
    expect([at65.status, at65.body.errors[0].extensions.code]).toEqual([400, "invalid_json"]);
    // Brackets inside a string are text, not depth.
    const inString = await post(JSON.stringify({ board: { title: "{[".repeat(70) } }));
    expect([inString.status, inString.body.data?.title]).toEqual([201, "{[".repeat(70)]);
  });

  it("every /v1 and admin route that reads JSON answers 400 invalid_json to a 100,000-deep body and changes nothing", async () => {
    const { snapshot } = await stateSnapshotter(deps.db);
    const before = await snapshot();
    const body = `{"a":${deepArrays(100_000)}}`;
    const seen: string[] = [];
    for (const r of V1_JSON_ROUTES) {
      const mod = await import(path.resolve(r.file));
      const res = await call(mod[r.method], { method: r.method, path: r.path(ws.slug, board.token), token, body, headers: { "content-type": "application/json" }, params: { slug: ws.slug, boardToken: board.token, token: "nosuchasset" } });
      seen.push(`${r.method} ${r.file} ${res.status} ${res.body?.errors?.[0]?.extensions?.code}`);
    }
    for (const r of ADMIN_JSON_ROUTES) {
      const mod = await import(path.resolve(r.file));
      const res = await call(mod[r.method], { method: r.method, path: r.path(ws.slug), body, headers: { "content-type": "application/json", ...sessionHeaders }, params: { slug: ws.slug } });
      seen.push(`${r.method} ${r.file} ${res.status} ${res.body?.errors?.[0]?.extensions?.code}`);
    }
    expect(seen).toEqual([...V1_JSON_ROUTES, ...ADMIN_JSON_ROUTES].map((r) => `${r.method} ${r.file} 400 invalid_json`));
    expect(changedTables(before, await snapshot())).toEqual([]);
  });

  it("POST /mcp with a 100,000-deep body answers a JSON-RPC parse error (400), not a 500, and writes nothing", async () => {
    const { snapshot } = await stateSnapshotter(deps.db);
    const before = await snapshot();
    const post = (body: string) =>
      mcp.POST(new Request("http://easel.test/mcp", { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" }, body }));
    // A tools/call whose arguments nest 100,000 levels, and a bare 100,000-deep array.
    const deepCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_asset","arguments":{"organization":${deepArrays(100_000)}}}}`;
    for (const body of [deepCall, deepArrays(100_000)]) {
      const res = await post(body);
      expect(res.status).toBe(400);
      const json = await res.json();
      expect(json).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
      expect(json.error.message).toMatch(/deeper than 64 levels/);
    }
    // Still a working endpoint for ordinary bodies, and still the SDK's answer to a body that is not JSON.
    const init = await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "depth", version: "1" } } }));
    expect(init.status).toBe(200);
    expect((await init.json()).result.serverInfo).toBeDefined();
    const notJson = await post("{not json");
    expect([notJson.status, (await notJson.json()).error.code]).toEqual([400, -32700]);
    expect(changedTables(before, await snapshot())).toEqual([]);
  });
});
