import type { SessionPrincipal } from "../auth/principal";
import type { Workspace } from "../db/schema";

/**
 * Whether a signed-in session may watch a workspace's changes: the one access check of live
 * updates. Every session may read every workspace today; a role check replaces this body.
 */
export function mayWatchWorkspace(_principal: SessionPrincipal, _workspace: Workspace): boolean {
  return true;
}
