import type { Scope, Workspace } from "../db/schema";

/** Who is calling. Route gates (lib/http/with-api.ts) decide what each kind may do. */
export type ApiPrincipal = { kind: "api"; tokenId: number; scopes: Scope[]; webhooks: boolean; prefix: string; workspace: Workspace };
export type BoardPrincipal = { kind: "board"; jti: string; workspaceId: number; boardToken: string; expiresAt: Date };
/** A signed-in admin of the web UI: acts in every workspace with read and write. */
export type SessionPrincipal = { kind: "session"; userId: number; email: string };
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
