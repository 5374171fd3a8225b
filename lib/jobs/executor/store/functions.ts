import { and, eq, inArray, notInArray } from "drizzle-orm";
import type { DbOrTx } from "../../../db";
import { jobCrons, jobFunctions, type JobConcurrency, type JobFunction, type JobTrigger } from "../../../db/schema/jobs";
import { nextCronTime, parseCron } from "../cron";

export type SyncedFunction = {
  id: string;
  name: string;
  url: string;
  triggers: JobTrigger[];
  concurrency: JobConcurrency[];
  maxAttempts: number;
};

/**
 * Replaces the stored function set with the one just synced. A cron keeps its next tick across
 * restarts (a restart neither skips nor repeats a tick); a new or changed cron starts from now.
 */
export async function saveSyncedFunctions(db: DbOrTx, fns: SyncedFunction[], now: Date) {
  recent.delete(db);
  await db.transaction(async (tx) => {
    const ids = fns.map((f) => f.id);
    if (ids.length) await tx.delete(jobFunctions).where(notInArray(jobFunctions.id, ids));
    else await tx.delete(jobFunctions);
    for (const f of fns) {
      const row = { ...f, syncedAt: now };
      await tx.insert(jobFunctions).values(row).onConflictDoUpdate({ target: jobFunctions.id, set: row });
    }
    const existing = await tx.select().from(jobCrons);
    const wanted = fns.flatMap((f) => f.triggers.flatMap((t) => ("cron" in t ? [{ functionId: f.id, cron: t.cron }] : [])));
    for (const old of existing) {
      if (!wanted.some((w) => w.functionId === old.functionId && w.cron === old.cron)) {
        await tx.delete(jobCrons).where(and(eq(jobCrons.functionId, old.functionId), eq(jobCrons.cron, old.cron)));
      }
    }
    for (const w of wanted) {
      const nextAt = nextCronTime(parseCron(w.cron), now);
      await tx.insert(jobCrons).values({ ...w, nextAt }).onConflictDoNothing();
    }
  });
}

/** How long `recentFunctions` may answer from memory: a sync by another node applies to events stored here within this long. */
const FUNCTIONS_TTL_MS = 1000;
const recent = new WeakMap<object, { at: number; fns: Promise<JobFunction[]> }>();

/**
 * The function set, read at most once a second per database handle: every stored event is
 * matched against it, and it only changes when a node syncs (this process's own sync clears it).
 * Inside a transaction it is read fresh.
 */
export function recentFunctions(db: DbOrTx): Promise<JobFunction[]> {
  if ("rollback" in db) return loadFunctions(db);
  const hit = recent.get(db);
  if (hit && Date.now() - hit.at < FUNCTIONS_TTL_MS) return hit.fns;
  const fns = loadFunctions(db);
  recent.set(db, { at: Date.now(), fns });
  fns.catch(() => recent.delete(db));
  return fns;
}

export async function loadFunctions(db: DbOrTx, ids?: string[]): Promise<JobFunction[]> {
  if (ids) return ids.length ? db.select().from(jobFunctions).where(inArray(jobFunctions.id, ids)) : [];
  return db.select().from(jobFunctions);
}
