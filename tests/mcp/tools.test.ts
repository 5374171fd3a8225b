import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { eq } from "drizzle-orm";
import { encode } from "next-auth/jwt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as route from "../../app/mcp/route";
import { authSecret } from "../../lib/auth/session-principal";
import { createAdminUser } from "../../lib/auth/users";
import { assets, type Board, type Plan, type Thumbnail, type Workspace } from "../../lib/db/schema";
import { useTestDeps } from "../helpers/deps";
import { newApiToken, newBoard, newBoardToken, newWorkspace, randomPng } from "../helpers/factories";
import { uploadAsset } from "../helpers/uploads";
import { patch, versions, writeBytes } from "../helpers/versions";
import { callTool, connect, initializeMessage, ok, rawPost, toolError } from "./helpers/client";

let deps: Awaited<ReturnType<typeof useTestDeps>>;
const day = 86_400_000;
const SESSION_COOKIE = "authjs.session-token";
const READ_TOOLS = ["list_asset_versions", "get_asset"];
const WRITE_TOOLS = ["revert_asset", "edit_asset_version_comment", "create_asset_version", "retry_video_processing"];

type Ctx = { ws: Workspace; token: string; board: Board; client: Client; readClient: Client };
const clients: Client[] = [];
async function open(token: string) {
  const client = await connect(token);
  clients.push(client);
  return client;
}
async function workspace(plan: Plan = "team"): Promise<Ctx> {
  const ws = await newWorkspace(deps.db, { plan });
  const token = await newApiToken(deps.db, ws, { scopes: ["read", "write"] });
  const readToken = await newApiToken(deps.db, ws, { scopes: ["read"] });
  return { ws, token, board: await newBoard(deps.db, ws), client: await open(token), readClient: await open(readToken) };
}
async function newAsset(c: Ctx, onBoard = true) {
  const bytes = await randomPng();
  return (await uploadAsset(c.ws, c.token, deps.store.s3, bytes, onBoard ? { collection_token: c.board.token } : {})).asset;
}
/** An asset with stored versions 1..n (each a new upload). */
async function versioned(c: Ctx, n: number) {
  const asset = await newAsset(c);
  for (let i = 0; i < n; i++) expect((await writeBytes(c.ws, c.token, deps.store.s3, asset.token, await randomPng())).status).toBe(200);
  return asset;
}
const at = (c: Ctx, asset: { token: string }, extra: Record<string, unknown> = {}) => ({ organization: c.ws.slug, asset_token: asset.token, ...extra });

let team: Ctx;
beforeAll(async () => {
  deps = await useTestDeps();
  team = await workspace("team");
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
});

describe("HTTP: the endpoint and its authentication", () => {
  it("no token: 401 with a bare Bearer challenge, in the error envelope", async () => {
    const res = await rawPost({}, initializeMessage);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="easel"');
    expect(await res.json()).toMatchObject({ errors: [{ extensions: { code: "unauthenticated" } }] });
    await expect(connect(null)).rejects.toMatchObject({ code: 401 });
  });

  it("an unknown or revoked token: 401 invalid_token", async () => {
    const res = await rawPost({ authorization: "Bearer easel_not_a_real_token" }, initializeMessage);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer realm="easel", error="invalid_token", error_description="[^"]+"$/);
    await expect(connect("easel_not_a_real_token")).rejects.toMatchObject({ code: 401 });
  });

  it("the web UI's session cookie is not a credential here: 401 without a Bearer token", async () => {
    const user = await createAdminUser(deps.db, { email: `mcp-${team.ws.slug}@easel.test`, password: "correct horse", now: new Date() });
    const value = await encode({ token: { sub: String(user.id), email: user.email }, secret: await authSecret(deps.db), salt: SESSION_COOKIE, maxAge: 3600 });
    const res = await rawPost({ cookie: `${SESSION_COOKIE}=${value}`, "sec-fetch-site": "same-origin" }, initializeMessage);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="easel"');
  });

  it("a board access token: 403 board_scoped_token", async () => {
    const boardToken = await newBoardToken(deps.db, team.ws, team.board.token);
    const res = await rawPost({ authorization: `Bearer ${boardToken}` }, initializeMessage);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ errors: [{ extensions: { code: "board_scoped_token" } }] });
  });

  it("stateless: GET and DELETE answer 405 with Allow: POST; OPTIONS is a CORS preflight; responses carry rate headers", async () => {
    for (const method of ["GET", "DELETE"] as const) {
      const res = await route[method](new Request("http://easel.test/mcp", { method, headers: { authorization: `Bearer ${team.token}` } }));
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
    }
    const pre = await route.OPTIONS();
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-headers")).toMatch(/Mcp-Protocol-Version/);
    const res = await rawPost({ authorization: `Bearer ${team.token}` }, initializeMessage);
    expect(res.status).toBe(200);
    expect(res.headers.get("mcp-session-id")).toBeNull();
    expect(res.headers.get("ratelimit-limit")).toMatch(/^\d+$/);
  });

  it("initialize: server info, the tools capability and instructions for the assistant", async () => {
    const client = team.client;
    expect(client.getServerVersion()).toMatchObject({ name: "easel" });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(client.getInstructions()).toMatch(/head_version_number/);
  });
});

