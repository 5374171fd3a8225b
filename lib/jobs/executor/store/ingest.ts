import { eq } from "drizzle-orm";
import type { DbOrTx, Tx } from "../../../db";
import { jobEvents, jobQueue, jobRuns, type JobFunction } from "../../../db/schema/jobs";
import { compileExpression, type Compiled } from "../expression";
import { newId } from "../ids";
import { loadFunctions } from "./functions";

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

export async function storeEvent(tx: Tx, incoming: IncomingEvent, now: Date): Promise<StoredEvent & { duplicate: boolean }> {
  const id = newId(now.getTime());
  const dedupeKey = typeof incoming.id === "string" && incoming.id ? incoming.id : null;
  const payload: Record<string, unknown> = { ...incoming, id: dedupeKey ?? id, data: incoming.data ?? {}, ts: incoming.ts ?? now.getTime() };
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

/**
 * Stores events and starts a run of every function whose trigger matches, atomically: an event
 * is never stored without its runs. An event whose `id` was seen before starts nothing (the
 * sender's idempotency key). Answers the event ids, as the event API does.
 */
export async function ingestEvents(db: DbOrTx, events: IncomingEvent[], now: Date): Promise<{ ids: string[]; runs: string[] }> {
  return db.transaction(async (tx) => {
    const fns = await loadFunctions(tx);
    const ids: string[] = [];
    const runs: string[] = [];
    for (const incoming of events) {
      const stored = await storeEvent(tx, incoming, now);
      ids.push(stored.id);
      if (stored.duplicate) continue;
      for (const fn of fns) {
        if (matches(fn, stored.payload)) runs.push(await createRun(tx, fn, stored, now));
      }
    }
    return { ids, runs };
  });
}
