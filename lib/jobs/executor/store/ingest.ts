import { eq, inArray } from "drizzle-orm";
import type { DbOrTx, Tx } from "../../../db";
import { jobEvents, jobQueue, jobRuns, type JobFunction } from "../../../db/schema/jobs";
import { compileExpression, type Compiled } from "../expression";
import { newId } from "../ids";
import type { SlotOffer } from "../local-slots";
import { recentFunctions } from "./functions";
import type { Claim } from "./queue";
import { runStatement, Statement } from "./statement";

/** An event as `inngest.send()` posts it to `/e/:key`. */
export type IncomingEvent = { name: string; data?: Record<string, unknown>; id?: string; ts?: number; [k: string]: unknown };
export type StoredEvent = { id: string; payload: Record<string, unknown> };

const compiled = new Map<string, Compiled>();
function evaluate(expression: string, vars: Record<string, unknown>): unknown {
  let fn = compiled.get(expression);
  if (!fn) compiled.set(expression, (fn = compileExpression(expression)));
  return fn(vars);
}

function matches(fn: JobFunction, event: Record<string, unknown>): boolean {
  return fn.triggers.some((t) => "event" in t && t.event === event.name && (!t.expression || evaluate(t.expression, { event }) === true));
}

/**
 * Concurrency groups of a run. A rule without `key` limits the whole function; `scope` "env" or
 * "account" shares the group across functions (Easel has one app and one environment). A key
 * that evaluates to nothing (an event stored before its field existed) is the group "".
 *
 * The first group is the run's fair key, the one the claim takes turns across (queue.ts): the
 * function's first keyed rule (its workspace key), else its first rule. Both groups limit alike,
 * so their order changes nothing else.
 */
export function concurrencyKeys(fn: JobFunction, event: Record<string, unknown>) {
  const rules = fn.concurrency.slice(0, 2);
  const fairFirst = [...rules.filter((r) => r.key), ...rules.filter((r) => !r.key)];
  return fairFirst.map((rule) => {
    const scope = rule.scope && rule.scope !== "fn" ? "*" : fn.id;
    const value = rule.key ? String(evaluate(rule.key, { event }) ?? "") : "";
    return { key: `${scope}|${rule.key ?? ""}|${value}`, limit: rule.limit };
  });
}

export function ckeyColumns(keys: { key: string; limit: number }[]) {
  return { ckey1: keys[0]?.key ?? null, climit1: keys[0]?.limit ?? null, ckey2: keys[1]?.key ?? null, climit2: keys[1]?.limit ?? null };
}

type EventRow = { id: string; name: string; payload: Record<string, unknown>; dedupeKey: string | null };

/** The row an incoming event is stored as: a new id, its own `id` (if any) as the dedupe key, defaults filled in. */
function eventRow(incoming: IncomingEvent, now: Date): EventRow {
  const id = newId(now.getTime());
  const dedupeKey = typeof incoming.id === "string" && incoming.id ? incoming.id : null;
  const payload: Record<string, unknown> = { ...incoming, id: dedupeKey ?? id, data: incoming.data ?? {}, ts: incoming.ts ?? now.getTime() };
  return { id, name: incoming.name, payload, dedupeKey };
}

export async function storeEvent(tx: Tx, incoming: IncomingEvent, now: Date): Promise<StoredEvent & { duplicate: boolean }> {
  const { id, payload, dedupeKey } = eventRow(incoming, now);
  const [row] = await tx
    .insert(jobEvents)
    .values({ id, name: incoming.name, payload, dedupeKey, receivedAt: now })
    .onConflictDoNothing()
    .returning({ id: jobEvents.id });
  if (row) return { id, payload, duplicate: false };
  const [existing] = await tx.select().from(jobEvents).where(eq(jobEvents.dedupeKey, dedupeKey!));
  return { id: existing.id, payload: existing.payload, duplicate: true };
}