describe("tools/list follows the token's scopes", () => {
  it("read + write: every tool, with schemas, descriptions and annotations", async () => {
    const { tools } = await team.client.listTools();
    expect(tools.map((t) => t.name)).toEqual([...READ_TOOLS, ...WRITE_TOOLS]);
    for (const t of tools) {
      expect(t.description!.length).toBeGreaterThan(150);
      expect(t.inputSchema).toMatchObject({ type: "object", required: expect.arrayContaining(["organization", "asset_token"]) });
      expect(t.annotations?.readOnlyHint).toBe(READ_TOOLS.includes(t.name));
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.revert_asset.annotations).toMatchObject({ destructiveHint: false, idempotentHint: true });
    expect(byName.edit_asset_version_comment.annotations).toMatchObject({ destructiveHint: true, idempotentHint: true });
    expect(byName.create_asset_version.annotations).toMatchObject({ destructiveHint: false, idempotentHint: false, openWorldHint: true });
    expect(byName.create_asset_version.description).toMatch(/do not blind-retry/);
    expect(byName.revert_asset.inputSchema.properties).toMatchObject({ version_number: { type: "integer", minimum: 1 } });
    expect(byName.create_asset_version.inputSchema.required).toEqual(expect.arrayContaining(["url"]));
  });

  it("read only: the read tools; a write tool called anyway answers insufficient_scope", async () => {
    const { tools } = await team.readClient.listTools();
    expect(tools.map((t) => t.name)).toEqual(READ_TOOLS);
    const asset = await versioned(team, 1);
    for (const [name, args] of [
      ["revert_asset", { version_number: 1 }],
      ["edit_asset_version_comment", { version_number: 1, comment: "x" }],
      ["create_asset_version", { url: "https://example.com/a.png" }],
    ] as const) {
      const error = toolError(await callTool(team.readClient, name, at(team, asset, args)), "insufficient_scope");
      expect(error.required_scope).toBe("write");
    }
    expect((await versions(team.ws, team.token, asset.token)).body.head_version_number).toBe(2);
  });

  it("write only: the write tools; a read tool answers insufficient_scope", async () => {
    const client = await open(await newApiToken(deps.db, team.ws, { scopes: ["write"] }));
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(WRITE_TOOLS);
    const asset = await newAsset(team);
    expect(toolError(await callTool(client, "get_asset", at(team, asset)), "insufficient_scope").required_scope).toBe("read");
  });

  it("an unknown tool is a protocol error, not a tool result", async () => {
    await expect(team.client.callTool({ name: "delete_everything", arguments: {} })).rejects.toBeInstanceOf(McpError);
  });
});

