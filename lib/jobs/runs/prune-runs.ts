import { sql } from "drizzle-orm";
import { queryRows, type DbOrTx } from "../../db";

/** Deletes finished runs that ended before `before` (their steps and calls go with them), then events no run refers to. */
export async function pruneRuns(db: DbOrTx, before: Date): Promise<{ runs: number; events: number }> {
  const at = before.toISOString();
  const runs = await queryRows<{ id: string }>(
    db,
    sql`delete from job_runs where status in ('completed', 'failed') and ended_at < ${at}::timestamptz returning id`,
  );
  const events = await queryRows<{ id: string }>(
    db,
    sql`delete from job_events e where e.received_at < ${at}::timestamptz
        and not exists (select 1 from job_runs r where r.event_id = e.id) returning id`,
  );
  return { runs: runs.length, events: events.length };
}
