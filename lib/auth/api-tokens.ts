import crypto from "node:crypto";
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../db";
import { prepared } from "../db/prepared";
import { apiTokens, workspaces, type ApiToken, type Scope, type Workspace } from "../db/schema";

export const API_TOKEN_PREFIX = "easel_";

export function hashToken(raw: string): string {
  return crypto.createHash("sha256").update(raw).digest("hex");
}

export function generateApiToken(): string {
  return API_TOKEN_PREFIX + crypto.randomBytes(24).toString("base64url");
}

export type IssuedToken = { token: string; id: number };

/** Creates an API token for a workspace; the clear token is returned once and never stored. */
export async function createApiToken(
  db: Db,
  input: { workspaceId: number; name: string; scopes: Scope[]; webhooks: boolean; now: Date; createdBy?: number | null },
): Promise<IssuedToken> {
  const token = generateApiToken();
  const [row] = await db
    .insert(apiTokens)
    .values({
      workspaceId: input.workspaceId,
      name: input.name,
      tokenHash: hashToken(token),
      tokenPrefix: token.slice(0, API_TOKEN_PREFIX.length + 4),
      scopes: input.scopes,
      webhooks: input.webhooks,
      createdBy: input.createdBy ?? null,
      createdAt: input.now,
    })
    .returning({ id: apiTokens.id });
  return { token, id: row.id };
}

/** Revokes by clear token; false when no live token matches. */
export async function revokeApiToken(db: Db, raw: string, now: Date): Promise<boolean> {
  const rows = await db
    .update(apiTokens)
    .set({ revokedAt: now })
    .where(and(eq(apiTokens.tokenHash, hashToken(raw)), isNull(apiTokens.revokedAt)))
    .returning({ id: apiTokens.id });
  return rows.length > 0;
}

export type LiveApiToken = { id: number; scopes: Scope[]; webhooks: boolean; prefix: string; workspace: Workspace };

/** One indexed lookup by hash: the token and its workspace, or null when unknown or revoked. */
export async function findLiveApiToken(db: Db, raw: string): Promise<LiveApiToken | null> {
  if (!raw.startsWith(API_TOKEN_PREFIX)) return null;
  const byHash = prepared(db, "live_api_token", (d) =>
    d
      .select({ token: apiTokens, workspace: workspaces })
      .from(apiTokens)
      .innerJoin(workspaces, eq(workspaces.id, apiTokens.workspaceId))
      .where(and(eq(apiTokens.tokenHash, sql.placeholder("hash")), isNull(apiTokens.revokedAt)))
      .limit(1)
      .prepare("live_api_token"),
  );
  const [row] = await byHash.execute({ hash: hashToken(raw) });
  return row ? toLiveApiToken(row.token, row.workspace) : null;
}

export function toLiveApiToken(token: ApiToken, workspace: Workspace): LiveApiToken {
  return { id: token.id, scopes: token.scopes, webhooks: token.webhooks, prefix: token.tokenPrefix, workspace };
}
