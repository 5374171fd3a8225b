import { eq } from "drizzle-orm";
import type { Principal } from "../auth/principal";
import { workspaceVisibleTo } from "../boards/visibility";
import type { DbOrTx } from "../db";
import { workspaces, type Workspace } from "../db/schema";
import { notFound } from "../errors";

export async function findWorkspaceBySlug(db: DbOrTx, slug: string): Promise<Workspace | null> {
  const [row] = await db.select().from(workspaces).where(eq(workspaces.slug, slug)).limit(1);
  return row ?? null;
}

/**
 * The workspace named in the path, as the principal may see it. A token of another workspace reads
 * it as not found (404), never as forbidden, so slugs of other tenants leak nothing.
 */
export async function workspaceForPrincipal(db: DbOrTx, slug: string, principal: Principal): Promise<Workspace> {
  if (principal.kind === "api") {
    if (principal.workspace.slug !== slug) throw notFound("workspace_not_found", "Workspace");
    return principal.workspace;
  }
  const workspace = await findWorkspaceBySlug(db, slug);
  if (!workspace) throw notFound("workspace_not_found", "Workspace");
  if (!workspaceVisibleTo(principal, workspace.id)) throw notFound("workspace_not_found", "Workspace");
  return workspace;
}
