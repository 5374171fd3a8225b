import { and, eq, isNull } from "drizzle-orm";
import type { Principal } from "../auth/principal";
import { requireAccess } from "../auth/roles";
import type { DbOrTx } from "../db";
import { boards, triggers, workspaces } from "../db/schema";
import { notFound } from "../errors";
import type { TriggerView } from "./present";

/** Triggers with their workspace slug and board token. */
export function selectTriggerViews(db: DbOrTx) {
  return db
    .select({ trigger: triggers, organizationSlug: workspaces.slug, collectionToken: boards.token })
    .from(triggers)
    .innerJoin(workspaces, eq(workspaces.id, triggers.workspaceId))
    .innerJoin(boards, eq(boards.id, triggers.boardId));
}

/**
 * A trigger the caller may manage: not deleted, and in the API token's workspace, or in a workspace
 * the signed-in person administers (an owner: every workspace). Another workspace's trigger reads
 * as not found, never forbidden; a member whose role is not admin is refused with 403.
 */
export async function getTriggerOrThrow(db: DbOrTx, principal: Principal, id: string): Promise<TriggerView> {
  const [row] = await selectTriggerViews(db)
    .where(and(eq(triggers.id, id), isNull(triggers.deletedAt)))
    .limit(1);
  if (!row) throw notFound("trigger_not_found", "Trigger");
  if (principal.kind === "board" || (principal.kind === "api" && principal.workspace.id !== row.trigger.workspaceId)) {
    throw notFound("trigger_not_found", "Trigger");
  }
  if (principal.kind === "session") requireAccess(principal, row.trigger.workspaceId, "manage", ["trigger_not_found", "Trigger"]);
  return row;
}
