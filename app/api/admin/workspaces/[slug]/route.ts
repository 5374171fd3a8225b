import { withWorkspaceAdmin } from "@/lib/auth/admin-route";
import type { Workspace } from "@/lib/db/schema";
import { DomainError } from "@/lib/errors";
import { json } from "@/lib/http/envelope";
import { parseJson } from "@/lib/http/parse";
import { updateWorkspace } from "@/lib/workspaces/manage-workspaces";
import { toWorkspaceJson } from "@/lib/workspaces/present";
import { UpdateWorkspaceBody } from "../schema";

export const dynamic = "force-dynamic";

// GET /api/admin/workspaces/:slug — one workspace with what its plan allows (any member)
export const GET = withWorkspaceAdmin("read", async ({ workspace }) => json({ data: toWorkspaceJson(workspace) }));

/**
 * Plan and trial grant what the deployment pays for (unlimited revert windows, encodes on upload),
 * so they are the owners' to set, like `workspace update` on the server; a workspace admin may
 * resend the current values (the settings form does) but not change them.
 */
function changesPlan(w: { plan?: string; trial_of?: string | null }, ws: Workspace): boolean {
  return (w.plan !== undefined && w.plan !== ws.plan) || (w.trial_of !== undefined && w.trial_of !== ws.trialOf);
}

// PATCH /api/admin/workspaces/:slug — plan and trial (owners), streaming (workspace admins); as `npm run easel -- workspace update`
export const PATCH = withWorkspaceAdmin("manage", async ({ req, workspace, principal, deps }) => {
  const { workspace: w } = await parseJson(req, UpdateWorkspaceBody);
  if (!principal.owner && changesPlan(w, workspace)) throw new DomainError("insufficient_scope", "Only an owner may change the plan or trial of a workspace", { required_scope: "owner" });
  const trialOf = w.trial_of === null ? "none" : w.trial_of;
  const ws = await updateWorkspace(deps.db, { slug: workspace.slug, plan: w.plan, trialOf, streaming: w.streaming_enabled, now: deps.clock() });
  return json({ data: toWorkspaceJson(ws) });
});
