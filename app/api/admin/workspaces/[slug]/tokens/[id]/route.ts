import { withWorkspaceAdmin } from "@/lib/auth/admin-route";
import { revokeApiTokenById } from "@/lib/auth/manage-api-tokens";
import { DomainError } from "@/lib/errors";
import { json } from "@/lib/http/envelope";

export const dynamic = "force-dynamic";

// DELETE /api/admin/workspaces/:slug/tokens/:id — revoke (the token then answers 401 everywhere); workspace admins
export const DELETE = withWorkspaceAdmin("manage", async ({ params, workspace, deps }) => {
  const id = Number(params.id);
  if (!Number.isSafeInteger(id) || id <= 0) throw new DomainError("validation_failed", "id must be a positive integer", { field: "id" });
  return json({ data: await revokeApiTokenById(deps.db, { workspace, id, now: deps.clock() }) });
});
