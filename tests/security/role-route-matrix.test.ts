import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "../../lib/auth/api-tokens";
import type { Board, Workspace, WorkspaceRole } from "../../lib/db/schema";
import { resetEnvCache } from "../../lib/env";
import { addMembership } from "../../lib/members/add-member";
import { createInvitation } from "../../lib/members/create-invitation";
import { call, type Answer } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { insertAsset, newBoard, newWorkspace } from "../helpers/factories";
import { newUser, sessionHeaders } from "../helpers/sessions";

/**
 * Every /v1 route and every admin route × every kind of signed-in person (contract §11), from one
 * table: each row names the operation its route needs, `expected` restates §11, and a route file
 * without a row fails the first test. Workspace A is the target of every request.
 */
type Need = "read" | "write" | "manage" | "owner" | "signed-in" | "api-token";
type Target = "workspace" | "trigger" | "none";
type Fixture = { ws: Workspace; board: Board; assetToken: string; triggerId: string; memberId: number; invitationId: number; tokenId: number };
type Req = { path: string; params: Record<string, string>; json?: unknown };
type Row = { file: string; method: "GET" | "POST" | "PATCH" | "DELETE"; need: Need; target: Target; req: (f: Fixture) => Req };

const A = "app/v1/[slug]";
const W = "app/api/admin/workspaces";
const v1 = (f: Fixture, suffix: string, params: Record<string, string> = {}): Req => ({ path: `/v1/${f.ws.slug}${suffix}`, params: { slug: f.ws.slug, ...params } });
const board = (f: Fixture, suffix: string) => v1(f, `/boards/${f.board.token}${suffix}`, { boardToken: f.board.token });
const asset = (f: Fixture, suffix: string) => v1(f, `/assets/${f.assetToken}${suffix}`, { token: f.assetToken });
const trigger = (f: Fixture, suffix: string): Req => ({ path: `/v1/trigger/${f.triggerId}${suffix}`, params: { id: f.triggerId } });
const admin = (f: Fixture, suffix: string, params: Record<string, string> = {}): Req => ({ path: `/api/admin/workspaces/${f.ws.slug}${suffix}`, params: { slug: f.ws.slug, ...params } });