/** A new run and its first call (discovery, attempt 0). */
export async function createRun(tx: Tx, fn: JobFunction, event: StoredEvent, now: Date): Promise<string> {
  const id = newId(now.getTime());
  const keys = concurrencyKeys(fn, event.payload);
  await tx.insert(jobRuns).values({ id, functionId: fn.id, eventId: event.id, status: "queued", concurrencyKeys: keys, createdAt: now });
  await tx.insert(jobQueue).values({ runId: id, kind: "call", stepId: "step", attempt: 0, availableAt: now, ...ckeyColumns(keys) });
  return id;
}

/** Events per statement: far below PostgreSQL's 65,535 bind parameters per statement. */
const EVENTS_PER_STATEMENT = 1000;

type RunRow = { id: string; functionId: string; eventId: string; keys: { key: string; limit: number }[] };

/** Batches of up to this many events have their statement prepared (a burst of single sends reuses one). */
const PREPARED_UP_TO = 4;

/** Leases the statement gives the first calls of new runs (see `ingestEvents`'s `lease`). */
type LeaseAsked = Pick<SlotOffer, "token" | "leaseMs" | "limit">;

type InsertedRow = { id: string | null; q_id: number | string | null; run_id: string | null };

/**
 * One statement stores a batch of events, the runs they start and the runs' first calls: the
 * events that are new (not a dedupe key seen before) are the ones the runs join on, so a repeat
 * starts nothing. A single statement is atomic without a transaction. With `lease`, runs marked
 * `leased` are stored running and their first call leased to the offering executor, as a claim
 * would have leased it (the answer lists those calls).
 */
async function insertBatch(db: DbOrTx, events: EventRow[], runs: (RunRow & { leased: boolean })[], now: Date, lease: LeaseAsked | null): Promise<{ inserted: Set<string>; leased: { queueId: number; runId: string }[] }> {
  const st = new Statement();
  const at = st.at(now);
  const eventValues = events.map((e) => `(${st.p(e.id, "text")}, ${st.p(e.name, "text")}, ${st.json(e.payload)}, ${st.p(e.dedupeKey, "text")}, ${at})`);
  const ctes = [`ev as (insert into job_events (id, name, payload, dedupe_key, received_at) values ${eventValues.join(", ")}
    on conflict do nothing returning id)`];
  let leasedRows = "";
  if (runs.length) {
    const token = st.p(lease?.token ?? null, "text");
    const leaseMs = st.p(lease?.leaseMs ?? 0, "int");
    const runValues = runs.map((r) => {
      const c = ckeyColumns(r.keys);
      return `(${st.p(r.id, "text")}, ${st.p(r.functionId, "text")}, ${st.p(r.eventId, "text")}, ${st.json(r.keys)}, ${st.p(c.ckey1, "text")}, ${st.p(c.climit1, "int")}, ${st.p(c.ckey2, "text")}, ${st.p(c.climit2, "int")}, ${st.p(r.leased, "boolean")})`;
    });
    const columns = "v(id, function_id, event_id, keys, ckey1, climit1, ckey2, climit2, leased)";
    ctes.push(`runs as (insert into job_runs (id, function_id, event_id, status, concurrency_keys, created_at, started_at)
      select v.id, v.function_id, v.event_id, case when v.leased then 'running' else 'queued' end, v.keys, ${at}, case when v.leased then ${at} end
      from (values ${runValues.join(", ")}) as ${columns} join ev on ev.id = v.event_id
      returning id)`);
    ctes.push(`queued as (insert into job_queue (run_id, kind, step_id, attempt, available_at, ckey1, climit1, ckey2, climit2, lease_token, lease_until)
      select v.id, 'call', 'step', 0, ${at}, v.ckey1, v.climit1, v.ckey2, v.climit2,
        case when v.leased then ${token} end, case when v.leased then clock_timestamp() + ${leaseMs} * interval '1 millisecond' end
      from (values ${runValues.join(", ")}) as ${columns} join runs on runs.id = v.id
      returning id, run_id, lease_token)`);
    leasedRows = ` union all select null, q.id, q.run_id from queued q where q.lease_token is not null`;
  }
  const rows = await runStatement<InsertedRow>(
    db,
    `with ${ctes.join(", ")} select ev.id, null::bigint as q_id, null::text as run_id from ev${leasedRows}`,
    st.params,
    events.length <= PREPARED_UP_TO && runs.length <= PREPARED_UP_TO,
  );
  return {
    inserted: new Set(rows.filter((r) => r.id !== null).map((r) => r.id!)),
    leased: rows.filter((r) => r.q_id !== null).map((r) => ({ queueId: Number(r.q_id), runId: r.run_id! })),
  };
}

