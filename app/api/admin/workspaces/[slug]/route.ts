import { withAdmin } from "@/lib/auth/admin-route";
import { json } from "@/lib/http/envelope";
import { parseJson } from "@/lib/http/parse";
import { getWorkspaceOrThrow, updateWorkspace } from "@/lib/workspaces/manage-workspaces";
import { toWorkspaceJson } from "@/lib/workspaces/present";
import { UpdateWorkspaceBody } from "../schema";

export const dynamic = "force-dynamic";

// GET /api/admin/workspaces/:slug — one workspace with what its plan allows
export const GET = withAdmin(async ({ params, deps }) => json({ data: toWorkspaceJson(await getWorkspaceOrThrow(deps.db, params.slug)) }));

// PATCH /api/admin/workspaces/:slug — plan, trial, streaming (as `npm run easel -- workspace update`)
export const PATCH = withAdmin(async ({ req, params, deps }) => {
  const { workspace: w } = await parseJson(req, UpdateWorkspaceBody);
  const trialOf = w.trial_of === null ? "none" : w.trial_of;
  const ws = await updateWorkspace(deps.db, { slug: params.slug, plan: w.plan, trialOf, streaming: w.streaming_enabled, now: deps.clock() });
  return json({ data: toWorkspaceJson(ws) });
});
