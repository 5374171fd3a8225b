import crypto from "node:crypto";
import { createApiToken } from "../../lib/auth/api-tokens";
import { signBoardToken } from "../../lib/access-tokens/board-token-jwt";
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

export async function newBoard(db: Db, ws: Workspace, opts: { title?: string; parentId?: number; state?: "active" | "archived" | "read_only" | "trashed" } = {}) {
  const now = new Date();
  const [b] = await db
    .insert(boards)
    .values({ workspaceId: ws.id, token: newToken(), title: opts.title ?? uniq("Board"), parentId: opts.parentId ?? null, state: opts.state ?? "active", createdAt: now, updatedAt: now })
    .returning();
  return b;
}

export async function newBoardToken(db: Db, ws: Workspace, boardToken: string, opts: { now?: Date; expiresIn?: number } = {}) {
  const secret = await getSecret(db, "board_token_key");
  const { token } = await signBoardToken(secret, { workspaceId: ws.id, boardToken, now: opts.now ?? new Date(), expiresInSeconds: opts.expiresIn ?? 600 });
  return token;
}
