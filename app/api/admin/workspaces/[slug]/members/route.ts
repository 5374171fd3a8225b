import { withWorkspaceAdmin } from "@/lib/auth/admin-route";
import { json } from "@/lib/http/envelope";
import { listMembers } from "@/lib/members/list-members";

export const dynamic = "force-dynamic";

// GET /api/admin/workspaces/:slug/members — the workspace's members, their roles and what removing them would revoke (`made`); workspace admins
export const GET = withWorkspaceAdmin("manage", async ({ workspace, deps }) => json({ data: await listMembers(deps.db, workspace, deps.clock()) }));
