import { withAdmin } from "@/lib/auth/admin-route";
import { json } from "@/lib/http/envelope";
import { parseJson } from "@/lib/http/parse";
import { listWorkspaces } from "@/lib/workspaces/list-workspaces";
import { createWorkspace } from "@/lib/workspaces/manage-workspaces";
import { toWorkspaceJson } from "@/lib/workspaces/present";
import { CreateWorkspaceBody } from "./schema";

export const dynamic = "force-dynamic";

// GET /api/admin/workspaces — every workspace (web UI session only)
export const GET = withAdmin(async ({ deps }) => json({ data: await listWorkspaces(deps.db) }));

// POST /api/admin/workspaces — create a workspace, as `npm run easel -- workspace create` does
export const POST = withAdmin(async ({ req, deps }) => {
  const { workspace: w } = await parseJson(req, CreateWorkspaceBody);
  const ws = await createWorkspace(deps.db, { slug: w.slug, name: w.name, plan: w.plan, trialOf: w.trial_of, storage: w.storage_kind, now: deps.clock() });
  return json({ data: toWorkspaceJson(ws) }, 201);
});
