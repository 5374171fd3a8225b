import crypto from "node:crypto";
import { sql } from "drizzle-orm";
import { isSingleSession, queryRows, type Db, type DbOrTx } from "../../../db";
import type { JobQueueKind } from "../../../db/schema/jobs";
import { parseCallState, type CallState, type CallStateRow } from "./call-state";
import { runStatement, Statement } from "./statement";

export type ClaimedItem = { id: number; runId: string; kind: JobQueueKind; stepId: string; name: string | null; attempt: number; leaseToken: string };

/**
 * A claimed item, and for a call what the call needs (loaded by the claim itself); `fairKey`, the
 * item's first concurrency group, for the executor's record of turns (turns.ts).
 */
export type Claim = { item: ClaimedItem; state: CallState | null; fairKey?: string | null };

/** Arbitrary constant: the advisory lock that serialises claims across app nodes (see claimBatch). */
const CLAIM_LOCK = 7_150_242;

type ClaimRow = CallStateRow & { q_id: number | string; run_id: string; kind: JobQueueKind; step_id: string; q_name: string | null; q_attempt: number; q_fair_key?: string | null };

/**
 * Leases up to `limit` due items whose concurrency groups have room, in one statement, and loads
 * what their calls need in the same statement (the run, its event, its memoized steps) and marks
 * their runs started. Items of one group are counted against each other (`row_number` per key),
 * so a batch never overfills a group, and items are taken in turns across fair keys
 * (`claimCounted`). The group counts are only right if no other node claims between our count
 * and our update, so claims take one transaction-scoped advisory lock; settling a call does not
 * take it. `SKIP LOCKED` passes over rows a settling transaction holds. On PGlite, one session,
 * the locks exclude nothing and transactions are serial anyway. Leases are on the database clock
 * so that nodes agree; `available_at` is on the application clock so that the test clock moves
 * sleeps. `turns`: the fair keys this executor started lately (turns.ts).
 */
