import crypto from "node:crypto";
import { z } from "zod";
import { JOB_RUN_STATUSES } from "../db/schema/jobs";
import { env } from "../env";
import { errorResponse } from "../http/envelope";
import type { RunFilter } from "./runs";

/**
 * Gate of the admin jobs view until the admin UI's session guards it: `Authorization: Bearer
 * $EASEL_ADMIN_TOKEN`. Without that variable the view does not exist (404). Answers the response
 * to send when the request is refused, null when it may go on.
 */
export function refuseUnlessJobsAdmin(req: Request): Response | null {
  const expected = env().EASEL_ADMIN_TOKEN;
  if (!expected) return errorResponse("route_not_found", "The admin jobs view is off (set EASEL_ADMIN_TOKEN)");
  const given = /^Bearer\s+(\S+)$/i.exec(req.headers.get("authorization") ?? "")?.[1] ?? "";
  const a = crypto.createHash("sha256").update(given).digest();
  const b = crypto.createHash("sha256").update(expected).digest();
  return crypto.timingSafeEqual(a, b) ? null : errorResponse("unauthenticated", "The admin token is missing or wrong");
}

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
