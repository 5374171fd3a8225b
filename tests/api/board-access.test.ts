import { beforeAll, describe, expect, it } from "vitest";
import * as mediaRoute from "../../app/media/[...path]/route";
import * as boardRoute from "../../app/v1/[slug]/boards/[boardToken]/route";
import { signBoardToken } from "../../lib/access-tokens/board-token-jwt";
import { createApiToken, revokeApiToken } from "../../lib/auth/api-tokens";
import type { ApiPrincipal, BoardPrincipal, SessionPrincipal } from "../../lib/auth/principal";
import { verifyBoardAccess } from "../../lib/auth/verify-board-access";
import { assetVisibleTo, canSee } from "../../lib/boards/visibility";
import { type Asset, type Board, type Workspace } from "../../lib/db/schema";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { expectError } from "../helpers/envelopes";
import { insertAsset, newBoard, newBoardToken, newWorkspace } from "../helpers/factories";
import { rawPost, initializeMessage } from "../mcp/helpers/client";

// One board access token check (lib/auth/verify-board-access.ts) and one visibility rule
// (lib/boards/visibility.ts), seen directly and through the three ways in: /v1, MCP and media links.

let deps: Awaited<ReturnType<typeof useTestDeps>>;
let ws: Workspace;
let other: Workspace;
let root: Board; // the token's board
let child: Board;
let grandchild: Board;
let sibling: Board;
let elsewhere: Board; // a board of the other workspace
let onGrandchild: Asset;
let onSibling: Asset;
let onBoth: Asset;
let onNoBoard: Asset;
let ofOther: Asset;
const minute = 60_000;

/** An asset row on these boards, its original stored (so media answers 200 once authorised). */
async function placed(w: Workspace, ...on: Board[]) {
  const asset = await insertAsset(deps.db, w, { size: 4, boardIds: on.map((b) => b.id) });
  await deps.store[w.storageKind].write(asset.storageKey, Buffer.from("png!"), "image/png");
  return asset;
}

beforeAll(async () => {
  deps = await useTestDeps();
  ws = await newWorkspace(deps.db);
  other = await newWorkspace(deps.db);
  root = await newBoard(deps.db, ws);
  child = await newBoard(deps.db, ws, { parentId: root.id });
  grandchild = await newBoard(deps.db, ws, { parentId: child.id });
  sibling = await newBoard(deps.db, ws);
  elsewhere = await newBoard(deps.db, other);
  onGrandchild = await placed(ws, grandchild);
  onSibling = await placed(ws, sibling);
  onBoth = await placed(ws, sibling, child);
  onNoBoard = await placed(ws);
  ofOther = await placed(other, elsewhere);
});

const getBoard = (token: string, slug: string, boardToken: string) =>
  call(boardRoute.GET, { path: `/v1/${slug}/boards/${boardToken}`, token, params: { slug, boardToken } });

/** The asset's original through the media route with `?token=` (the link form board-token pages use). */
async function media(asset: Asset, token: string) {
  const url = new URL(`http://easel.test/media/${asset.token}/original?token=${encodeURIComponent(token)}`);
  const res = await mediaRoute.GET(new Request(url), { params: Promise.resolve({ path: [asset.token, "original"] }) });
  return res.status;
}

/** A board principal as authenticate makes it, for the target-only form of the check. */
async function principalOf(token: string): Promise<BoardPrincipal> {
  const access = await verifyBoardAccess(deps, token);
  if (!access.ok) throw new Error(`expected a valid board token, got ${access.reason}`);
  return access.principal;
}