describe("list_asset_versions", () => {
  it("newest first with head_version_number and pagination, the REST list's shape", async () => {
    const asset = await versioned(team, 3);
    const all = ok(await callTool(team.client, "list_asset_versions", at(team, asset)));
    expect(all.head_version_number).toBe(4);
    expect(all.data.map((v: { version_number: number }) => v.version_number)).toEqual([3, 2, 1]);
    expect(all.pagy).toMatchObject({ current_page: 1, total_count: 3 });
    const rest = (await versions(team.ws, team.token, asset.token)).body;
    expect(all).toEqual(rest);
    const second = ok(await callTool(team.client, "list_asset_versions", at(team, asset, { page: 2, per_page: 1 })));
    expect(second.data.map((v: { version_number: number }) => v.version_number)).toEqual([2]);
    expect(second.pagy).toMatchObject({ current_page: 2, page_items: 1, total_pages: 3, total_count: 3 });
  });

  it("an asset never versioned: head 1 and no versions", async () => {
    const asset = await newAsset(team);
    expect(ok(await callTool(team.readClient, "list_asset_versions", at(team, asset)))).toMatchObject({ data: [], head_version_number: 1 });
  });

  it("unknown asset, another tenant's workspace, bad paging: coded tool errors", async () => {
    toolError(await callTool(team.client, "list_asset_versions", { organization: team.ws.slug, asset_token: "nope" }), "asset_not_found");
    const other = await newWorkspace(deps.db);
    const asset = await newAsset(team);
    toolError(await callTool(team.client, "list_asset_versions", { organization: other.slug, asset_token: asset.token }), "workspace_not_found");
    expect(toolError(await callTool(team.client, "list_asset_versions", at(team, asset, { per_page: 500 })), "validation_failed").field).toBe("per_page");
    expect(toolError(await callTool(team.client, "list_asset_versions", { asset_token: asset.token }), "validation_failed").field).toBe("organization");
  });

  it("thumbnails: [] for versions past the revert window on a free workspace (REST keeps watermarked previews)", async () => {
    const free = await workspace("free");
    const asset = await newAsset(free);
    const thumbs: Thumbnail[] = [
      { size: "small", key: "t/s", width: 160, height: 120 },
      { size: "large", key: "t/l", width: 1280, height: 960 },
    ];
    await deps.db.update(assets).set({ thumbnails: thumbs }).where(eq(assets.token, asset.token));
    expect((await patch(free.ws, free.token, asset.token, { create_version: true, title: "Second" })).body.head_version_number).toBe(2);
    deps.time.advance(8 * day);
    try {
      expect((await patch(free.ws, free.token, asset.token, { create_version: true, title: "Third" })).body.head_version_number).toBe(3);
      const list = ok(await callTool(free.readClient, "list_asset_versions", at(free, asset)));
      const [v2, v1] = list.data;
      expect(v2).toMatchObject({ version_number: 2, revertable: true, primary_storage_id: expect.any(String) });
      expect(v2.thumbnails.map((t: { size: string }) => t.size)).toEqual(["small", "large"]);
      expect(v1).toMatchObject({ version_number: 1, revertable: false, primary_storage_id: null, thumbnails: [] });
      const rest = (await versions(free.ws, free.token, asset.token)).body.data[1];
      expect(rest.thumbnails.map((t: { width: number }) => t.width)).toEqual([160, 320]);
    } finally {
      deps.time.reset();
    }
  });
});

