import { withWorkspaceAdmin } from "@/lib/auth/admin-route";
import { DomainError } from "@/lib/errors";
import { revokeInvitation } from "@/lib/members/revoke-invitation";
import { PathId } from "../../../schema";

export const dynamic = "force-dynamic";

// DELETE /api/admin/workspaces/:slug/invitations/:id — revoke a pending invitation (its link then refuses); workspace admins
export const DELETE = withWorkspaceAdmin("manage", async ({ params, workspace, deps }) => {
  const id = PathId.safeParse(params.id);
  if (!id.success) throw new DomainError("validation_failed", "id must be a positive integer", { field: "id" });
  if (!(await revokeInvitation(deps.db, { workspace, id: id.data, now: deps.clock() }))) {
    throw new DomainError("validation_failed", "No pending invitation of this workspace has that id", { field: "id" });
  }
  return new Response(null, { status: 204 });
});
