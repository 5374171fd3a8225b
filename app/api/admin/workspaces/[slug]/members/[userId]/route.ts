import { withWorkspaceAdmin } from "@/lib/auth/admin-route";
import { DomainError } from "@/lib/errors";
import { json } from "@/lib/http/envelope";
import { parseJson } from "@/lib/http/parse";
import { changeMemberRole } from "@/lib/members/change-role";
import { removeMembership } from "@/lib/members/remove-member";
import { ChangeRoleBody, PathId } from "../../../schema";

export const dynamic = "force-dynamic";

const userIdOf = (raw: string | undefined) => {
  const id = PathId.safeParse(raw);
  if (!id.success) throw new DomainError("validation_failed", "userId must be a positive integer", { field: "userId" });
  return id.data;
};
const notAMember = () => new DomainError("validation_failed", "That user is not a member of this workspace", { field: "userId" });

// PATCH /api/admin/workspaces/:slug/members/:userId — change a member's role (in effect on their next request; below admin revokes their tokens and invitations, counted in `revoked`); workspace admins
export const PATCH = withWorkspaceAdmin("manage", async ({ req, params, workspace, deps }) => {
  const userId = userIdOf(params.userId);
  const { member } = await parseJson(req, ChangeRoleBody);
  const changed = await changeMemberRole(deps.db, { workspace, userId, role: member.role, now: deps.clock() });
  if (!changed) throw notAMember();
  return json({ data: { user_id: changed.userId, role: changed.role, revoked: changed.revoked } });
});

// DELETE /api/admin/workspaces/:slug/members/:userId — remove a member (their sessions lose the workspace at once; their tokens and invitations are revoked, counted in `revoked`); workspace admins
export const DELETE = withWorkspaceAdmin("manage", async ({ params, workspace, deps }) => {
  const userId = userIdOf(params.userId);
  const removed = await removeMembership(deps.db, { workspace, userId, now: deps.clock() });
  if (!removed) throw notAMember();
  return json({ data: { user_id: userId, revoked: removed.revoked } });
});
