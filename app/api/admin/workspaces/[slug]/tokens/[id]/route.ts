import { withAdmin } from "@/lib/auth/admin-route";
import { revokeApiTokenById } from "@/lib/auth/manage-api-tokens";
import { DomainError } from "@/lib/errors";
import { json } from "@/lib/http/envelope";
import { getWorkspaceOrThrow } from "@/lib/workspaces/manage-workspaces";

export const dynamic = "force-dynamic";

// DELETE /api/admin/workspaces/:slug/tokens/:id — revoke (the token then answers 401 everywhere)
export const DELETE = withAdmin(async ({ params, deps }) => {
  const id = Number(params.id);
  if (!Number.isSafeInteger(id) || id <= 0) throw new DomainError("validation_failed", "id must be a positive integer", { field: "id" });
  const workspace = await getWorkspaceOrThrow(deps.db, params.slug);
  return json({ data: await revokeApiTokenById(deps.db, { workspace, id, now: deps.clock() }) });
});