const ROWS: Row[] = [
  { file: `${A}/boards/route.ts`, method: "GET", need: "read", target: "workspace", req: (f) => v1(f, "/boards") },
  { file: `${A}/boards/route.ts`, method: "POST", need: "write", target: "workspace", req: (f) => ({ ...v1(f, "/boards"), json: { board: { title: "m" } } }) },
  { file: `${A}/boards/[boardToken]/route.ts`, method: "GET", need: "read", target: "workspace", req: (f) => board(f, "") },
  { file: `${A}/boards/[boardToken]/route.ts`, method: "PATCH", need: "write", target: "workspace", req: (f) => ({ ...board(f, ""), json: { board: { title: "m" } } }) },
  { file: `${A}/boards/[boardToken]/children/route.ts`, method: "GET", need: "read", target: "workspace", req: (f) => board(f, "/children") },
  { file: `${A}/boards/[boardToken]/assets/route.ts`, method: "GET", need: "read", target: "workspace", req: (f) => board(f, "/assets") },
  { file: `${A}/assets/route.ts`, method: "GET", need: "read", target: "workspace", req: (f) => v1(f, "/assets") },
  { file: `${A}/search/route.ts`, method: "GET", need: "read", target: "workspace", req: (f) => v1(f, "/search?query=m") },
  { file: `${A}/ai_search/route.ts`, method: "GET", need: "read", target: "workspace", req: (f) => v1(f, "/ai_search?query=m") },
  { file: `${A}/access_tokens/route.ts`, method: "POST", need: "api-token", target: "workspace", req: (f) => ({ ...v1(f, "/access_tokens"), json: { board_token: f.board.token, expires_in: 60 } }) },
  { file: `${A}/assets/upload_prepare/route.ts`, method: "POST", need: "write", target: "workspace", req: (f) => ({ ...v1(f, "/assets/upload_prepare"), json: { asset: { media_type: "image/png", size: 10 } } }) },
  { file: `${A}/assets/upload_complete/route.ts`, method: "POST", need: "write", target: "workspace", req: (f) => ({ ...v1(f, "/assets/upload_complete"), json: { asset: { signed_storage_id: "x" } } }) },
  { file: `${A}/assets/[token]/route.ts`, method: "GET", need: "read", target: "workspace", req: (f) => asset(f, "") },
  { file: `${A}/assets/[token]/route.ts`, method: "PATCH", need: "write", target: "workspace", req: (f) => ({ ...asset(f, ""), json: { asset: { title: "m" } } }) },
  { file: `${A}/assets/[token]/route.ts`, method: "DELETE", need: "write", target: "workspace", req: (f) => asset(f, "") },
  { file: `${A}/assets/[token]/versions/route.ts`, method: "GET", need: "read", target: "workspace", req: (f) => asset(f, "/versions") },
  { file: `${A}/assets/[token]/download_link/route.ts`, method: "GET", need: "read", target: "workspace", req: (f) => asset(f, "/download_link") },
  { file: `${A}/assets/[token]/revert/route.ts`, method: "POST", need: "write", target: "workspace", req: (f) => ({ ...asset(f, "/revert"), json: { version_number: 1 } }) },
  { file: `${A}/assets/[token]/retry_video_processing/route.ts`, method: "POST", need: "write", target: "workspace", req: (f) => asset(f, "/retry_video_processing") },
  // Trigger paths name no workspace: listing shows the caller's own, so it needs no target.
  { file: "app/v1/trigger/route.ts", method: "GET", need: "manage", target: "none", req: () => ({ path: "/v1/trigger", params: {} }) },
  { file: "app/v1/trigger/route.ts", method: "POST", need: "manage", target: "workspace", req: (f) => ({ path: "/v1/trigger", params: {}, json: { hook: "asset_added", hook_url: "http://127.0.0.1:9/hook", organization_slug: f.ws.slug, collection_token: f.board.token } }) },
  { file: "app/v1/trigger/[id]/route.ts", method: "DELETE", need: "manage", target: "trigger", req: (f) => trigger(f, "") },
  { file: "app/v1/trigger/[id]/renew/route.ts", method: "POST", need: "manage", target: "trigger", req: (f) => trigger(f, "/renew") },
  { file: "app/v1/trigger/[id]/deliveries/route.ts", method: "GET", need: "manage", target: "trigger", req: (f) => trigger(f, "/deliveries") },
  { file: "app/v1/trigger/[id]/deliveries/[delivery_id]/resend/route.ts", method: "POST", need: "manage", target: "trigger", req: (f) => ({ path: `/v1/trigger/${f.triggerId}/deliveries/1/resend`, params: { id: f.triggerId, delivery_id: "1" } }) },
  // The web UI's own admin routes.
  { file: `${W}/route.ts`, method: "GET", need: "signed-in", target: "none", req: () => ({ path: "/api/admin/workspaces", params: {} }) },
  { file: `${W}/route.ts`, method: "POST", need: "owner", target: "none", req: () => ({ path: "/api/admin/workspaces", params: {}, json: { workspace: { slug: `m-${Math.random().toString(36).slice(2, 10)}` } } }) },
  { file: `${W}/[slug]/route.ts`, method: "GET", need: "read", target: "workspace", req: (f) => admin(f, "") },
  { file: `${W}/[slug]/route.ts`, method: "PATCH", need: "manage", target: "workspace", req: (f) => ({ ...admin(f, ""), json: { workspace: { streaming_enabled: true } } }) },
  { file: `${W}/[slug]/tokens/route.ts`, method: "GET", need: "manage", target: "workspace", req: (f) => admin(f, "/tokens") },
  { file: `${W}/[slug]/tokens/route.ts`, method: "POST", need: "manage", target: "workspace", req: (f) => ({ ...admin(f, "/tokens"), json: { token: { name: "m", scopes: ["read"] } } }) },
  { file: `${W}/[slug]/tokens/[id]/route.ts`, method: "DELETE", need: "manage", target: "workspace", req: (f) => admin(f, `/tokens/${f.tokenId}`, { id: String(f.tokenId) }) },
  { file: `${W}/[slug]/members/route.ts`, method: "GET", need: "manage", target: "workspace", req: (f) => admin(f, "/members") },
  { file: `${W}/[slug]/members/[userId]/route.ts`, method: "PATCH", need: "manage", target: "workspace", req: (f) => ({ ...admin(f, `/members/${f.memberId}`, { userId: String(f.memberId) }), json: { member: { role: "editor" } } }) },
  { file: `${W}/[slug]/members/[userId]/route.ts`, method: "DELETE", need: "manage", target: "workspace", req: (f) => admin(f, `/members/${f.memberId}`, { userId: String(f.memberId) }) },
  { file: `${W}/[slug]/invitations/route.ts`, method: "GET", need: "manage", target: "workspace", req: (f) => admin(f, "/invitations") },
  { file: `${W}/[slug]/invitations/route.ts`, method: "POST", need: "manage", target: "workspace", req: (f) => ({ ...admin(f, "/invitations"), json: { invitation: { email: `m-${Math.random().toString(36).slice(2, 10)}@easel.test`, role: "viewer" } } }) },
  { file: `${W}/[slug]/invitations/[id]/route.ts`, method: "DELETE", need: "manage", target: "workspace", req: (f) => admin(f, `/invitations/${f.invitationId}`, { id: String(f.invitationId) }) },
  { file: "app/api/admin/jobs/runs/route.ts", method: "GET", need: "owner", target: "none", req: () => ({ path: "/api/admin/jobs/runs", params: {} }) },
  { file: "app/api/admin/jobs/runs/[id]/route.ts", method: "GET", need: "owner", target: "none", req: () => ({ path: "/api/admin/jobs/runs/run_x", params: { id: "run_x" } }) },
];
// Answer every request the same way for every caller: not part of the matrix. A test below proves
// each one is what it claims (every method 404 route_not_found, or the OpenAPI document), so a real
// route cannot hide in this list.
const OPENAPI = "app/v1/openapi.json/route.ts";
const PUBLIC = ["app/v1/route.ts", `${A}/route.ts`, `${A}/[...rest]/route.ts`, `${A}/boards/[boardToken]/[...rest]/route.ts`, `${A}/assets/[token]/[...rest]/route.ts`, OPENAPI];