/**
 * Stores events and starts a run of every function whose trigger matches, atomically: an event
 * is never stored without its runs. An event whose `id` was seen before starts nothing (the
 * sender's idempotency key). Answers the event ids, as the event API does. However many events
 * come at once (a fan-out sends hundreds), they take one statement per thousand.
 */
export async function ingestEvents(db: DbOrTx, events: IncomingEvent[], now: Date, lease: LeaseAsked | null = null): Promise<{ ids: string[]; runs: string[]; claims: Claim[] }> {
  if (events.length === 0) return { ids: [], runs: [], claims: [] };
  if (events.length > EVENTS_PER_STATEMENT && !("rollback" in db)) {
    // Several statements: one transaction keeps "no event without its runs".
    return db.transaction((tx) => ingestEvents(tx, events, now, lease));
  }
  const fns = await recentFunctions(db);
  const rows = events.map((incoming) => eventRow(incoming, now));
  // Runs without a concurrency group may be leased at once (nothing to count); the first `limit` of them.
  let leasable = lease?.limit ?? 0;
  const planned = rows.flatMap((r) =>
    fns
      .filter((fn) => matches(fn, r.payload))
      .map((fn) => {
        const keys = concurrencyKeys(fn, r.payload);
        const leased = keys.length === 0 && leasable > 0;
        if (leased) leasable--;
        return { id: newId(now.getTime()), functionId: fn.id, eventId: r.id, keys, leased };
      }),
  );
  const inserted = new Set<string>();
  const leased = new Map<string, number>();
  for (let i = 0; i < rows.length; i += EVENTS_PER_STATEMENT) {
    const part = rows.slice(i, i + EVENTS_PER_STATEMENT);
    const ids = new Set(part.map((r) => r.id));
    const done = await insertBatch(db, part, planned.filter((p) => ids.has(p.eventId)), now, lease);
    for (const id of done.inserted) inserted.add(id);
    for (const l of done.leased) leased.set(l.runId, l.queueId);
  }
  // Seen before (or twice in this batch): answer the stored event's id; it started nothing.
  const repeatKeys = rows.filter((r) => !inserted.has(r.id)).map((r) => r.dedupeKey!);
  const existing = new Map<string, string>();
  if (repeatKeys.length) {
    for (const e of await db.select({ id: jobEvents.id, key: jobEvents.dedupeKey }).from(jobEvents).where(inArray(jobEvents.dedupeKey, repeatKeys))) {
      existing.set(e.key!, e.id);
    }
  }
  return {
    ids: rows.map((r) => (inserted.has(r.id) ? r.id : existing.get(r.dedupeKey!)!)),
    runs: planned.filter((p) => inserted.has(p.eventId)).map((p) => p.id),
    claims: lease ? leasedClaims(planned, rows, leased, lease.token) : [],
  };
}

/** The calls the insert leased, with what each call needs (the run as stored, its event, no step yet): as a claim would load them. */
function leasedClaims(planned: (RunRow & { leased: boolean })[], rows: EventRow[], leased: Map<string, number>, token: string): Claim[] {
  const payloads = new Map(rows.map((r) => [r.id, r.payload]));
  return planned.flatMap((p) => {
    const queueId = leased.get(p.id);
    if (queueId === undefined) return [];
    return [
      {
        item: { id: queueId, runId: p.id, kind: "call" as const, stepId: "step", name: null, attempt: 0, leaseToken: token },
        state: { run: { id: p.id, functionId: p.functionId, status: "running" as const, disableImmediateExecution: false, requestVersion: null }, event: payloads.get(p.eventId)!, steps: [] },
      },
    ];
  });
}
