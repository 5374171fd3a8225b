import crypto from "node:crypto";
import { sql } from "drizzle-orm";
import { isSingleSession, queryRows, type Db } from "../../../db";
import type { JobQueueKind } from "../../../db/schema/jobs";
import { memoizedStepsOf, parseCallState, type CallState, type CallStateRow } from "./load";

export type ClaimedItem = { id: number; runId: string; kind: JobQueueKind; stepId: string; name: string | null; attempt: number; leaseToken: string };

/** A claimed item, and for a call what the call needs (loaded by the claim itself). */
export type Claim = { item: ClaimedItem; state: CallState | null };

/** Arbitrary constant: the advisory lock that serialises claims across app nodes (see claimBatch). */
const CLAIM_LOCK = 7_150_242;

/** Rows looked at per claim for each one wanted: room for items skipped because their concurrency group is full. */
const SCAN_FACTOR = 4;

type ClaimRow = CallStateRow & { q_id: number | string; run_id: string; kind: JobQueueKind; step_id: string; q_name: string | null; q_attempt: number };

/**
 * Leases up to `limit` due items whose concurrency groups have room, in one statement, and loads
 * what their calls need in the same statement (the run, its event, its memoized steps) and marks
 * their runs started. Items of one group are counted against each other (`row_number` per key),
 * so a batch never overfills a group. The group counts are only right if no other node claims
 * between our count and our update, so claims take one transaction-scoped advisory lock; settling
 * a call does not take it. `SKIP LOCKED` passes over rows a settling transaction holds. On
 * PGlite, one session, the locks exclude nothing and transactions are serial anyway. Leases are
 * on the database clock so that nodes agree; `available_at` is on the application clock so that
 * the test clock moves sleeps.
 */
export async function claimBatch(db: Db, now: Date, leaseMs: number, limit: number): Promise<Claim[]> {
  if (limit < 1) return [];
  const token = crypto.randomUUID();
  const at = now.toISOString();
  const inFlight = (key: string) => sql`(select count(*) from job_queue o
    where o.lease_until >= clock_timestamp() and (o.ckey1 = ${sql.raw(key)} or o.ckey2 = ${sql.raw(key)}))`;
  const claim = sql`with candidate as (
        select q.id, q.available_at, q.ckey1, q.climit1, q.ckey2, q.climit2 from job_queue q
        where q.available_at <= ${at}::timestamptz
          and (q.lease_until is null or q.lease_until < clock_timestamp())
          and (q.ckey1 is null or ${inFlight("q.ckey1")} < q.climit1)
          and (q.ckey2 is null or ${inFlight("q.ckey2")} < q.climit2)
        order by q.available_at, q.id
        limit ${limit * SCAN_FACTOR}
        for update of q skip locked
      ), ranked as (
        select c.*,
          row_number() over (partition by c.ckey1 order by c.available_at, c.id) as n1,
          row_number() over (partition by c.ckey2 order by c.available_at, c.id) as n2
        from candidate c
      ), picked as (
        select r.id from ranked r
        where (r.ckey1 is null or ${inFlight("r.ckey1")} + r.n1 <= r.climit1)
          and (r.ckey2 is null or ${inFlight("r.ckey2")} + r.n2 <= r.climit2)
        order by r.available_at, r.id
        limit ${limit}
      ), leased as (
        update job_queue set lease_token = ${token}, lease_until = clock_timestamp() + ${leaseMs} * interval '1 millisecond'
        from picked where job_queue.id = picked.id
        returning job_queue.id, job_queue.run_id, job_queue.kind, job_queue.step_id, job_queue.name, job_queue.attempt
      ), started as (
        update job_runs set status = 'running', started_at = ${at}::timestamptz
        where id in (select run_id from leased where kind = 'call') and status = 'queued'
      )
      select l.id as q_id, l.run_id, l.kind, l.step_id, l.name as q_name, l.attempt as q_attempt,
        r.status, r.function_id, r.disable_immediate_execution, r.request_version, e.payload as event, ${memoizedStepsOf(sql`l.run_id`)} as steps
      from leased l
      left join job_runs r on r.id = l.run_id and l.kind = 'call'
      left join job_events e on e.id = r.event_id
      order by l.id`;
  // One session (PGlite): the statement runs alone, nothing to lock against.
  const rows = isSingleSession(db)
    ? await queryRows<ClaimRow>(db, claim)
    : await db.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(${CLAIM_LOCK})`);
        return queryRows<ClaimRow>(tx, claim);
      });
  return rows.map((r) => ({
    item: { id: Number(r.q_id), runId: r.run_id, kind: r.kind, stepId: r.step_id, name: r.q_name, attempt: r.q_attempt, leaseToken: token },
    // The claim's snapshot predates its own `started` update: a call's run is running from here on.
    state: r.kind === "call" && r.status ? parseCallState({ ...r, status: r.status === "queued" ? "running" : r.status }, r.run_id) : null,
  }));
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

/**
 * The queue's depth for /metrics, in one statement over job_queue (a row per outstanding call or
 * sleep, not per run ever made): due now and waiting for a worker (a full concurrency group keeps
 * an item here), scheduled for later (a retry's backoff, a sleep), leased (a call in flight).
 */
export async function queueDepth(db: Db, now: Date): Promise<{ due: number; scheduled: number; leased: number }> {
  const [row] = await queryRows<{ due: number | string; scheduled: number | string; leased: number | string }>(
    db,
    sql`select
        count(*) filter (where lease_until >= clock_timestamp()) as leased,
        count(*) filter (where (lease_until is null or lease_until < clock_timestamp()) and available_at <= ${now.toISOString()}::timestamptz) as due,
        count(*) filter (where (lease_until is null or lease_until < clock_timestamp()) and available_at > ${now.toISOString()}::timestamptz) as scheduled
      from job_queue`,
  );
  return { due: Number(row?.due ?? 0), scheduled: Number(row?.scheduled ?? 0), leased: Number(row?.leased ?? 0) };
}