/** A person: their role in workspace A (null: not a member), and whether they administer another workspace (B). */
type Person = { name: string; owner: boolean; roleInA: WorkspaceRole | null; adminOfB: boolean };
const PEOPLE: Person[] = [
  { name: "viewer of A", owner: false, roleInA: "viewer", adminOfB: false },
  { name: "editor of A", owner: false, roleInA: "editor", adminOfB: false },
  { name: "admin of A", owner: false, roleInA: "admin", adminOfB: false },
  { name: "admin of only B", owner: false, roleInA: null, adminOfB: true },
  { name: "owner", owner: true, roleInA: null, adminOfB: false },
];
const RANK: Record<WorkspaceRole, number> = { viewer: 0, editor: 1, admin: 2 };
const NEEDED: Record<"read" | "write" | "manage", WorkspaceRole> = { read: "viewer", write: "editor", manage: "admin" };

type Expect = { status: number; code: string; requiredScope?: string } | "passes";
/** Contract §1: an insufficient_scope refusal names the scope in `extensions.required_scope` (a person's role refusals too). */
const forbidden = (requiredScope: string) => ({ status: 403, code: "insufficient_scope", requiredScope });

/** Contract §11, restated: what each person must get on each route of workspace A. */
function expected(p: Person, row: Row): Expect {
  if (row.need === "api-token") return { status: 403, code: "api_token_required" };
  if (p.owner || row.need === "signed-in") return "passes";
  if (row.need === "owner") return forbidden("owner");
  // Trigger routes name no workspace in their path: someone who administers no workspace at all is refused first.
  if (row.file.startsWith("app/v1/trigger") && p.roleInA !== "admin" && !p.adminOfB) return forbidden("manage");
  if (row.target === "none") return "passes";
  if (p.roleInA === null) return row.target === "trigger" ? { status: 404, code: "trigger_not_found" } : { status: 404, code: "workspace_not_found" };
  return RANK[p.roleInA] >= RANK[NEEDED[row.need]] ? "passes" : forbidden(row.need);
}

