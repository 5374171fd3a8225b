import type { Scope, WorkspaceRole } from "../db/schema";
import { DomainError, notFound, type ErrorCode } from "../errors";
import type { Principal, SessionPrincipal } from "./principal";

type NotFoundCode = Extract<ErrorCode, `${string}_not_found`>;

/**
 * What a role may do in a workspace (contract §11), as one table: `read` (browse, search, play,
 * see versions), `write` (upload, edit, version writes, revert, comments, boards) and `manage`
 * (API tokens, webhook triggers, workspace settings, members). Owners may do everything everywhere.
 */
export type Operation = "read" | "write" | "manage";
export type EffectiveRole = WorkspaceRole | "owner";

const ALLOWED: Record<EffectiveRole, readonly Operation[]> = {
  viewer: ["read"],
  editor: ["read", "write"],
  admin: ["read", "write", "manage"],
  owner: ["read", "write", "manage"],
};

export function roleAllows(role: EffectiveRole, operation: Operation): boolean {
  return ALLOWED[role].includes(operation);
}

/** The /v1 scopes a role acts with: viewer = read, editor and admin = read,write. */
export function roleScopes(role: EffectiveRole): Scope[] {
  return roleAllows(role, "write") ? ["read", "write"] : ["read"];
}

/** A signed-in person's role in a workspace: "owner" for owners, the membership's role, or null (not a member). */
export function sessionRole(principal: SessionPrincipal, workspaceId: number): EffectiveRole | null {
  if (principal.owner) return "owner";
  return principal.roles.get(workspaceId) ?? null;
}

/** Whether a principal may see that a workspace exists at all (else it reads as not found). */
export function seesWorkspace(principal: Principal, workspaceId: number): boolean {
  if (principal.kind === "api") return principal.workspace.id === workspaceId;
  if (principal.kind === "board") return principal.workspaceId === workspaceId;
  return sessionRole(principal, workspaceId) !== null;
}

export type Access = "allowed" | "forbidden" | "hidden";

/**
 * May `principal` do `operation` in the workspace? "hidden" when the workspace is not theirs
 * (answered as not found, so its existence is not revealed), "forbidden" when it is but the
 * role, scopes or token kind do not allow the operation. Tokens keep their own rules: scopes for
 * read and write; `manage` belongs to people (tokens' webhook permission is checked by /v1).
 */
export function accessTo(principal: Principal, workspaceId: number, operation: Operation): Access {
  if (!seesWorkspace(principal, workspaceId)) return "hidden";
  switch (principal.kind) {
    case "session":
      return roleAllows(sessionRole(principal, workspaceId)!, operation) ? "allowed" : "forbidden";
    case "api":
      return operation !== "manage" && principal.scopes.includes(operation) ? "allowed" : "forbidden";
    case "board":
      return operation === "read" ? "allowed" : "forbidden";
  }
}

/**
 * The refusal of an operation the role does not allow: 403 insufficient_scope with
 * `extensions.required_scope`, as contract §1 attaches to every such refusal. Read and write name
 * the scope as tokens' refusals do; `manage` is no token scope but the admin role's part (§11), so
 * the message names the role.
 */
export function insufficientRole(operation: Operation): DomainError {
  const message = operation === "manage" ? "This needs the admin role in the workspace" : `Your role lacks the ${operation} scope`;
  return new DomainError("insufficient_scope", message, { required_scope: operation });
}

/** Throws unless allowed: `hidden` as a 404 (workspace_not_found unless the caller names what it looked up), `forbidden` as 403 insufficient_scope. */
export function requireAccess(principal: Principal, workspaceId: number, operation: Operation, hidden: [NotFoundCode, string] = ["workspace_not_found", "Workspace"]): void {
  const access = accessTo(principal, workspaceId, operation);
  if (access === "hidden") throw notFound(hidden[0], hidden[1]);
  if (access === "forbidden") throw insufficientRole(operation);
}

/** Whether a person may manage some workspace (owner, or admin of at least one): routes without a workspace in the path (webhook triggers) ask this first. */
export function managesAnyWorkspace(principal: SessionPrincipal): boolean {
  return principal.owner || [...principal.roles.values()].some((role) => roleAllows(role, "manage"));
}
