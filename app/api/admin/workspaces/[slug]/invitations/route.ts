import { withWorkspaceAdmin } from "@/lib/auth/admin-route";
import { publicBaseUrl } from "@/lib/http/base-url";
import { json } from "@/lib/http/envelope";
import { parseJson } from "@/lib/http/parse";
import { createInvitation } from "@/lib/members/create-invitation";
import { listPendingInvitations } from "@/lib/members/list-invitations";
import { InviteBody } from "../../schema";

export const dynamic = "force-dynamic";

// GET /api/admin/workspaces/:slug/invitations — pending invitations (not used, revoked or expired); workspace admins
export const GET = withWorkspaceAdmin("manage", async ({ workspace, deps }) => json({ data: await listPendingInvitations(deps.db, workspace, deps.clock()) }));

// POST /api/admin/workspaces/:slug/invitations — invite an email with a role; the link is in this answer only; workspace admins
export const POST = withWorkspaceAdmin("manage", async ({ req, workspace, principal, deps }) => {
  const { invitation } = await parseJson(req, InviteBody);
  const created = await createInvitation(deps.db, { workspace, email: invitation.email, role: invitation.role, createdBy: principal.userId, now: deps.clock() });
  return json({ data: { ...created.invitation, url: `${publicBaseUrl(req)}/invite/${created.token}` } }, 201);
});
