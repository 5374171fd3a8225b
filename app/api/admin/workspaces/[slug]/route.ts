import { withWorkspaceAdmin } from "@/lib/auth/admin-route";
import { json } from "@/lib/http/envelope";
import { parseJson } from "@/lib/http/parse";
import { updateWorkspace } from "@/lib/workspaces/manage-workspaces";
import { refusePlanChangeUnlessOwner } from "@/lib/workspaces/plan-change-guard";
import { toWorkspaceJson } from "@/lib/workspaces/present";
import { UpdateWorkspaceBody } from "../schema";

export const dynamic = "force-dynamic";

// GET /api/admin/workspaces/:slug — one workspace with what its plan allows (any member)
export const GET = withWorkspaceAdmin("read", async ({ workspace }) => json({ data: toWorkspaceJson(workspace) }));

// PATCH /api/admin/workspaces/:slug — plan and trial (owners), streaming (workspace admins); as `npm run easel -- workspace update`
export const PATCH = withWorkspaceAdmin("manage", async ({ req, workspace, principal, deps }) => {
  const { workspace: w } = await parseJson(req, UpdateWorkspaceBody);
  refusePlanChangeUnlessOwner(principal.owner, w, workspace);
  const trialOf = w.trial_of === null ? "none" : w.trial_of;
  const ws = await updateWorkspace(deps.db, { slug: workspace.slug, plan: w.plan, trialOf, streaming: w.streaming_enabled, now: deps.clock() });
  return json({ data: toWorkspaceJson(ws) });
});
