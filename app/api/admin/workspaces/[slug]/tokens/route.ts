import { withAdmin } from "@/lib/auth/admin-route";
import { issueApiToken, listApiTokens } from "@/lib/auth/manage-api-tokens";
import { json } from "@/lib/http/envelope";
import { parseJson } from "@/lib/http/parse";
import { getWorkspaceOrThrow } from "@/lib/workspaces/manage-workspaces";
import { CreateTokenBody } from "../../schema";

export const dynamic = "force-dynamic";

// GET /api/admin/workspaces/:slug/tokens — the workspace's API tokens (prefixes only)
export const GET = withAdmin(async ({ params, deps }) => {
  const workspace = await getWorkspaceOrThrow(deps.db, params.slug);
  return json({ data: await listApiTokens(deps.db, workspace) });
});

// POST /api/admin/workspaces/:slug/tokens — issue a token; the clear token is in this answer only
export const POST = withAdmin(async ({ req, params, deps }) => {
  const { token } = await parseJson(req, CreateTokenBody);
  const workspace = await getWorkspaceOrThrow(deps.db, params.slug);
  return json({ data: await issueApiToken(deps.db, { workspace, ...token, now: deps.clock() }) }, 201);
});
