import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import { signBoardToken } from "../../lib/access-tokens/board-token-jwt";
import { createApiToken } from "../../lib/auth/api-tokens";
import { placeUnder } from "../../lib/boards/tree";
import type { Db } from "../../lib/db";
import { boards, type Plan, type Scope, type StorageKind, type Workspace } from "../../lib/db/schema";
import { getSecret } from "../../lib/secrets";
import { newToken } from "../../lib/tokens";
import { createWorkspace } from "../../lib/workspaces/manage-workspaces";

export const uniq = (prefix = "t") => `${prefix}-${crypto.randomBytes(4).toString("hex")}`;

export async function newWorkspace(db: Db, opts: { plan?: Plan; trialOf?: Plan; storage?: StorageKind } = {}): Promise<Workspace> {
  return createWorkspace(db, { slug: uniq("ws"), plan: opts.plan ?? "team", trialOf: opts.trialOf, storage: opts.storage ?? "s3", now: new Date() });
}

export async function newApiToken(db: Db, ws: Workspace, opts: { scopes?: Scope[]; webhooks?: boolean } = {}): Promise<string> {
  const { token } = await createApiToken(db, { workspaceId: ws.id, name: "test", scopes: opts.scopes ?? ["read", "write"], webhooks: opts.webhooks ?? false, now: new Date() });
  return token;
}

/** A board row straight in the database; under `parentId` it gets its path from the tree's owner (lib/boards/tree.ts). */
export async function newBoard(db: Db, ws: Workspace, opts: { title?: string; parentId?: number; state?: "active" | "archived" | "read_only" | "trashed" } = {}) {
  const now = new Date();
  let parent = null;
  if (opts.parentId !== undefined) {
    [parent] = await db.select().from(boards).where(eq(boards.id, opts.parentId)).limit(1);
    if (!parent) throw new Error(`newBoard: no parent board ${opts.parentId}`);
  }
  const [b] = await db
    .insert(boards)
    .values({ workspaceId: ws.id, token: newToken(), title: opts.title ?? uniq("Board"), ...placeUnder(parent), state: opts.state ?? "active", createdAt: now, updatedAt: now })
    .returning();
  return b;
}

export async function newBoardToken(db: Db, ws: Workspace, boardToken: string, opts: { now?: Date; expiresIn?: number } = {}) {
  const secret = await getSecret(db, "board_token_key");
  const { token } = await signBoardToken(secret, { workspaceId: ws.id, boardToken, now: opts.now ?? new Date(), expiresInSeconds: opts.expiresIn ?? 600 });
  return token;
}

export const MiB = 1024 * 1024;

/** A small valid PNG with random pixels (unique bytes every call). */
export async function randomPng(width = 8, height = 8): Promise<Buffer> {
  const sharp = (await import("sharp")).default;
  return sharp(crypto.randomBytes(width * height * 3), { raw: { width, height, channels: 3 } }).png().toBuffer();
}

export const md5hex = (b: Buffer) => crypto.createHash("md5").update(b).digest("hex");

/** An asset row straight in the database (for read-side tests that need no bytes). */
export async function insertAsset(
  db: Db,
  ws: Workspace,
  opts: { title?: string; description?: string; text?: string; mediaType?: string; size?: number; tags?: string[]; fields?: Record<string, string>; media?: Record<string, unknown>; createdAt?: Date; boardIds?: number[] } = {},
) {
  const { assets, assetBoards } = await import("../../lib/db/schema");
  const at = opts.createdAt ?? new Date();
  const [a] = await db
    .insert(assets)
    .values({
      workspaceId: ws.id,
      token: newToken(),
      title: opts.title ?? uniq("Asset"),
      description: opts.description ?? null,
      text: opts.text ?? null,
      mediaType: opts.mediaType ?? "image/png",
      size: opts.size ?? 1000,
      md5: crypto.randomBytes(16).toString("hex"),
      storageKey: `ws/${ws.id}/originals/${uniq("k")}`,
      tags: opts.tags ?? [],
      fields: opts.fields ?? {},
      media: opts.media ?? {},
      createdAt: at,
      updatedAt: at,
    })
    .returning();
  for (const boardId of opts.boardIds ?? []) await db.insert(assetBoards).values({ assetId: a.id, boardId, createdAt: at });
  return a;
}
