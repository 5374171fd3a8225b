import crypto from "node:crypto";
import { and, eq, isNull, sql } from "drizzle-orm";
import { queryRows, type Db } from "../db";
import { prepared } from "../db/prepared";
import { apiTokens, SCOPES, workspaces, type ApiToken, type Scope, type Workspace } from "../db/schema";
import { DomainError } from "../errors";
import { issuerIsAdmin } from "./creator";

export const API_TOKEN_PREFIX = "easel_";

export function hashToken(raw: string): string {
  return crypto.createHash("sha256").update(raw).digest("hex");
}

export function generateApiToken(): string {
  return API_TOKEN_PREFIX + crypto.randomBytes(24).toString("base64url");
}

export type IssuedToken = { token: string; id: number };

/**
 * Creates an API token for a workspace; the clear token is returned once and never stored. With
 * `createdBy` (a person issuing it from the web UI) the row is written only while that person is
 * an owner or an admin of the workspace (issuerIsAdmin); null when they no longer are.
 */
export async function createApiToken(
  db: Db,
  input: { workspaceId: number; name: string; scopes: Scope[]; webhooks: boolean; now: Date; createdBy: number },
): Promise<IssuedToken | null>;
export async function createApiToken(db: Db, input: { workspaceId: number; name: string; scopes: Scope[]; webhooks: boolean; now: Date }): Promise<IssuedToken>;
export async function createApiToken(
  db: Db,
  input: { workspaceId: number; name: string; scopes: Scope[]; webhooks: boolean; now: Date; createdBy?: number },
): Promise<IssuedToken | null> {
  const token = generateApiToken();
  if (input.createdBy !== undefined) {
    // Written as an array literal, so only known scopes may pass (no quoting needed for those).
    if (!input.scopes.every((s) => (SCOPES as readonly string[]).includes(s))) throw new DomainError("validation_failed", "unknown scope", { field: "scopes" });
    const [issued] = await queryRows<{ id: number }>(
      db,
      sql`insert into api_tokens (workspace_id, name, token_hash, token_prefix, scopes, webhooks, created_by, created_at)
        select ${input.workspaceId}, ${input.name}, ${hashToken(token)}, ${token.slice(0, API_TOKEN_PREFIX.length + 4)},
          ${`{${input.scopes.join(",")}}`}::text[], ${input.webhooks}, ${input.createdBy}, ${input.now.toISOString()}::timestamptz
        where ${issuerIsAdmin(input.workspaceId, input.createdBy)}
        returning id`,
    );
    return issued ? { token, id: Number(issued.id) } : null;
  }
  const [row] = await db
    .insert(apiTokens)
    .values({
      workspaceId: input.workspaceId,
      name: input.name,
      tokenHash: hashToken(token),
      tokenPrefix: token.slice(0, API_TOKEN_PREFIX.length + 4),
      scopes: input.scopes,
      webhooks: input.webhooks,
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
