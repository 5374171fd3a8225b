import crypto from "node:crypto";
import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../../../db";
import type { JobQueueKind } from "../../../db/schema/jobs";

export type ClaimedItem = { id: number; runId: string; kind: JobQueueKind; stepId: string; name: string | null; attempt: number; leaseToken: string };

/** Arbitrary constant: the advisory lock that serialises claims across app nodes (see claimNext). */
const CLAIM_LOCK = 7_150_242;

/**
 * Leases the next due item whose concurrency groups have room. The group counts are only right
 * if no other node claims between our count and our update, so claims take one transaction-scoped
 * advisory lock (claims are a single short statement; settling a call does not take it).
 * `SKIP LOCKED` passes over rows a settling transaction holds. On PGlite, one session, the locks
 * exclude nothing and transactions are serial anyway. Leases are on the database clock so that
 * nodes agree; `available_at` is on the application clock so that the test clock moves sleeps.
 */
export async function claimNext(db: Db, now: Date, leaseMs: number): Promise<ClaimedItem | null> {
  const token = crypto.randomUUID();
  const at = now.toISOString();
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${CLAIM_LOCK})`);
    const inFlight = (key: string) => sql`(select count(*) from job_queue o
      where o.lease_until >= clock_timestamp() and (o.ckey1 = ${sql.raw(key)} or o.ckey2 = ${sql.raw(key)}))`;
    const rows = await queryRows<{ id: number | string; run_id: string; kind: JobQueueKind; step_id: string; name: string | null; attempt: number }>(
      tx,
      sql`with candidate as (
        select q.id from job_queue q
        where q.available_at <= ${at}::timestamptz
          and (q.lease_until is null or q.lease_until < clock_timestamp())
          and (q.ckey1 is null or ${inFlight("q.ckey1")} < q.climit1)
          and (q.ckey2 is null or ${inFlight("q.ckey2")} < q.climit2)
        order by q.available_at, q.id
        limit 1
        for update of q skip locked
      )
      update job_queue set lease_token = ${token}, lease_until = clock_timestamp() + ${leaseMs} * interval '1 millisecond'
      from candidate where job_queue.id = candidate.id
      returning job_queue.id, job_queue.run_id, job_queue.kind, job_queue.step_id, job_queue.name, job_queue.attempt`,
    );
    const r = rows[0];
    if (!r) return null;
    return { id: Number(r.id), runId: r.run_id, kind: r.kind, stepId: r.step_id, name: r.name, attempt: r.attempt, leaseToken: token };
  });
}

/** Keeps a lease while its call runs; false when the lease was lost (it ran out and another worker took the item). */
export async function renewLease(db: Db, item: ClaimedItem, leaseMs: number): Promise<boolean> {
  const rows = await queryRows<{ id: number }>(
    db,
    sql`update job_queue set lease_until = clock_timestamp() + ${leaseMs} * interval '1 millisecond'
        where id = ${item.id} and lease_token = ${item.leaseToken} returning id`,
  );
  return rows.length > 0;
}

/**
 * Ends every lease at once. Only for the embedded database, whose one owner process is this one:
 * any lease left in it belongs to a previous life of the process (killed mid-call), so its items
 * are due now rather than when the lease would have run out.
 */
export async function releaseAllLeases(db: Db): Promise<number> {
  const rows = await queryRows<{ id: number }>(db, sql`update job_queue set lease_token = null, lease_until = null where lease_token is not null returning id`);
  return rows.length;
}

/** When the next unleased item falls due (to sleep until then rather than poll). */
export async function nextDueAt(db: Db): Promise<Date | null> {
  const rows = await queryRows<{ at: Date | string | null }>(db, sql`select min(available_at) as at from job_queue where lease_token is null`);
  const at = rows[0]?.at;
  return at ? new Date(at) : null;
}
