import { getDeps } from "@/lib/deps";
import { parseRunQuery, refuseUnlessJobsAdmin } from "@/lib/jobs/admin";
import { listRuns } from "@/lib/jobs/runs";

// GET /api/admin/jobs/runs — runs of the embedded executor, newest first (?status=&function_id=&limit=&cursor=)
export async function GET(req: Request) {
  const refused = refuseUnlessJobsAdmin(req);
  if (refused) return refused;
  const filter = parseRunQuery(new URL(req.url).searchParams);
  if (filter instanceof Response) return filter;
  return Response.json(await listRuns((await getDeps()).db, filter));
}

export const dynamic = "force-dynamic";
