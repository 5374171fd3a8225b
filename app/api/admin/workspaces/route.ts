import { withAdmin, withOwner } from "@/lib/auth/admin-route";
import { json } from "@/lib/http/envelope";
import { parseJson } from "@/lib/http/parse";
import { listWorkspacesFor } from "@/lib/members/visible-workspaces";
import { createWorkspace } from "@/lib/workspaces/manage-workspaces";
import { toWorkspaceJson } from "@/lib/workspaces/present";
import { CreateWorkspaceBody } from "./schema";

export const dynamic = "force-dynamic";

// GET /api/admin/workspaces — the workspaces the signed-in person may open (an owner: every one)
export const GET = withAdmin(async ({ deps, principal }) => json({ data: await listWorkspacesFor(deps.db, principal) }));

// POST /api/admin/workspaces — create a workspace, as `npm run easel -- workspace create` does (owners only)
export const POST = withOwner(async ({ req, deps }) => {
  const { workspace: w } = await parseJson(req, CreateWorkspaceBody);
  const ws = await createWorkspace(deps.db, { slug: w.slug, name: w.name, plan: w.plan, trialOf: w.trial_of, storage: w.storage_kind, now: deps.clock() });
  return json({ data: toWorkspaceJson(ws) }, 201);
});
