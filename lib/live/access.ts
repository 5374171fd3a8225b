import { accessTo } from "../auth/authorize";
import type { SessionPrincipal } from "../auth/principal";
import type { Workspace } from "../db/schema";

/**
 * Whether a signed-in person may watch a workspace's changes: read access there, by the one
 * authorization every entry point uses (an owner, or a member in any role).
 */
export function mayWatchWorkspace(principal: SessionPrincipal, workspace: Workspace): boolean {
  return accessTo(principal, workspace.id, "read") === "allowed";
}

/**
 * Whether their stream carries `delivery` messages, which name webhook triggers: only for people
 * who may manage the triggers (contract §11: admins and owners), as the delivery logs are theirs.
 */
export function maySeeDeliveries(principal: SessionPrincipal, workspace: Workspace): boolean {
  return accessTo(principal, workspace.id, "manage") === "allowed";
}
