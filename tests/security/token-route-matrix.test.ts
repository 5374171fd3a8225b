import path from "node:path";
import { encode } from "next-auth/jwt";
import { beforeAll, describe, expect, it } from "vitest";
import { revokeApiToken } from "../../lib/auth/api-tokens";
import { authSecret } from "../../lib/auth/session-principal";
import { createAdminUser } from "../../lib/auth/users";
import type { Board, Workspace } from "../../lib/db/schema";
import { resetEnvCache } from "../../lib/env";
import { call, type Answer } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { insertAsset, newApiToken, newBoard, newBoardToken, newWorkspace, uniq } from "../helpers/factories";

/**
 * Every /v1 route × every kind of caller, from one table: the rules below decide the expected
 * status and code of each cell, and a route file without a row fails the first test.
 */
type Gate = { scope: "read" | "write"; boardReads?: boolean; apiTokenOnly?: boolean; webhooks?: boolean; target: "workspace" | "board" | "asset" | "trigger" | "none" };
type Fixture = { ws: Workspace; board: Board; outside: Board; assetToken: string; triggerId: string; deliveryId: string };
type Req = { path: string; params: Record<string, string>; json?: unknown };
type Row = { file: string; method: "GET" | "POST" | "PATCH" | "DELETE"; gate: Gate; req: (f: Fixture) => Promise<Req> | Req };

const A = "app/v1/[slug]";
const ROWS: Row[] = [
  { file: `${A}/boards/route.ts`, method: "GET", gate: { scope: "read", boardReads: true, target: "workspace" }, req: (f) => ({ path: `/v1/${f.ws.slug}/boards`, params: { slug: f.ws.slug } }) },
  { file: `${A}/boards/route.ts`, method: "POST", gate: { scope: "write", target: "workspace" }, req: (f) => ({ path: `/v1/${f.ws.slug}/boards`, params: { slug: f.ws.slug }, json: { board: { title: "m" } } }) },
  { file: `${A}/boards/[boardToken]/route.ts`, method: "GET", gate: { scope: "read", boardReads: true, target: "board" }, req: (f) => board(f, "") },
  { file: `${A}/boards/[boardToken]/route.ts`, method: "PATCH", gate: { scope: "write", target: "board" }, req: (f) => ({ ...board(f, ""), json: { board: { title: "m" } } }) },
  { file: `${A}/boards/[boardToken]/children/route.ts`, method: "GET", gate: { scope: "read", boardReads: true, target: "board" }, req: (f) => board(f, "/children") },
  { file: `${A}/boards/[boardToken]/assets/route.ts`, method: "GET", gate: { scope: "read", boardReads: true, target: "board" }, req: (f) => board(f, "/assets") },
  { file: `${A}/assets/route.ts`, method: "GET", gate: { scope: "read", boardReads: true, target: "workspace" }, req: (f) => ({ path: `/v1/${f.ws.slug}/assets`, params: { slug: f.ws.slug } }) },
  { file: `${A}/search/route.ts`, method: "GET", gate: { scope: "read", boardReads: true, target: "workspace" }, req: (f) => ({ path: `/v1/${f.ws.slug}/search?query=m`, params: { slug: f.ws.slug } }) },
  { file: `${A}/ai_search/route.ts`, method: "GET", gate: { scope: "read", boardReads: true, target: "workspace" }, req: (f) => ({ path: `/v1/${f.ws.slug}/ai_search?query=m`, params: { slug: f.ws.slug } }) },
  { file: `${A}/access_tokens/route.ts`, method: "POST", gate: { scope: "read", apiTokenOnly: true, target: "workspace" }, req: (f) => ({ path: `/v1/${f.ws.slug}/access_tokens`, params: { slug: f.ws.slug }, json: { board_token: f.board.token, expires_in: 60 } }) },
  { file: `${A}/assets/upload_prepare/route.ts`, method: "POST", gate: { scope: "write", target: "workspace" }, req: (f) => ({ path: `/v1/${f.ws.slug}/assets/upload_prepare`, params: { slug: f.ws.slug }, json: { asset: { media_type: "image/png", size: 10 } } }) },
  { file: `${A}/assets/upload_complete/route.ts`, method: "POST", gate: { scope: "write", target: "workspace" }, req: (f) => ({ path: `/v1/${f.ws.slug}/assets/upload_complete`, params: { slug: f.ws.slug }, json: { asset: { signed_storage_id: "x" } } }) },
  { file: `${A}/assets/[token]/route.ts`, method: "GET", gate: { scope: "read", target: "asset" }, req: (f) => asset(f, "") },
  { file: `${A}/assets/[token]/route.ts`, method: "PATCH", gate: { scope: "write", target: "asset" }, req: (f) => ({ ...asset(f, ""), json: { asset: { title: "m" } } }) },
  { file: `${A}/assets/[token]/route.ts`, method: "DELETE", gate: { scope: "write", target: "asset" }, req: (f) => asset(f, "") },
  { file: `${A}/assets/[token]/versions/route.ts`, method: "GET", gate: { scope: "read", target: "asset" }, req: (f) => asset(f, "/versions") },
  { file: `${A}/assets/[token]/download_link/route.ts`, method: "GET", gate: { scope: "read", target: "asset" }, req: (f) => asset(f, "/download_link") },
  { file: `${A}/assets/[token]/revert/route.ts`, method: "POST", gate: { scope: "write", target: "asset" }, req: (f) => ({ ...asset(f, "/revert"), json: { version_number: 1 } }) },
  { file: `${A}/assets/[token]/retry_video_processing/route.ts`, method: "POST", gate: { scope: "write", target: "asset" }, req: (f) => asset(f, "/retry_video_processing") },
  { file: "app/v1/trigger/route.ts", method: "GET", gate: { scope: "read", webhooks: true, target: "none" }, req: () => ({ path: "/v1/trigger", params: {} }) },
  { file: "app/v1/trigger/route.ts", method: "POST", gate: { scope: "write", webhooks: true, target: "none" }, req: (f) => ({ path: "/v1/trigger", params: {}, json: { hook: "asset_added", hook_url: "http://127.0.0.1:9/hook", organization_slug: f.ws.slug, collection_token: f.board.token } }) },
  { file: "app/v1/trigger/[id]/route.ts", method: "DELETE", gate: { scope: "write", webhooks: true, target: "trigger" }, req: (f) => trigger(f, "") },
  { file: "app/v1/trigger/[id]/renew/route.ts", method: "POST", gate: { scope: "write", webhooks: true, target: "trigger" }, req: (f) => trigger(f, "/renew") },
  { file: "app/v1/trigger/[id]/deliveries/route.ts", method: "GET", gate: { scope: "read", webhooks: true, target: "trigger" }, req: (f) => trigger(f, "/deliveries") },
  { file: "app/v1/trigger/[id]/deliveries/[delivery_id]/resend/route.ts", method: "POST", gate: { scope: "write", webhooks: true, target: "trigger" }, req: (f) => ({ path: `/v1/trigger/${f.triggerId}/deliveries/${f.deliveryId}/resend`, params: { id: f.triggerId, delivery_id: f.deliveryId } }) },
];
// Answer every request the same way for every caller: not part of the matrix.
const PUBLIC = ["app/v1/route.ts", `${A}/route.ts`, `${A}/[...rest]/route.ts`, `${A}/boards/[boardToken]/[...rest]/route.ts`, `${A}/assets/[token]/[...rest]/route.ts`, "app/v1/openapi.json/route.ts"];

