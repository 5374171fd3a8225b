import { withOwner } from "@/lib/auth/admin-route";
import { parseRunQuery } from "@/lib/jobs/admin";
import { listRuns } from "@/lib/jobs/runs";

export const dynamic = "force-dynamic";

// GET /api/admin/jobs/runs — runs of the embedded executor, newest first (?status=&function_id=&limit=&cursor=); owners only (the runs span every workspace)
export const GET = withOwner(async ({ req, deps }) => {
  const filter = parseRunQuery(new URL(req.url).searchParams);
  if (filter instanceof Response) return filter;
  return Response.json(await listRuns(deps.db, filter));
});