const GATE_CODES = ["unauthenticated", "board_scoped_token", "api_token_required", "webhook_permission_required", "insufficient_scope", "workspace_not_found", "trigger_not_found"];

let deps: Awaited<ReturnType<typeof useTestDeps>>;
let wsA: Workspace;
let wsB: Workspace;
let root: Board;
const headersOf = new Map<string, Record<string, string>>();

beforeAll(async () => {
  process.env.EASEL_WEBHOOK_ALLOW_PRIVATE = "1";
  resetEnvCache();
  deps = await useTestDeps();
  wsA = await newWorkspace(deps.db, { plan: "team" });
  wsB = await newWorkspace(deps.db, { plan: "team" });
  root = await newBoard(deps.db, wsA);
  const now = new Date();
  for (const p of PEOPLE) {
    const user = await newUser(deps.db, { owner: p.owner });
    if (p.roleInA) await addMembership(deps.db, { workspace: wsA, userId: user.id, role: p.roleInA, now });
    if (p.adminOfB) await addMembership(deps.db, { workspace: wsB, userId: user.id, role: "admin", now });
    headersOf.set(p.name, await sessionHeaders(deps.db, user));
  }
});

/** Fresh targets per cell, so a cell that deletes or changes them leaves the next one intact. */
async function fixture(): Promise<Fixture> {
  const board = await newBoard(deps.db, wsA, { parentId: root.id });
  const a = await insertAsset(deps.db, wsA, { boardIds: [board.id] });
  const { createTrigger } = await import("../../lib/webhooks");
  const principal = { kind: "api" as const, tokenId: 0, scopes: ["read" as const, "write" as const], webhooks: true, prefix: "easel_m", workspace: wsA };
  const trig = await createTrigger(deps, principal, { hook: "asset_added", hookUrl: "http://127.0.0.1:9/hook", organizationSlug: wsA.slug, collectionToken: board.token });
  const now = new Date();
  const member = await newUser(deps.db);
  await addMembership(deps.db, { workspace: wsA, userId: member.id, role: "viewer", now });
  const invitation = await createInvitation(deps.db, { workspace: wsA, email: `${board.token}@easel.test`, role: "viewer", createdBy: null, now });
  const token = await createApiToken(deps.db, { workspaceId: wsA.id, name: "m", scopes: ["read"], webhooks: false, now });
  return { ws: wsA, board, assetToken: a.token, triggerId: trig.id, memberId: member.id, invitationId: invitation.invitation.id, tokenId: token.id };
}

/** Every HTTP method a route module can export (Next.js serves each exported one). */
const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
const exportedMethods = (mod: Record<string, unknown>) => HTTP_METHODS.filter((m) => typeof mod[m] === "function");
/** A request to a route file's own path (dynamic segments filled with "x"), so the OpenAPI check of call() knows the path. */
const bare = (method: string, file: string) => {
  const params: Record<string, string> = {};
  const segments = file.replace(/^app/, "").replace(/\/route\.ts$/, "").split("/").map((seg) => {
    const name = /^\[(?:\.\.\.)?(\w+)\]$/.exec(seg)?.[1];
    if (!name) return seg;
    params[name] = seg.startsWith("[...") ? "nothing-here" : "x";
    return params[name];
  });
  return { method, path: segments.join("/"), params };
};

/**
 * The methods a route serves. Without OPTIONS (the admin routes): every exported method. With one
 * (the /v1 routes, built by lib/http/route.ts methods()): its allow-list, and every other exported
 * method must answer 405 method_not_allowed, so no handler is served beside the list.
 */
async function servedMethods(file: string): Promise<{ served: string[]; strays: string[] }> {
  const mod = await import(path.resolve(file));
  if (typeof mod.OPTIONS !== "function") return { served: exportedMethods(mod), strays: [] };
  const res: Response = await mod.OPTIONS(new Request("http://easel.test/x", { method: "OPTIONS" }), { params: Promise.resolve({}) });
  const served = (res.headers.get("access-control-allow-methods") ?? "").split(",").map((m) => m.trim()).filter(Boolean);
  const strays: string[] = [];
  for (const method of exportedMethods(mod).filter((m) => m !== "OPTIONS" && !served.includes(m))) {
    const answer = await call(mod[method], bare(method, file));
    if (answer.status !== 405 || answer.body?.errors?.[0]?.extensions?.code !== "method_not_allowed") strays.push(`${method} ${file}: ${answer.status}`);
  }
  return { served, strays };
}