export async function claimBatch(db: Db, now: Date, leaseMs: number, limit: number, turns: [string, number][] = []): Promise<Batch> {
  if (limit < 1) return { claims: [], nextDueAt: null };
  const token = crypto.randomUUID();
  // One session (PGlite): the statement runs alone, nothing to lock against.
  if (isSingleSession(db)) return batchOf(await claimCounted(db, now, token, leaseMs, limit, turns), token);
  // No concurrency group among the due items: no count to keep right, no lock needed.
  const unkeyed = await claimUnkeyed(db, now, token, leaseMs, limit);
  if (unkeyed) return unkeyed;
  const rows = await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${CLAIM_LOCK})`);
    return claimCounted(tx, now, token, leaseMs, limit, turns);
  });
  return batchOf(rows, token);
}

/** What a claim took, and when the earliest item not yet due falls due (the loop sleeps until then at most). */
export type Batch = { claims: Claim[]; nextDueAt: Date | null };

type BatchRow = ClaimRow & { next_due: Date | string | null };

/** The claim's rows: one per item taken, or one row of nulls but `next_due` when none was. */
function batchOf(rows: BatchRow[], token: string): Batch {
  const due = rows[0]?.next_due;
  return { claims: claimsOf(rows.filter((r) => r.q_id !== null && r.q_id !== undefined), token), nextDueAt: due ? new Date(due) : null };
}

/** The earliest `available_at` after `at` of an item no worker holds: what the loop may sleep until. */
const nextDue = (at: string) => `(select min(available_at) as next_due from job_queue where lease_token is null and available_at > ${at})`;

/** Leases the picked items, marks their runs started and answers what their calls need (CTEs after `picked`). */
function leaseAndLoad(st: Statement, at: string, token: string, leaseMs: number): string {
  return `leased as (
      update job_queue set lease_token = ${st.p(token, "text")}, lease_until = clock_timestamp() + ${st.p(leaseMs, "int")} * interval '1 millisecond'
      from picked where job_queue.id = picked.id
      returning job_queue.id, job_queue.run_id, job_queue.kind, job_queue.step_id, job_queue.name, job_queue.attempt, job_queue.ckey1
    ), started as (
      update job_runs set status = 'running', started_at = ${at}
      where id in (select run_id from leased where kind = 'call') and status = 'queued'
    ), claimed as (
      select l.id as q_id, l.run_id, l.kind, l.step_id, l.name as q_name, l.attempt as q_attempt, l.ckey1 as q_fair_key,
        r.status, r.function_id, r.disable_immediate_execution, r.request_version, e.payload as event,
        (select coalesce(json_agg(json_build_object('stepId', s.step_id, 'result', s.result) order by s.seq), '[]'::json)
          from job_steps s where s.run_id = l.run_id) as steps
      from leased l
      left join job_runs r on r.id = l.run_id and l.kind = 'call'
      left join job_events e on e.id = r.event_id
    )`;
}

/**
 * The claim that counts concurrency groups (see claimBatch): alone on PGlite, under the advisory
 * lock on PostgreSQL. It takes turns across fair keys (a run's first group, `ckey1`: for Easel's
 * jobs the workspace), so one key's backlog cannot keep another key's item waiting:
 *
 * - `queued`: every due item's place in its fair key's queue (arrival order). Only the first
 *   `climit1` of each key can be taken now (the first `limit` of items without a group), so only
 *   they go on: the joins below see a few rows per key, not the backlog.
 * - `flight`: calls in flight per group, counted once (not once per queued row).
 * - `due`: each item's turn, `turn_rank` = its key's calls in flight + its place.
 * - Candidates are ordered by (turn_rank, the key's last turn, arrival): every key's next item
 *   before any key's item after it, and among keys' next items the key served least recently
 *   first (`turns`, from the executor; a key not among them counts as served longest ago).
 * - The second group is counted in that same order (`row_number` per `ckey2`), so a batch never
 *   overfills it either, and a key's backlog never counts against another key's item.
 *
 * The places need every due item once: a scan and a sort of the due rows (keys compared
 * bytewise), nothing per row; the database's clock and the due time are read once. bench/queues measures it with
 * thousands queued.
 */
async function claimCounted(db: DbOrTx, now: Date, token: string, leaseMs: number, limit: number, turns: [string, number][]): Promise<BatchRow[]> {
  const st = new Statement();
  const at = st.at(now);
  const take = st.p(limit, "int");
  // Read once: a parameter cast to timestamptz in a row filter is parsed again for every row.
  const dbNow = "(select t from db_now)";
  const due = "(select at from db_now)";
  const text = `with db_now as materialized (select clock_timestamp() as t, ${at} as at), flight as (
      select k, count(*) as n from (
        select ckey1 as k from job_queue where lease_until >= ${dbNow} and ckey1 is not null
        union all select ckey2 from job_queue where lease_until >= ${dbNow} and ckey2 is not null
      ) f group by k
    ), turn as (
      select t.k, t.n from jsonb_to_recordset(${st.json(turns.map(([k, n]) => ({ k, n })))}) as t(k text, n bigint)
    ), queued as (
      select q.id, q.available_at, q.ckey1, q.climit1, q.ckey2, q.climit2,
        row_number() over (partition by q.ckey1 collate "C" order by q.available_at, q.id) as place
      from job_queue q
      where q.available_at <= ${due} and (q.lease_until is null or q.lease_until < ${dbNow})
    ), due as (
      select q.id, q.available_at, q.ckey1, q.climit1, q.ckey2, q.climit2, coalesce(f2.n, 0) as in_flight2,
        coalesce(f1.n, 0) + q.place as turn_rank, coalesce(t.n, 0) as last_turn
      from queued q
      left join flight f1 on f1.k = q.ckey1
      left join flight f2 on f2.k = q.ckey2
      left join turn t on t.k = coalesce(q.ckey1, '')
      where q.place <= coalesce(q.climit1, ${take})
    ), ranked as (
      select d.id, d.turn_rank, d.last_turn, d.available_at, d.ckey2, d.climit2, d.in_flight2,
        row_number() over (partition by d.ckey2 order by d.turn_rank, d.last_turn, d.available_at, d.id) as n2
      from due d
      where (d.ckey1 is null or d.turn_rank <= d.climit1) and (d.ckey2 is null or d.in_flight2 < d.climit2)
    ), chosen as (
      select r.id from ranked r
      where r.ckey2 is null or r.in_flight2 + r.n2 <= r.climit2
      order by r.turn_rank, r.last_turn, r.available_at, r.id
      limit ${take}
    ), picked as (
      select q.id from job_queue q
      where q.id in (select id from chosen) and q.available_at <= ${at} and (q.lease_until is null or q.lease_until < clock_timestamp())
      for update of q skip locked
    ), ${leaseAndLoad(st, at, token, leaseMs)}
    select n.next_due, c.* from ${nextDue(at)} n left join claimed c on true order by c.q_id`;
  return runStatement<BatchRow>(db, text, st.params, true);
}

/**
 * PostgreSQL, first: one statement without a transaction or the advisory lock, when none of the
 * `limit` items next due (in the queue's order) belongs to a concurrency group. `SKIP LOCKED` and
 * the recheck of a row another claim has just leased keep two nodes from taking one item, and
 * without groups there is nothing to count. Null when a grouped item is among them: the locked
 * claim then takes the batch, in order, so grouped items are never passed over.
 */
async function claimUnkeyed(db: Db, now: Date, token: string, leaseMs: number, limit: number): Promise<Batch | null> {
  const st = new Statement();
  const text = `with ${unkeyedClaimCtes(st, now, token, leaseMs, limit, "true")}
    select k.keyed, n.next_due, c.* from keyed k cross join ${nextDue(st.at(now))} n left join claimed c on true order by c.q_id`;
  const rows = await runStatement<BatchRow & { keyed: boolean }>(db, text, st.params, true);
  if (rows[0]?.keyed) return null;
  return batchOf(rows, token);
}

/**
 * The unlocked claim as CTEs (`head`, `keyed`, `picked`, `leased`, `started`, `claimed`) for a
 * statement of its own or another one's: a settle that frees its worker claims that worker's
 * next item in the same statement. Takes nothing when `when` (SQL) is false or a grouped item is
 * among the `limit` next due.
 */
export function unkeyedClaimCtes(st: Statement, now: Date, token: string, leaseMs: number, limit: number, when: string): string {
  const at = st.at(now);
  const due = `q.available_at <= ${at} and (q.lease_until is null or q.lease_until < clock_timestamp())`;
  return `head as (
      select q.id, q.ckey1, q.ckey2 from job_queue q where ${due} order by q.available_at, q.id limit ${st.p(limit, "int")}
    ), keyed as (
      select exists (select 1 from head where ckey1 is not null or ckey2 is not null) as keyed
    ), picked as (
      select q.id from job_queue q
      where q.id in (select id from head) and ${due} and not (select keyed from keyed) and ${when}
      for update of q skip locked
    ), ${leaseAndLoad(st, at, token, leaseMs)}`;
}

/** Claims answered as JSON rows (`row_to_json` of `claimed`) by a statement that claims along the way. */
export function claimsFromJson(value: unknown, token: string): Claim[] {
  const rows = (typeof value === "string" ? JSON.parse(value) : value) as ClaimRow[] | null;
  return rows ? claimsOf([...rows].sort((a, b) => Number(a.q_id) - Number(b.q_id)), token) : [];
}

function claimsOf(rows: ClaimRow[], token: string): Claim[] {
  return rows.map((r) => ({
    item: { id: Number(r.q_id), runId: r.run_id, kind: r.kind, stepId: r.step_id, name: r.q_name, attempt: r.q_attempt, leaseToken: token },
    fairKey: r.q_fair_key ?? null,
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
