import { withWorkspaceAdmin } from "@/lib/auth/admin-route";
import { issueApiToken, listApiTokens } from "@/lib/auth/manage-api-tokens";
import { json } from "@/lib/http/envelope";
import { parseJson } from "@/lib/http/parse";
import { CreateTokenBody } from "../../schema";

export const dynamic = "force-dynamic";

// GET /api/admin/workspaces/:slug/tokens — the workspace's API tokens (prefixes only); workspace admins
export const GET = withWorkspaceAdmin("manage", async ({ workspace, deps }) => {
  return json({ data: await listApiTokens(deps.db, workspace) });
});

// POST /api/admin/workspaces/:slug/tokens — issue a token; the clear token is in this answer only; workspace admins
export const POST = withWorkspaceAdmin("manage", async ({ req, workspace, principal, deps }) => {
  const { token } = await parseJson(req, CreateTokenBody);
  return json({ data: await issueApiToken(deps.db, { workspace, ...token, createdBy: principal.userId, now: deps.clock() }) }, 201);
});
