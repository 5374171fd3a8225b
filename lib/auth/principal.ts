import type { Scope, Workspace, WorkspaceRole } from "../db/schema";

/** Who is calling. Route gates (lib/http/with-api.ts) decide what each kind may do. */
export type ApiPrincipal = { kind: "api"; tokenId: number; scopes: Scope[]; webhooks: boolean; prefix: string; workspace: Workspace };
export type BoardPrincipal = { kind: "board"; jti: string; workspaceId: number; boardToken: string; expiresAt: Date };
/**
 * A person signed in to the web UI, read from the database on every request (never from the
 * session cookie's claims): an owner acts in every workspace with every right; anyone else only
 * in the workspaces of `roles` (workspace id → role), as lib/auth/roles.ts says.
 */
export type SessionPrincipal = { kind: "session"; userId: number; email: string; owner: boolean; roles: ReadonlyMap<number, WorkspaceRole> };
export type Principal = ApiPrincipal | BoardPrincipal | SessionPrincipal;

/** Rate-limit bucket and idempotency namespace of a principal. */
export function principalKey(p: Principal): string {
  switch (p.kind) {
    case "api":
      return `api:${p.tokenId}`;
    case "board":
      return `board:${p.jti}`;
    case "session":
      return `user:${p.userId}`;
  }
}

/**
 * Whether a token holds a scope. A person's scopes depend on the workspace (their role there), so
 * a session passes here and lib/auth/authorize.ts decides once the workspace is known: a workspace
 * that is not theirs must answer 404 before any 403 could tell them it exists.
 */
export function hasScope(p: Principal, scope: Scope): boolean {
  if (p.kind === "session") return true;
  if (p.kind === "board") return scope === "read";
  return p.scopes.includes(scope);
}

/** The token string recorded as a version's creator (created_by_token): never the secret itself. */
export function creatorLabel(p: Principal): string {
  switch (p.kind) {
    case "api":
      return p.prefix;
    case "board":
      return `board:${p.jti}`;
    case "session":
      return `user:${p.email}`;
  }
}