function board(f: Fixture, suffix: string): Req {
  return { path: `/v1/${f.ws.slug}/boards/${f.board.token}${suffix}`, params: { slug: f.ws.slug, boardToken: f.board.token } };
}
function asset(f: Fixture, suffix: string): Req {
  return { path: `/v1/${f.ws.slug}/assets/${f.assetToken}${suffix}`, params: { slug: f.ws.slug, token: f.assetToken } };
}
function trigger(f: Fixture, suffix: string): Req {
  return { path: `/v1/trigger/${f.triggerId}${suffix}`, params: { id: f.triggerId } };
}

type Caller = { name: string; headers: () => Promise<Record<string, string>>; kind: "none" | "api" | "board-in" | "board-out" | "board-expired" | "foreign" | "session"; scopes?: ("read" | "write")[]; webhooks?: boolean };
type Expect = { status: number; code: string } | "passes";

/** The rules of lib/http/with-api.ts, restated: what each caller must get on each route. */
function expected(c: Caller, g: Gate): Expect {
  if (c.kind === "none" || c.kind === "board-expired") return { status: 401, code: "unauthenticated" };
  if (c.kind.startsWith("board")) {
    if (!g.boardReads) return { status: 403, code: "board_scoped_token" };
    if (c.kind === "board-out" && g.target === "board") return { status: 404, code: "board_not_found" };
    return "passes";
  }
  if (c.kind === "session") return g.apiTokenOnly ? { status: 403, code: "api_token_required" } : "passes";
  if (g.webhooks && !c.webhooks) return { status: 403, code: "webhook_permission_required" };
  if (!c.scopes!.includes(g.scope)) return { status: 403, code: "insufficient_scope" };
  if (c.kind === "foreign") {
    if (g.target === "trigger") return { status: 404, code: "trigger_not_found" };
    if (g.target === "none") return g.scope === "write" ? { status: 404, code: "workspace_not_found" } : "passes";
    return { status: 404, code: "workspace_not_found" };
  }
  return "passes";
}

const GATE_CODES = ["unauthenticated", "board_scoped_token", "api_token_required", "webhook_permission_required", "insufficient_scope", "workspace_not_found"];

let deps: Awaited<ReturnType<typeof useTestDeps>>;
let ws: Workspace;
let root: Board;
let outside: Board;
let callers: Caller[];
const bearer = (t: string) => async () => ({ authorization: `Bearer ${t}` });

