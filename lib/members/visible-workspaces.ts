import { asc, eq } from "drizzle-orm";
import type { SessionPrincipal } from "../auth/principal";
import type { Db } from "../db";
import { memberships, workspaces } from "../db/schema";
import { listWorkspaces } from "../workspaces/list-workspaces";
import { toWorkspaceJson, type WorkspaceJson } from "../workspaces/present";

/** The workspaces a signed-in person may open, by slug: every one for an owner, else those they are a member of. */
export async function listWorkspacesFor(db: Db, principal: SessionPrincipal): Promise<WorkspaceJson[]> {
  if (principal.owner) return listWorkspaces(db);
  const rows = await db
    .select({ workspace: workspaces })
    .from(memberships)
    .innerJoin(workspaces, eq(workspaces.id, memberships.workspaceId))
    .where(eq(memberships.userId, principal.userId))
    .orderBy(asc(workspaces.slug));
  return rows.map((r) => toWorkspaceJson(r.workspace));
}