describe("get_asset", () => {
  it("the asset as REST presents it, and asset_not_found", async () => {
    const asset = await newAsset(team);
    const got = ok(await callTool(team.readClient, "get_asset", at(team, asset)));
    expect(got.data).toMatchObject({ token: asset.token, md5: asset.md5, head_version_number: 1, boards: [team.board.token] });
    expect(got.data.display_url).toMatch(/^http:\/\/easel\.test\/media\//);
    toolError(await callTool(team.readClient, "get_asset", { organization: team.ws.slug, asset_token: "missing" }), "asset_not_found");
  });
});

describe("retry_video_processing and encode on read", () => {
  /** A video asset row (processing already ran) on the context's board. */
  async function video(c: Ctx, fields: Partial<typeof assets.$inferInsert> = {}) {
    const asset = await newAsset(c);
    await deps.db.update(assets).set({ mediaType: "video/mp4", media: { width: 320, height: 240, durationSeconds: 3 }, ...fields }).where(eq(assets.token, asset.token));
    return asset;
  }

  it("queues an encode, and refuses not_a_video and encode_already_finished", async () => {
    const asset = await video(team, { encodeStatus: "failed", encodeError: "boom" });
    deps.jobs.clear();
    const res = ok(await callTool(team.client, "retry_video_processing", at(team, asset)));
    expect(res.data.encode_status).toBe("queued");
    expect(deps.jobs.sent.map((e) => e.name)).toEqual(["encode/video.requested"]);
    toolError(await callTool(team.client, "retry_video_processing", at(team, await newAsset(team))), "not_a_video");
    const done = await video(team, { encodeStatus: "ready", streamKey: "ws/x/stream/master.m3u8" });
    toolError(await callTool(team.client, "retry_video_processing", at(team, done)), "encode_already_finished");
    toolError(await callTool(team.readClient, "retry_video_processing", at(team, asset)), "insufficient_scope");
  });

  it("get_asset starts a video's encode on a plan that encodes on first read, like GET over REST", async () => {
    const free = await workspace("free");
    const asset = await video(free);
    deps.jobs.clear();
    const got = ok(await callTool(free.readClient, "get_asset", at(free, asset)));
    expect(got.data.encode_status).toBe("queued");
    expect(deps.jobs.sent.map((e) => e.name)).toEqual(["encode/video.requested"]);
  });
});

describe("revert_asset", () => {
  it("restores version N (head + 1, comment on the replaced head); a retry is a no-op", async () => {
    const asset = await versioned(team, 2);
    deps.jobs.clear();
    const res = ok(await callTool(team.client, "revert_asset", at(team, asset, { version_number: 1, comment: "undo" })));
    expect(res).toMatchObject({ head_version_number: 4, data: { md5: asset.md5, head_version_number: 4 } });
    expect(deps.jobs.sent.map((e) => e.name)).toEqual(["asset/changed"]);
    const again = ok(await callTool(team.client, "revert_asset", at(team, asset, { version_number: 1 })));
    expect(again.head_version_number).toBe(4);
    const list = (await versions(team.ws, team.token, asset.token)).body;
    expect(list.data[0]).toMatchObject({ version_number: 3, comment: "undo" });
    expect(list.data).toHaveLength(3);
  });

  it("version_not_found and invalid_version_number, as over REST", async () => {
    const asset = await versioned(team, 1);
    toolError(await callTool(team.client, "revert_asset", at(team, asset, { version_number: 9 })), "version_not_found");
    for (const bad of [0, -1, 1.5, "1", null]) {
      const error = toolError(await callTool(team.client, "revert_asset", at(team, asset, { version_number: bad })), "invalid_version_number");
      expect(error.field).toBe("version_number");
    }
  });

  it("revert_window_exceeded past 7 days on free, with revert_window_days", async () => {
    const free = await workspace("free");
    const asset = await versioned(free, 1);
    deps.time.advance(8 * day);
    try {
      const error = toolError(await callTool(free.client, "revert_asset", at(free, asset, { version_number: 1 })), "revert_window_exceeded");
      expect(error.revert_window_days).toBe(7);
    } finally {
      deps.time.reset();
    }
  });

  it("versioning_not_enabled on creative; version_write_forbidden off any active board", async () => {
    const creative = await workspace("creative");
    const asset = await newAsset(creative);
    toolError(await callTool(creative.client, "revert_asset", at(creative, asset, { version_number: 1 })), "versioning_not_enabled");
    const loose = await newAsset(team, false);
    toolError(await callTool(team.client, "revert_asset", at(team, loose, { version_number: 1 })), "version_write_forbidden");
  });

  it("version_blob_missing when the stored file is gone", async () => {
    const asset = await versioned(team, 1);
    await deps.store.s3.remove(asset.primary_storage_id);
    toolError(await callTool(team.client, "revert_asset", at(team, asset, { version_number: 1 })), "version_blob_missing");
  });
});

describe("edit_asset_version_comment", () => {
  it("edits and clears the note of a stored version; content and head unchanged", async () => {
    const asset = await versioned(team, 2);
    const res = ok(await callTool(team.client, "edit_asset_version_comment", at(team, asset, { version_number: 1, comment: "the original" })));
    expect(res).toMatchObject({ head_version_number: 3, version: { version_number: 1, comment: "the original" } });
    expect((await versions(team.ws, team.token, asset.token)).body.data[1]).toMatchObject({ version_number: 1, comment: "the original" });
    const cleared = ok(await callTool(team.client, "edit_asset_version_comment", at(team, asset, { version_number: 1, comment: "" })));
    expect(cleared.version).toEqual({ version_number: 1, comment: null });
    expect((await versions(team.ws, team.token, asset.token)).body.data[1].comment).toBeNull();
  });

  it("the head itself and numbers above it are version_not_found; bad numbers invalid_version_number; creative refused", async () => {
    const asset = await versioned(team, 1);
    toolError(await callTool(team.client, "edit_asset_version_comment", at(team, asset, { version_number: 2, comment: "x" })), "version_not_found");
    toolError(await callTool(team.client, "edit_asset_version_comment", at(team, asset, { version_number: 0, comment: "x" })), "invalid_version_number");
    expect(toolError(await callTool(team.client, "edit_asset_version_comment", at(team, asset, { version_number: 1 })), "validation_failed").field).toBe("comment");
    const creative = await workspace("creative");
    const other = await newAsset(creative);
    toolError(await callTool(creative.client, "edit_asset_version_comment", at(creative, other, { version_number: 1, comment: "x" })), "versioning_not_enabled");
  });
});

describe("errors from the ports", () => {
  it("a DomainError keeps its code; anything else is a generic internal error without the internal message", async () => {
    const asset = await versioned(team, 1);
    const storage = deps.store.s3;
    storage.down = true;
    try {
      toolError(await callTool(team.client, "revert_asset", at(team, asset, { version_number: 1 })), "storage_unavailable");
    } finally {
      storage.down = false;
    }
    const head = storage.head;
    storage.head = async () => {
      throw new Error("connect ECONNREFUSED 10.1.2.3:9000");
    };
    try {
      const error = toolError(await callTool(team.client, "revert_asset", at(team, asset, { version_number: 1 })), "internal");
      expect(error.message).not.toMatch(/ECONNREFUSED|10\.1\.2\.3/);
      expect(error.message).toMatch(/check the asset/);
    } finally {
      storage.head = head;
    }
    expect((await versions(team.ws, team.token, asset.token)).body.head_version_number).toBe(2);
  });
});
