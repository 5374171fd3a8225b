import { eq } from "drizzle-orm";
import type { DbOrTx } from "../db";
import { workspaces, type Workspace } from "../db/schema";
import { notFound } from "../errors";
import type { Principal } from "./principal";
import { requireAccess, type Operation } from "./roles";

export { accessTo, roleAllows, roleScopes, sessionRole, type Access, type EffectiveRole, type Operation } from "./roles";

/**
 * The one authorization of a principal in a workspace, for every entry point (/v1, the admin
 * pages and routes, job runs, live updates): the workspace by slug or id, if the principal may do
 * `operation` there. A workspace that is not theirs (or does not exist) is 404 workspace_not_found,
 * one that is theirs but whose role does not allow the operation 403 insufficient_scope. A
 * person's roles come from the database on each request (lib/auth/session-principal.ts), so a
 * removal or demotion holds from the member's next request on.
 */
export async function authorizeWorkspace(db: DbOrTx, principal: Principal, workspace: string | number, operation: Operation): Promise<Workspace> {
  const row = await findWorkspace(db, principal, workspace);
  if (!row) throw notFound("workspace_not_found", "Workspace");
  requireAccess(principal, row.id, operation);
  return row;
}

async function findWorkspace(db: DbOrTx, principal: Principal, workspace: string | number): Promise<Workspace | null> {
  // An API token carries its own workspace: no query for the workspace it names.
  if (principal.kind === "api") {
    const own = principal.workspace;
    return own.slug === workspace || own.id === workspace ? own : null;
  }
  const where = typeof workspace === "number" ? eq(workspaces.id, workspace) : eq(workspaces.slug, workspace);
  const [row] = await db.select().from(workspaces).where(where).limit(1);
  return row ?? null;
}