describe("verifyBoardAccess", () => {
  it("accepts a live token for its own board and every board under it, with the claims as principal", async () => {
    const token = await newBoardToken(deps.db, ws, root.token);
    for (const board of [root, child, grandchild]) {
      const access = await verifyBoardAccess(deps, token, { workspaceId: ws.id, board });
      expect(access).toMatchObject({ ok: true, principal: { kind: "board", workspaceId: ws.id, boardToken: root.token } });
    }
    // The same answers for a principal verified earlier in the request (no signature check again).
    const principal = await principalOf(token);
    expect((await verifyBoardAccess(deps, principal, { workspaceId: ws.id, board: grandchild })).ok).toBe(true);
  });

  it("refuses a sub-board's token on its parent and on a sibling: outside_subtree", async () => {
    const token = await newBoardToken(deps.db, ws, child.token);
    expect(await verifyBoardAccess(deps, token, { workspaceId: ws.id, board: root })).toEqual({ ok: false, reason: "outside_subtree" });
    expect(await verifyBoardAccess(deps, token, { workspaceId: ws.id, board: sibling })).toEqual({ ok: false, reason: "outside_subtree" });
    expect((await verifyBoardAccess(deps, token, { workspaceId: ws.id, board: grandchild })).ok).toBe(true);
  });

  it("refuses another workspace, by workspace and by board: other_workspace", async () => {
    const token = await newBoardToken(deps.db, ws, root.token);
    expect(await verifyBoardAccess(deps, token, { workspaceId: other.id })).toEqual({ ok: false, reason: "other_workspace" });
    expect(await verifyBoardAccess(deps, token, { board: elsewhere })).toEqual({ ok: false, reason: "other_workspace" });
  });

  it("refuses an expired token (Easel's clock, no tolerance) and a forged one", async () => {
    const now = deps.clock();
    const expired = await newBoardToken(deps.db, ws, root.token, { now: new Date(now.getTime() - 2 * minute), expiresIn: 60 });
    expect(await verifyBoardAccess(deps, expired)).toEqual({ ok: false, reason: "expired" });
    const live = await newBoardToken(deps.db, ws, root.token, { expiresIn: 60 });
    expect((await verifyBoardAccess(deps, live)).ok).toBe(true);
    deps.time.advance(61_000);
    try {
      expect(await verifyBoardAccess(deps, live)).toEqual({ ok: false, reason: "expired" });
    } finally {
      deps.time.reset();
    }
    const forged = (await signBoardToken("not-the-instance-key", { workspaceId: ws.id, boardToken: root.token, now, expiresInSeconds: 600 })).token;
    expect(await verifyBoardAccess(deps, forged)).toEqual({ ok: false, reason: "invalid" });
    expect(await verifyBoardAccess(deps, `${live.slice(0, -2)}xx`)).toEqual({ ok: false, reason: "invalid" });
  });

  it("is not revoked by revoking the API token that minted it (it stands alone until it expires)", async () => {
    const { token: api } = await createApiToken(deps.db, { workspaceId: ws.id, name: "minter", scopes: ["read"], webhooks: false, now: new Date() });
    const token = await newBoardToken(deps.db, ws, root.token);
    expect(await revokeApiToken(deps.db, api, new Date())).toBe(true);
    expect((await verifyBoardAccess(deps, token, { workspaceId: ws.id, board: child })).ok).toBe(true);
  });
});

describe("the same answers through /v1, MCP and media links", () => {
  it("a sub-board inside the subtree: /v1 board 200, media of an asset on it 200", async () => {
    const token = await newBoardToken(deps.db, ws, root.token);
    expect((await getBoard(token, ws.slug, grandchild.token)).status).toBe(200);
    expect(await media(onGrandchild, token)).toBe(200);
  });

  it("a board outside the subtree: /v1 404 board_not_found, media 401", async () => {
    const token = await newBoardToken(deps.db, ws, child.token);
    expectError(await getBoard(token, ws.slug, sibling.token), 404, "board_not_found");
    expectError(await getBoard(token, ws.slug, root.token), 404, "board_not_found");
    expect(await media(onSibling, token)).toBe(401);
    expect(await media(onBoth, token)).toBe(200); // one of its boards is inside: visible
  });

  it("another workspace: /v1 404 workspace_not_found, media 401", async () => {
    const token = await newBoardToken(deps.db, ws, root.token);
    expectError(await getBoard(token, other.slug, elsewhere.token), 404, "workspace_not_found");
    expect(await media(ofOther, token)).toBe(401);
  });

  it("expired: /v1 401, MCP 401, media 401", async () => {
    const expired = await newBoardToken(deps.db, ws, root.token, { now: new Date(Date.now() - 2 * minute), expiresIn: 60 });
    const v1 = await getBoard(expired, ws.slug, root.token);
    expectError(v1, 401, "unauthenticated");
    expect(v1.body.errors[0].message).toBe("The board access token has expired");
    const mcp = await rawPost({ authorization: `Bearer ${expired}` }, initializeMessage);
    expect(mcp.status).toBe(401);
    expect(await media(onGrandchild, expired)).toBe(401);
  });
});

describe("assetVisibleTo and canSee", () => {
  it("an API token sees every asset of its workspace and none of another", async () => {
    const api: ApiPrincipal = { kind: "api", tokenId: 0, scopes: ["read"], webhooks: false, prefix: "easel_x", workspace: ws };
    for (const asset of [onGrandchild, onSibling, onNoBoard]) expect(await assetVisibleTo(deps.db, api, asset)).toBe(true);
    expect(await assetVisibleTo(deps.db, api, ofOther)).toBe(false);
  });

  it("a board access token sees assets on at least one board of its subtree, nothing else", async () => {
    const principal = await principalOf(await newBoardToken(deps.db, ws, child.token));
    expect(await assetVisibleTo(deps.db, principal, onGrandchild)).toBe(true);
    expect(await assetVisibleTo(deps.db, principal, onBoth)).toBe(true);
    expect(await assetVisibleTo(deps.db, principal, onSibling)).toBe(false);
    expect(await assetVisibleTo(deps.db, principal, onNoBoard)).toBe(false);
    expect(await assetVisibleTo(deps.db, principal, ofOther)).toBe(false);
    expect(await canSee(deps.db, ws, principal, grandchild)).toBe(true);
    expect(await canSee(deps.db, ws, principal, root)).toBe(false);
  });

  it("a person signed in sees every asset", async () => {
    const session: SessionPrincipal = { kind: "session", userId: 1, email: "admin@easel.test", owner: true, roles: new Map() };
    for (const asset of [onGrandchild, onNoBoard, ofOther]) expect(await assetVisibleTo(deps.db, session, asset)).toBe(true);
  });
});
