import { z } from "zod";
import { JOB_RUN_STATUSES } from "../db/schema/jobs";
import { errorResponse } from "../http/envelope";
import type { RunFilter } from "./runs";

const RunQuery = z.object({
  status: z.enum(JOB_RUN_STATUSES).optional(),
  function_id: z.string().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
  cursor: z.string().min(1).optional(),
});

/** `?status=&function_id=&limit=&cursor=` of the runs list. */
export function parseRunQuery(params: URLSearchParams): RunFilter | Response {
  const parsed = RunQuery.safeParse(Object.fromEntries(params));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return errorResponse("validation_failed", `${issue.path.join(".")}: ${issue.message}`, { field: issue.path.join(".") });
  }
  const { status, function_id, limit, cursor } = parsed.data;
  return { status, functionId: function_id, limit, cursor };
}

export function runNotFound(id: string): Response {
  return Response.json({ errors: [{ message: `No job run ${id}`, extensions: { code: "job_run_not_found" } }] }, { status: 404 });
}
