import { sql } from "drizzle-orm";
import { webhookDeliveries, type Trigger } from "../db/schema";
import type { Deps } from "../deps";
import { runStatement, Statement } from "../jobs/executor/store/statement";
import { announceDeliveries } from "../live/announce-from-job";

/** One attempt to record: what was sent, to whom, and how it went. */
export type AttemptRecord = {
  trigger: Trigger;
  messageId: string;
  payload: unknown;
  ok: boolean;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
};

/** Times an attempt is numbered again after another attempt of its message took the number first. */
const NUMBERING_TRIES = 50;

const nextAttempt = (triggerId: string, messageId: string) =>
  sql<number>`(select count(*) + 1 from ${webhookDeliveries} where ${webhookDeliveries.triggerId} = ${triggerId} and ${webhookDeliveries.messageId} = ${messageId})`;

function rowOf(deps: Deps, r: AttemptRecord) {
  return {
    triggerId: r.trigger.id,
    messageId: r.messageId,
    event: r.trigger.hook,
    payload: r.payload,
    attempt: nextAttempt(r.trigger.id, r.messageId),
    status: r.ok ? ("succeeded" as const) : ("failed" as const),
    responseStatus: r.responseStatus,
    error: r.error,
    durationMs: r.durationMs,
    createdAt: deps.clock(),
  };
}

const keyOf = (triggerId: string, messageId: string) => `${triggerId}\n${messageId}`;

/** Batches of up to this many attempts have their statement prepared (a fan-out to a few triggers, a retry). */
const PREPARED_UP_TO = 16;

/**
 * Records attempts, a batch's in one statement, and answers each one's number (in `records`
 * order). A number continues its message's log (a retry or resend follows the attempts before it).
 * Attempts of one message can be logged at the same moment (a resend racing a retry): the unique
 * (trigger, message, attempt) index lets only one take a number, and the others are numbered
 * again one by one, which only happens in such a race.
 *
 * Written as SQL text on the driver (as the job executor's hot statements are, and for the same
 * reason): every fan-out logs a batch, and building the insert with the query builder cost more
 * CPU than running it.
 */
export async function logAttempts(deps: Deps, records: AttemptRecord[]): Promise<number[]> {
  if (records.length === 0) return [];
  const st = new Statement();
  const at = st.at(deps.clock());
  const values = records.map(
    (r) =>
      `(${st.p(r.trigger.id, "text")}, ${st.p(r.messageId, "text")}, ${st.p(r.trigger.hook, "text")}, ${st.json(r.payload)}, ${st.p(r.ok ? "succeeded" : "failed", "text")}, ${st.p(r.responseStatus, "int")}, ${st.p(r.error, "text")}, ${st.p(r.durationMs, "int")})`,
  );
  const inserted = await runStatement<{ trigger_id: string; message_id: string; attempt: number }>(
    deps.db,
    `insert into webhook_deliveries (trigger_id, message_id, event, payload, attempt, status, response_status, error, duration_ms, created_at)
      select v.trigger_id, v.message_id, v.event, v.payload,
        (select count(*) + 1 from webhook_deliveries d where d.trigger_id = v.trigger_id and d.message_id = v.message_id),
        v.status, v.response_status, v.error, v.duration_ms, ${at}
      from (values ${values.join(", ")}) as v(trigger_id, message_id, event, payload, status, response_status, error, duration_ms)
      on conflict (trigger_id, message_id, attempt) do nothing
      returning trigger_id, message_id, attempt`,
    st.params,
    records.length <= PREPARED_UP_TO,
  );
  // A message appears once per batch, except when a caller logs several attempts of one message at once.
  const numbered = new Map<string, number[]>();
  for (const row of inserted) {
    const key = keyOf(row.trigger_id, row.message_id);
    numbered.set(key, [...(numbered.get(key) ?? []), Number(row.attempt)]);
  }
  const attempts: number[] = [];
  for (const r of records) {
    const taken = numbered.get(keyOf(r.trigger.id, r.messageId));
    attempts.push(taken?.length ? taken.shift()! : await logOneAgain(deps, r));
  }
  await announceDeliveries(deps.db, records.map((r) => r.trigger));
  return attempts;
}

async function logOneAgain(deps: Deps, r: AttemptRecord): Promise<number> {
  for (let i = 0; i < NUMBERING_TRIES; i++) {
    const [row] = await deps.db
      .insert(webhookDeliveries)
      .values(rowOf(deps, r))
      .onConflictDoNothing({ target: [webhookDeliveries.triggerId, webhookDeliveries.messageId, webhookDeliveries.attempt] })
      .returning({ attempt: webhookDeliveries.attempt });
    if (row) return row.attempt;
  }
  throw new Error(`could not number an attempt of ${r.messageId}: ${NUMBERING_TRIES} others took the numbers first`);
}
