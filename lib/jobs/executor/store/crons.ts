import { and, eq, lte, min } from "drizzle-orm";
import type { Db } from "../../../db";
import { jobCrons, jobFunctions } from "../../../db/schema/jobs";
import { nextCronTime, parseCron } from "../cron";
import { createRun, storeEvent } from "./ingest";

/**
 * Starts a run for every cron tick that is due, each tick once across nodes (`SKIP LOCKED` plus
 * moving `next_at` in the same transaction). Ticks missed while no node ran fire once, not once
 * per missed tick, as Inngest does.
 */
export async function fireDueCrons(db: Db, now: Date): Promise<string[]> {
  return db.transaction(async (tx) => {
    const due = await tx.select().from(jobCrons).where(lte(jobCrons.nextAt, now)).for("update", { skipLocked: true });
    const runs: string[] = [];
    for (const c of due) {
      await tx
        .update(jobCrons)
        .set({ nextAt: nextCronTime(parseCron(c.cron), now) })
        .where(and(eq(jobCrons.functionId, c.functionId), eq(jobCrons.cron, c.cron)));
      const [fn] = await tx.select().from(jobFunctions).where(eq(jobFunctions.id, c.functionId));
      if (!fn) continue;
      const event = await storeEvent(tx, { name: "inngest/scheduled.timer", data: { cron: c.cron } }, now);
      runs.push(await createRun(tx, fn, event, now));
    }
    return runs;
  });
}

export async function nextCronAt(db: Db): Promise<Date | null> {
  const [row] = await db.select({ at: min(jobCrons.nextAt) }).from(jobCrons);
  return row?.at ? new Date(row.at) : null;
}