beforeAll(async () => {
  process.env.EASEL_WEBHOOK_ALLOW_PRIVATE = "1";
  resetEnvCache();
  deps = await useTestDeps();
  ws = await newWorkspace(deps.db, { plan: "team" });
  root = await newBoard(deps.db, ws);
  outside = await newBoard(deps.db, ws);
  const other = await newWorkspace(deps.db);
  const revoked = await newApiToken(deps.db, ws);
  await revokeApiToken(deps.db, revoked, new Date());
  const user = await createAdminUser(deps.db, { email: `${uniq("m")}@easel.test`, password: "correct horse", now: new Date() });
  const cookieName = "authjs.session-token";
  const session = await encode({ token: { sub: String(user.id), email: user.email }, secret: await authSecret(deps.db), salt: cookieName, maxAge: 3600 });
  const t = async (scopes: ("read" | "write")[], webhooks = false, w = ws) => newApiToken(deps.db, w, { scopes, webhooks });
  callers = [
    { name: "no token", kind: "none", headers: async () => ({}) },
    { name: "malformed header", kind: "none", headers: async () => ({ authorization: "Basic eDp5" }) },
    { name: "unknown token", kind: "none", headers: bearer("easel_unknownunknownunknown") },
    { name: "revoked token", kind: "none", headers: bearer(revoked) },
    { name: "read", kind: "api", scopes: ["read"], headers: bearer(await t(["read"])) },
    { name: "write", kind: "api", scopes: ["write"], headers: bearer(await t(["write"])) },
    { name: "read+write", kind: "api", scopes: ["read", "write"], headers: bearer(await t(["read", "write"])) },
    { name: "read+write+webhooks", kind: "api", scopes: ["read", "write"], webhooks: true, headers: bearer(await t(["read", "write"], true)) },
    { name: "board token inside", kind: "board-in", headers: bearer(await newBoardToken(deps.db, ws, root.token)) },
    { name: "board token outside", kind: "board-out", headers: bearer(await newBoardToken(deps.db, ws, outside.token)) },
    { name: "expired board token", kind: "board-expired", headers: bearer(await newBoardToken(deps.db, ws, root.token, { now: new Date(Date.now() - 7200e3), expiresIn: 60 })) },
    { name: "other workspace's token", kind: "foreign", scopes: ["read", "write"], webhooks: true, headers: bearer(await t(["read", "write"], true, other)) },
    { name: "browser session", kind: "session", headers: async () => ({ cookie: `${cookieName}=${session}`, "sec-fetch-site": "same-origin" }) },
  ];
});

/** Fresh targets per cell, so a cell that deletes or changes them leaves the next one intact. */
async function fixture(): Promise<Fixture> {
  const board = await newBoard(deps.db, ws, { parentId: root.id });
  const a = await insertAsset(deps.db, ws, { boardIds: [board.id] });
  const { createTrigger } = await import("../../lib/webhooks");
  const principal = { kind: "api" as const, tokenId: 0, scopes: ["read" as const, "write" as const], webhooks: true, prefix: "easel_m", workspace: ws };
  const trig = await createTrigger(deps, principal, { hook: "asset_added", hookUrl: "http://127.0.0.1:9/hook", organizationSlug: ws.slug, collectionToken: board.token });
  return { ws, board, outside, assetToken: a.token, triggerId: trig.id, deliveryId: "1" };
}

async function allowedMethods(file: string): Promise<string[]> {
  const mod = await import(path.resolve(file));
  const res: Response = await mod.OPTIONS(new Request("http://easel.test/x", { method: "OPTIONS" }), { params: Promise.resolve({}) });
  return (res.headers.get("access-control-allow-methods") ?? "").split(",").map((m) => m.trim()).filter(Boolean);
}

describe("token × route matrix", () => {
  it("has a row for every method of every /v1 route, and no row without a route", async () => {
    const { execSync } = await import("node:child_process");
    const files = execSync("find app/v1 -name route.ts", { encoding: "utf8" }).trim().split("\n");
    const served: string[] = [];
    for (const file of files.filter((f) => !PUBLIC.includes(f))) {
      for (const method of await allowedMethods(file)) served.push(`${method} ${file}`);
    }
    expect(served.sort()).toEqual(ROWS.map((r) => `${r.method} ${r.file}`).sort());
  });

  it("answers every cell as the rules say", async () => {
    const failures: string[] = [];
    for (const row of ROWS) {
      const mod = await import(path.resolve(row.file));
      for (const caller of callers) {
        const req = await row.req(await fixture());
        const headers = await caller.headers();
        const res: Answer = await call(mod[row.method], { method: row.method, path: req.path, json: req.json, headers, params: req.params });
        const want = expected(caller, row.gate);
        const code = res.body?.errors?.[0]?.extensions?.code;
        const ok = want === "passes" ? res.status < 500 && !GATE_CODES.includes(code) : res.status === want.status && code === want.code;
        if (!ok) failures.push(`${row.method} ${row.file} × ${caller.name}: got ${res.status} ${code ?? ""}, expected ${want === "passes" ? "to pass the gates" : `${want.status} ${want.code}`}`);
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