describe("role × route matrix", () => {
  it("has a row for every method of every /v1 and admin route, and no row without a route", async () => {
    const { execSync } = await import("node:child_process");
    const files = execSync("find app/v1 app/api/admin -name route.ts", { encoding: "utf8" }).trim().split("\n");
    const served: string[] = [];
    const strays: string[] = [];
    for (const file of files.filter((f) => !PUBLIC.includes(f))) {
      const methods = await servedMethods(file);
      for (const method of methods.served) served.push(`${method} ${file}`);
      strays.push(...methods.strays);
    }
    expect(served.sort()).toEqual(ROWS.map((r) => `${r.method} ${r.file}`).sort());
    expect(strays).toEqual([]);
  });

  it("leaves out only routes that answer everyone alike: unknown paths (404 route_not_found) and the OpenAPI document", async () => {
    const owner = headersOf.get("owner");
    const wrong: string[] = [];
    for (const file of PUBLIC) {
      const mod = await import(path.resolve(file));
      const methods = exportedMethods(mod);
      expect(methods.length, file).toBeGreaterThan(0);
      for (const method of methods) {
        if (file === OPENAPI && method === "GET") {
          // The document itself is no operation of the document: read it without call()'s check.
          const res: Response = await mod.GET(new Request("http://easel.test/v1/openapi.json", { headers: owner }), { params: Promise.resolve({}) });
          const body = await res.json();
          if (res.status !== 200 || typeof body?.openapi !== "string") wrong.push(`GET ${file}: ${res.status}`);
          continue;
        }
        const answer = await call(mod[method], { ...bare(method, file), headers: owner });
        const code = answer.body?.errors?.[0]?.extensions?.code;
        const ok = file === OPENAPI ? method === "OPTIONS" || (answer.status === 405 && code === "method_not_allowed") : answer.status === 404 && code === "route_not_found";
        if (!ok) wrong.push(`${method} ${file}: ${answer.status} ${code ?? ""}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("answers every cell as contract §11 says", async () => {
    const failures: string[] = [];
    let passes = 0;
    for (const row of ROWS) {
      const mod = await import(path.resolve(row.file));
      for (const person of PEOPLE) {
        const req = row.req(await fixture());
        const res: Answer = await call(mod[row.method], { method: row.method, path: req.path, json: req.json, headers: headersOf.get(person.name), params: req.params });
        const want = expected(person, row);
        const code = res.body?.errors?.[0]?.extensions?.code;
        const scope = res.body?.errors?.[0]?.extensions?.required_scope;
        const ok = want === "passes" ? res.status < 500 && !GATE_CODES.includes(code) : res.status === want.status && code === want.code && scope === want.requiredScope;
        if (want === "passes") passes++;
        if (!ok) failures.push(`${row.method} ${row.file} × ${person.name}: got ${res.status} ${code ?? ""} ${scope ?? ""}, expected ${want === "passes" ? "to pass the gates" : `${want.status} ${want.code} ${want.requiredScope ?? ""}`}`);
      }
    }
    expect(failures).toEqual([]);
    // The table is not all refusals: every person passes somewhere, most cells of the owner pass.
    expect(passes).toBeGreaterThan(ROWS.length);
  }, 240_000);

  it("lists each person only their workspaces", async () => {
    const route = await import(path.resolve(`${W}/route.ts`));
    const slugs = async (name: string) => ((await call(route.GET, { path: "/api/admin/workspaces", headers: headersOf.get(name) })).body.data as { slug: string }[]).map((w) => w.slug);
    expect(await slugs("viewer of A")).toEqual([wsA.slug]);
    expect(await slugs("admin of only B")).toEqual([wsB.slug]);
    expect(await slugs("owner")).toEqual(expect.arrayContaining([wsA.slug, wsB.slug]));
  });
});
