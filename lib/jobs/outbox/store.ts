import { and, asc, inArray, isNull, lte, or, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db";
import { eventOutbox, type EventOutboxRow } from "../../db/schema/event-outbox";

/**
 * The outbox's statements. Times are the database's `now()`, the one clock every node shares.
 * Rows are taken in creation order (ids are ULIDs); `FOR UPDATE SKIP LOCKED` lets relays on
 * several nodes take disjoint batches without waiting for one another.
 */

const after = (ms: number) => sql`now() + ${Math.max(0, Math.round(ms))}::int * interval '1 millisecond'`;

/** Not being handed on by a relay right now (no lease, or a lease whose holder died). */
const unleased = or(isNull(eventOutbox.leasedUntil), lte(eventOutbox.leasedUntil, sql`now()`));
const due = and(lte(eventOutbox.availableAt, sql`now()`), unleased);

const firstDue = (db: DbOrTx, limit: number) =>
  db.select({ id: eventOutbox.id }).from(eventOutbox).where(due).orderBy(asc(eventOutbox.id)).limit(limit).for("update", { skipLocked: true });

const byId = (a: EventOutboxRow, b: EventOutboxRow) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

// ---- sending to a job system elsewhere (Inngest): lease, send, delete

/** Leases the named rows that no relay holds (a write's own events, right after its commit). */
export async function leaseByIds(db: DbOrTx, ids: string[], leaseMs: number): Promise<EventOutboxRow[]> {
  const rows = await db.update(eventOutbox).set({ leasedUntil: after(leaseMs) }).where(and(inArray(eventOutbox.id, ids), unleased)).returning();
  return rows.sort(byId);
}

/** Leases up to `limit` due rows, oldest first. */
export async function leaseDue(db: DbOrTx, limit: number, leaseMs: number): Promise<EventOutboxRow[]> {
  const rows = await db.update(eventOutbox).set({ leasedUntil: after(leaseMs) }).where(inArray(eventOutbox.id, firstDue(db, limit))).returning();
  return rows.sort(byId);
}

/** Handed on: the rows are done. */
export async function deleteRows(db: DbOrTx, ids: string[]): Promise<void> {
  if (ids.length) await db.delete(eventOutbox).where(inArray(eventOutbox.id, ids));
}

// ---- storing into the embedded executor's tables: take and store in one transaction

/** Deletes and answers the named rows that no relay holds, inside the caller's transaction. */
export async function takeByIds(tx: DbOrTx, ids: string[]): Promise<EventOutboxRow[]> {
  const rows = await tx.delete(eventOutbox).where(and(inArray(eventOutbox.id, ids), unleased)).returning();
  return rows.sort(byId);
}

/** Deletes and answers up to `limit` due rows, oldest first, inside the caller's transaction. */
export async function takeDue(tx: DbOrTx, limit: number): Promise<EventOutboxRow[]> {
  const rows = await tx.delete(eventOutbox).where(inArray(eventOutbox.id, firstDue(tx, limit))).returning();
  return rows.sort(byId);
}

// ---- failures

/** Gives rows that failed back for a later try, `delayMs` from now, counting the attempt and keeping the error. */
export async function releaseFailed(db: DbOrTx, ids: string[], delayMs: number, error: string): Promise<void> {
  if (!ids.length) return;
  await db
    .update(eventOutbox)
    .set({ leasedUntil: null, availableAt: after(delayMs), attempts: sql`${eventOutbox.attempts} + 1`, lastError: error.slice(0, 2000) })
    .where(inArray(eventOutbox.id, ids));
}

/** Gives back rows that were not tried (their batch stopped at an earlier failure), due again in `delayMs`. */
export async function releaseUntried(db: DbOrTx, ids: string[], delayMs: number): Promise<void> {
  if (ids.length) await db.update(eventOutbox).set({ leasedUntil: null, availableAt: after(delayMs) }).where(inArray(eventOutbox.id, ids));
}

/** Rows waiting to be handed on, and the oldest one's age: for logs and tests. */
export async function backlog(db: DbOrTx): Promise<{ rows: number; oldest: Date | null }> {
  const [row] = await db.select({ rows: sql<number>`count(*)::int`, oldest: sql<string | null>`min(${eventOutbox.createdAt})` }).from(eventOutbox);
  return { rows: Number(row?.rows ?? 0), oldest: row?.oldest ? new Date(row.oldest) : null };
}
