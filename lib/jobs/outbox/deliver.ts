import type { EventOutboxRow } from "../../db/schema/event-outbox";
import type { Deps } from "../../deps";
import { log } from "../../log/logger.mjs";
import { offerLocalSlots } from "../executor/local-slots";
import { notifyWork } from "../executor/signal";
import type { Claim } from "../executor/store/queue";
import type { JobSender, StoredJobEvent } from "../send";
import { storableEvent } from "./registry";
import { recordFailure, recordSuccess, rowRetryDelayMs } from "./state";
import { deleteRows, leaseByIds, leaseDue, releaseFailed, releaseUntried, takeByIds, takeDue } from "./store";

export type RelayDeps = Pick<Deps, "db" | "jobs" | "clock">;

/** Which rows to hand on: a write's own (by id, right after its commit), or the oldest due ones. */
export type Selection = { ids: string[] } | { due: number };

/** `outage`: a row failed within its first attempts, which most likely means the job system is down. */
export type Delivered = { taken: number; handed: number; failed: number; error?: string; outage?: boolean };

/**
 * How long a relay holds rows it is sending to a job system elsewhere: a relay that dies holding
 * them leaves them to another after this. A send still under way when it ends may be repeated by
 * another relay, which the event id makes harmless.
 */
const LEASE_MS = 60_000;

/**
 * A row failing within its first attempts points at the job system (down, unreachable); one that
 * keeps failing after that, alone, is more likely refused for itself (too large for an Inngest
 * server, say). Only the first kind pauses this process: a refused row must not hold back the
 * other events (nor mark the node unready); it waits on its own backoff, and is never given up.
 */
const FRESH_ATTEMPTS = 3;
const fresh = (row: EventOutboxRow) => row.attempts < FRESH_ATTEMPTS;

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));
const toStored = (row: EventOutboxRow): StoredJobEvent => ({ id: row.id, name: row.name, data: row.data, ts: row.createdAt.getTime() });

/**
 * The embedded executor keeps its events in this database: taking the rows out of the outbox and
 * storing them as job events is one transaction, so each is handed on exactly once. A refusal
 * rolls everything back; the rows are then tried one by one, so that a row the store refuses
 * waits on its own backoff instead of holding back the others.
 */
async function deliverInTransaction(deps: RelayDeps, store: NonNullable<JobSender["storeInTransaction"]>, which: Selection): Promise<Delivered> {
  let taken: EventOutboxRow[] = [];
  // An executor of this process with free slots gets the new runs' first calls leased by the
  // store itself (no claim statement), adopted once the transaction has committed.
  const offer = offerLocalSlots(deps.db);
  let stored: { runs: string[]; claims: Claim[] } | null = null;
  try {
    await deps.db.transaction(async (tx) => {
      taken = "ids" in which ? await takeByIds(tx, which.ids) : await takeDue(tx, which.due);
      if (taken.length) stored = (await store(tx, taken.map(toStored), deps.clock(), offer)) ?? null;
    });
  } catch (err) {
    offer?.release();
    // Nothing taken: the database itself failed, and the rows are as they were.
    if (!taken.length) throw err;
    if (taken.length > 1) {
      const total: Delivered = { taken: taken.length, handed: 0, failed: 0, error: messageOf(err) };
      for (const row of taken) {
        const one = await deliverInTransaction(deps, store, { ids: [row.id] });
        total.handed += one.handed;
        total.failed += one.failed;
        total.outage ||= one.outage;
      }
      return total;
    }
    const [row] = taken;
    await releaseFailed(deps.db, [row.id], rowRetryDelayMs(row.attempts + 1), messageOf(err));
    logStubbornRow(row, err);
    return { taken: 1, handed: 0, failed: 1, error: messageOf(err), outage: fresh(row) };
  }
  const done = stored as { runs: string[]; claims: Claim[] } | null;
  offer?.adopt(done?.claims ?? []);
  if (taken.length && (!done || done.claims.length < done.runs.length)) notifyWork();
  return { taken: taken.length, handed: taken.length, failed: 0 };
}

/**
 * A job system elsewhere (an Inngest server): lease the rows, send each with its row id as the
 * event id, delete what was sent. At the first failure the batch stops: the failed row waits on its
 * own backoff, the untried ones until the pause ends (the server is most likely unreachable), or
 * are due again at once when the failed row had failed before (most likely refused for itself).
 */
async function deliverBySending(deps: RelayDeps, which: Selection): Promise<Delivered> {
  const rows = "ids" in which ? await leaseByIds(deps.db, which.ids, LEASE_MS) : await leaseDue(deps.db, which.due, LEASE_MS);
  const sent: string[] = [];
  for (const [i, row] of rows.entries()) {
    try {
      const event = storableEvent(row.name);
      if (!event) throw new Error(`no event ${row.name} in the registry of this version`);
      await deps.jobs.send(event, row.data as never, { id: row.id, ts: row.createdAt.getTime() });
      sent.push(row.id);
    } catch (err) {
      await deleteRows(deps.db, sent);
      await releaseFailed(deps.db, [row.id], rowRetryDelayMs(row.attempts + 1), messageOf(err));
      const outage = sent.length === 0 && fresh(row);
      await releaseUntried(deps.db, rows.slice(i + 1).map((r) => r.id), outage ? recordFailure(messageOf(err)) : 0);
      logStubbornRow(row, err);
      return { taken: rows.length, handed: sent.length, failed: 1, error: messageOf(err), outage };
    }
  }
  await deleteRows(deps.db, sent);
  return { taken: rows.length, handed: sent.length, failed: 0 };
}

/**
 * Hands the selected outbox rows on to the job system and removes them. Never loses a row: what
 * fails stays in the outbox with a backoff, for the relay. Throws only when the database fails
 * (then the rows stay as they were, due for the next try).
 */
export async function deliver(deps: RelayDeps, which: Selection): Promise<Delivered> {
  if ("ids" in which && which.ids.length === 0) return { taken: 0, handed: 0, failed: 0 };
  const store = deps.jobs.storeInTransaction?.bind(deps.jobs);
  const result = store ? await deliverInTransaction(deps, store, which) : await deliverBySending(deps, which);
  if (result.handed > 0) recordSuccess();
  else if (result.failed > 0 && store && result.outage) recordFailure(result.error ?? "refused");
  return result;
}

/**
 * A row still failing at its 10th, 100th … attempt: most likely one the job system refuses while
 * it takes others (the outage itself is logged by recordFailure). It is kept and tried again.
 */
function logStubbornRow(row: EventOutboxRow, err: unknown) {
  const attempt = row.attempts + 1;
  if (attempt >= 10 && Number.isInteger(Math.log10(attempt))) {
    log().warn({ component: "outbox", event: row.name, outbox_id: row.id, attempt, reason: messageOf(err) }, "event still not handed on; kept and tried again");
  }
}
