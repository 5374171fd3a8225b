import { withOwner } from "@/lib/auth/admin-route";
import { runNotFound } from "@/lib/jobs/admin";
import { getRun } from "@/lib/jobs/runs";

export const dynamic = "force-dynamic";

// GET /api/admin/jobs/runs/:id — one run with its event, steps, pending work and latest calls; owners only (the runs span every workspace)
export const GET = withOwner(async ({ params, deps }) => {
  const run = await getRun(deps.db, params.id);
  return run ? Response.json(run) : runNotFound(params.id);
});
