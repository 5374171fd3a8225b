import { and, desc, eq, isNull } from "drizzle-orm";
import type { Db } from "../db";
import { apiTokens, users, type ApiToken, type Scope, type Workspace } from "../db/schema";
import { DomainError } from "../errors";
import type { ApiTokenJson } from "../openapi/schemas/members";
import { createApiToken } from "./api-tokens";
import { creatorColumns, toCreatorJson } from "./creator";
import { insufficientRole } from "./roles";

/**
 * An API token as the admin page lists it: never the token itself, only its first characters, and
 * who issued it (their removal from the workspace, or losing its admin role, revokes it).
 */
export type { ApiTokenJson };

type TokenRow = { token: ApiToken; creatorId: number | null; creatorEmail: string | null };

const toJson = ({ token: t, ...creator }: TokenRow): ApiTokenJson => ({
  id: t.id,
  name: t.name,
  prefix: t.tokenPrefix,
  scopes: t.scopes,
  webhooks: t.webhooks,
  created_at: t.createdAt.toISOString(),
  revoked_at: t.revokedAt?.toISOString() ?? null,
  created_by: toCreatorJson(creator),
});

const withCreator = (db: Db) => db.select({ token: apiTokens, ...creatorColumns }).from(apiTokens).leftJoin(users, eq(users.id, apiTokens.createdBy));

/** The workspace's API tokens, newest first, revoked ones included (they stay listed as revoked). */
export async function listApiTokens(db: Db, workspace: Workspace): Promise<ApiTokenJson[]> {
  const rows = await withCreator(db).where(eq(apiTokens.workspaceId, workspace.id)).orderBy(desc(apiTokens.id));
  return rows.map(toJson);
}

/** Issues a token from the admin UI, recording who did; the clear token is in the answer once and never stored. */
export async function issueApiToken(db: Db, input: { workspace: Workspace; name: string; scopes: Scope[]; webhooks: boolean; createdBy: number; now: Date }) {
  if (input.scopes.length === 0) throw new DomainError("validation_failed", "choose at least one scope", { field: "scopes" });
  const issued = await createApiToken(db, {
    workspaceId: input.workspace.id,
    name: input.name,
    scopes: [...new Set(input.scopes)],
    webhooks: input.webhooks,
    createdBy: input.createdBy,
    now: input.now,
  });
  // Authorized at the start of the request, removed or demoted before the row was written.
  if (!issued) throw insufficientRole("manage");
  const [row] = await withCreator(db).where(eq(apiTokens.id, issued.id));
  return { ...toJson(row), token: issued.token };
}

/** Revokes one of the workspace's tokens by id (the admin UI never holds the clear token); revoking twice is a no-op. */
export async function revokeApiTokenById(db: Db, input: { workspace: Workspace; id: number; now: Date }): Promise<ApiTokenJson> {
  const [row] = await withCreator(db).where(and(eq(apiTokens.id, input.id), eq(apiTokens.workspaceId, input.workspace.id)));
  // 422 rather than a 404 code of its own: the error vocabulary (lib/errors.ts) is the API's, and this route is the UI's.
  if (!row) throw new DomainError("validation_failed", "No API token with this id in this workspace", { field: "id" });
  if (row.token.revokedAt) return toJson(row);
  const [updated] = await db
    .update(apiTokens)
    .set({ revokedAt: input.now })
    .where(and(eq(apiTokens.id, row.token.id), isNull(apiTokens.revokedAt)))
    .returning();
  return toJson({ ...row, token: updated ?? row.token });
}
