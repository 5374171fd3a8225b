import { and, desc, eq, lt, type SQL } from "drizzle-orm";
import type { DbOrTx } from "../../db";
import { jobEvents, jobRuns, type JobRunStatus } from "../../db/schema/jobs";
import { toRunJson } from "./present";

export type RunFilter = {
  status?: JobRunStatus;
  functionId?: string;
  /** Page size, 1–200 (default 50). */
  limit?: number;
  /** `next_cursor` of the previous page: runs older than this one. */
  cursor?: string;
};

/** Runs of the embedded executor, newest first (ids are time-ordered). */
export async function listRuns(db: DbOrTx, filter: RunFilter = {}) {
  const limit = Math.min(Math.max(filter.limit ?? 50, 1), 200);
  const where: SQL[] = [];
  if (filter.status) where.push(eq(jobRuns.status, filter.status));
  if (filter.functionId) where.push(eq(jobRuns.functionId, filter.functionId));
  if (filter.cursor) where.push(lt(jobRuns.id, filter.cursor));
  const rows = await db
    .select({ run: jobRuns, eventName: jobEvents.name })
    .from(jobRuns)
    .leftJoin(jobEvents, eq(jobEvents.id, jobRuns.eventId))
    .where(where.length ? and(...where) : undefined)
    .orderBy(desc(jobRuns.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  return {
    runs: page.map((r) => toRunJson(r.run, r.eventName)),
    next_cursor: rows.length > limit ? page[page.length - 1].run.id : null,
  };
}
