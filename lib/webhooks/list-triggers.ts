import { and, asc, eq, isNull, type SQL } from "drizzle-orm";
import type { Principal } from "../auth/principal";
import { boards, triggers } from "../db/schema";
import type { Deps } from "../deps";
import { workspaceForPrincipal } from "../workspaces/get-workspace";
import { selectTriggerViews } from "./get-trigger";
import { toTriggerJson, type TriggerJson } from "./present";

export type ListTriggersInput = { organizationSlug?: string; collectionToken?: string };

/**
 * Beyond the interface: the caller's triggers, oldest first, including expired and disabled ones
 * (their `status` says so) but not deleted ones. An API token sees its workspace; a signed-in admin
 * sees every workspace unless `organizationSlug` narrows it.
 */
export async function listTriggers(deps: Deps, principal: Principal, input: ListTriggersInput = {}): Promise<{ data: TriggerJson[] }> {
  const where: SQL[] = [isNull(triggers.deletedAt)];
  if (input.organizationSlug !== undefined) {
    const workspace = await workspaceForPrincipal(deps.db, input.organizationSlug, principal);
    where.push(eq(triggers.workspaceId, workspace.id));
  } else if (principal.kind === "api") {
    where.push(eq(triggers.workspaceId, principal.workspace.id));
  }
  if (input.collectionToken !== undefined) where.push(eq(boards.token, input.collectionToken));
  const rows = await selectTriggerViews(deps.db)
    .where(and(...where))
    .orderBy(asc(triggers.createdAt), asc(triggers.id));
  const now = deps.clock();
  return { data: rows.map((row) => toTriggerJson(row, now)) };
}
