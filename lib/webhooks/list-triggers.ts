import { and, asc, eq, inArray, isNull, sql, type SQL } from "drizzle-orm";
import type { Principal } from "../auth/principal";
import { requireAccess, roleAllows } from "../auth/roles";
import { boards, triggers } from "../db/schema";
import type { Deps } from "../deps";
import { workspaceForPrincipal } from "../workspaces/get-workspace";
import { selectTriggerViews } from "./get-trigger";
import { toTriggerJson, type TriggerJson } from "./present";

export type ListTriggersInput = { organizationSlug?: string; collectionToken?: string };

/**
 * Beyond the interface: the caller's triggers, oldest first, including expired and disabled ones
 * (their `status` says so) but not deleted ones. An API token sees its workspace; a signed-in owner
 * every workspace and a member the workspaces they administer, unless `organizationSlug` narrows it.
 */
export async function listTriggers(deps: Deps, principal: Principal, input: ListTriggersInput = {}): Promise<{ data: TriggerJson[] }> {
  const where: SQL[] = [isNull(triggers.deletedAt)];
  if (input.organizationSlug !== undefined) {
    const workspace = await workspaceForPrincipal(deps.db, input.organizationSlug, principal);
    if (principal.kind === "session") requireAccess(principal, workspace.id, "manage");
    where.push(eq(triggers.workspaceId, workspace.id));
  } else if (principal.kind === "api") {
    where.push(eq(triggers.workspaceId, principal.workspace.id));
  } else if (principal.kind === "session" && !principal.owner) {
    const managed = [...principal.roles].filter(([, role]) => roleAllows(role, "manage")).map(([id]) => id);
    where.push(managed.length ? inArray(triggers.workspaceId, managed) : sql`false`);
  }
  if (input.collectionToken !== undefined) where.push(eq(boards.token, input.collectionToken));
  const rows = await selectTriggerViews(deps.db)
    .where(and(...where))
    .orderBy(asc(triggers.createdAt), asc(triggers.id));
  const now = deps.clock();
  return { data: rows.map((row) => toTriggerJson(row, now)) };
}
