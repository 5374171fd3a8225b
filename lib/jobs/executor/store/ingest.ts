import { eq, inArray } from "drizzle-orm";
import type { DbOrTx, Tx } from "../../../db";
import { jobEvents, jobQueue, jobRuns, type JobFunction } from "../../../db/schema/jobs";
import { compileExpression, type Compiled } from "../expression";
import { newId } from "../ids";
import { recentFunctions } from "./functions";
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
 * "account" shares the group across functions (Easel has one app and one environment).
 */
export function concurrencyKeys(fn: JobFunction, event: Record<string, unknown>) {
  return fn.concurrency.slice(0, 2).map((rule) => {
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

/**
 * One statement stores a batch of events, the runs they start and the runs' first calls: the
 * events that are new (not a dedupe key seen before) are the ones the runs join on, so a repeat
 * starts nothing. A single statement is atomic without a transaction.
 */
async function insertBatch(db: DbOrTx, events: EventRow[], runs: RunRow[], now: Date): Promise<Set<string>> {
  const st = new Statement();
  const at = st.at(now);
  const eventValues = events.map((e) => `(${st.p(e.id, "text")}, ${st.p(e.name, "text")}, ${st.json(e.payload)}, ${st.p(e.dedupeKey, "text")}, ${at})`);
  const ctes = [`ev as (insert into job_events (id, name, payload, dedupe_key, received_at) values ${eventValues.join(", ")}
    on conflict do nothing returning id)`];
  if (runs.length) {
    const runValues = runs.map((r) => {
      const c = ckeyColumns(r.keys);
      return `(${st.p(r.id, "text")}, ${st.p(r.functionId, "text")}, ${st.p(r.eventId, "text")}, ${st.json(r.keys)}, ${st.p(c.ckey1, "text")}, ${st.p(c.climit1, "int")}, ${st.p(c.ckey2, "text")}, ${st.p(c.climit2, "int")})`;
    });
    ctes.push(`runs as (insert into job_runs (id, function_id, event_id, status, concurrency_keys, created_at)
      select v.id, v.function_id, v.event_id, 'queued', v.keys, ${at}
      from (values ${runValues.join(", ")}) as v(id, function_id, event_id, keys, ckey1, climit1, ckey2, climit2) join ev on ev.id = v.event_id
      returning id)`);
    ctes.push(`queued as (insert into job_queue (run_id, kind, step_id, attempt, available_at, ckey1, climit1, ckey2, climit2)
      select v.id, 'call', 'step', 0, ${at}, v.ckey1, v.climit1, v.ckey2, v.climit2
      from (values ${runValues.join(", ")}) as v(id, function_id, event_id, keys, ckey1, climit1, ckey2, climit2) join runs on runs.id = v.id)`);
  }
  const rows = await runStatement<{ id: string }>(db, `with ${ctes.join(", ")} select id from ev`, st.params, events.length <= PREPARED_UP_TO && runs.length <= PREPARED_UP_TO);
  return new Set(rows.map((r) => r.id));
}

/**
 * Stores events and starts a run of every function whose trigger matches, atomically: an event
 * is never stored without its runs. An event whose `id` was seen before starts nothing (the
 * sender's idempotency key). Answers the event ids, as the event API does. However many events
 * come at once (a fan-out sends hundreds), they take one statement per thousand.
 */
export async function ingestEvents(db: DbOrTx, events: IncomingEvent[], now: Date): Promise<{ ids: string[]; runs: string[] }> {
  if (events.length === 0) return { ids: [], runs: [] };
  if (events.length > EVENTS_PER_STATEMENT && !("rollback" in db)) {
    // Several statements: one transaction keeps "no event without its runs".
    return db.transaction((tx) => ingestEvents(tx, events, now));
  }
  const fns = await recentFunctions(db);
  const rows = events.map((incoming) => eventRow(incoming, now));
  const planned: RunRow[] = rows.flatMap((r) =>
    fns.filter((fn) => matches(fn, r.payload)).map((fn) => ({ id: newId(now.getTime()), functionId: fn.id, eventId: r.id, keys: concurrencyKeys(fn, r.payload) })),
  );
  const inserted = new Set<string>();
  for (let i = 0; i < rows.length; i += EVENTS_PER_STATEMENT) {
    const part = rows.slice(i, i + EVENTS_PER_STATEMENT);
    const ids = new Set(part.map((r) => r.id));
    for (const id of await insertBatch(db, part, planned.filter((p) => ids.has(p.eventId)), now)) inserted.add(id);
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
  };
}
