import { getDeps } from "@/lib/deps";
import { refuseUnlessJobsAdmin, runNotFound } from "@/lib/jobs/admin";
import { getRun } from "@/lib/jobs/runs";

// GET /api/admin/jobs/runs/:id — one run with its event, steps, pending work and latest calls
export async function GET(req: Request, ctx: { params: Promise<{ id: string }> }) {
  const refused = refuseUnlessJobsAdmin(req);
  if (refused) return refused;
  const { id } = await ctx.params;
  const run = await getRun((await getDeps()).db, id);
  return run ? Response.json(run) : runNotFound(id);
}

export const dynamic = "force-dynamic";
