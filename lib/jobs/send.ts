import type { EventType, StandardSchemaV1 } from "inngest";
import type { Tx } from "../db";
import { inngest } from "./client";
import type { SlotOffer } from "./executor/local-slots";
import { ingestEvents } from "./executor/store/ingest";
import type { Claim } from "./executor/store/queue";

/** An event of the registry (lib/jobs/events.ts). */
export type JobEvent = EventType<string, StandardSchemaV1<Record<string, unknown>>>;
export type JobEventData<E extends JobEvent> = StandardSchemaV1.InferInput<E["schema"]>;
export type SendOptions = {
  /** Idempotency: a second event with the same id starts no function. Leave unset to queue a run on every send. */
  id?: string;
  /** When the event happened (ms since the epoch), if not now: an event handed on late keeps its time. */
  ts?: number;
};

/** An event as the outbox (lib/jobs/outbox) hands it on: its row id is the event's id. */
export type StoredJobEvent = { id: string; name: string; data: Record<string, unknown>; ts: number };

/**
 * The port through which events reach the job system (`deps.jobs`). The payload is validated
 * against the event's schema; a bad payload throws before anything is sent.
 *
 * Domain code does not call it: a write stores its events in its own transaction
 * (lib/jobs/outbox) and the outbox relay hands them on through this port after the commit, with
 * the outbox row's id as the event id.
 */
export interface JobSender {
  send<E extends JobEvent>(event: E, data: JobEventData<E>, options?: SendOptions): Promise<void>;
  /**
   * Only where the job system keeps its events in the app's own database (the embedded executor):
   * stores them with `tx`, so that the relay's hand-off and its deletion of the outbox rows commit
   * together (exactly once). Senders without it are sent to with `send`, then the rows deleted.
   * With `lease` (free slots of an executor of this process), the runs' first calls are stored
   * leased to it: `claims` are for that executor to adopt once the transaction has committed
   * (nothing answered: no call was leased, the executor is woken to look).
   */
  storeInTransaction?(tx: Tx, events: StoredJobEvent[], now: Date, lease?: SlotOffer | null): Promise<{ runs: string[]; claims: Claim[] } | void>;
}

/** Through the Inngest client: to a real Inngest server, or to the embedded executor's event API. */
export function inngestJobSender(client = inngest): JobSender {
  return {
    async send(event, data, options) {
      await client.send(event.create(data as never, options));
    },
  };
}

/**
 * The app's sender on the embedded executor: `send` goes through the Inngest client to the
 * in-process event API, and the outbox relay stores events straight into the executor's tables
 * inside its own transaction (`ingestEvents` with the row id as the dedupe key).
 */
export function embeddedJobSender(client = inngest): JobSender {
  return {
    ...inngestJobSender(client),
    async storeInTransaction(tx, events, now, lease) {
      const { runs, claims } = await ingestEvents(tx, events.map((e) => ({ name: e.name, data: e.data, id: e.id, ts: e.ts })), now, lease ?? null);
      return { runs, claims };
    },
  };
}

export type RecordedEvent = { name: string; data: unknown; id?: string };

/** For tests: validates and records instead of sending (assert on `sent` or `dataOf(event)`). */
export function recordingJobSender() {
  const sent: RecordedEvent[] = [];
  return {
    sent,
    async send<E extends JobEvent>(event: E, data: JobEventData<E>, options?: SendOptions) {
      const result = await event.schema["~standard"].validate(data);
      if (result.issues) throw new Error(`invalid ${event.name} payload: ${result.issues.map((i) => i.message).join(", ")}`);
      sent.push({ name: event.name, data, ...(options?.id ? { id: options.id } : {}) });
    },
    dataOf<E extends JobEvent>(event: E): JobEventData<E>[] {
      return sent.filter((e) => e.name === event.name).map((e) => e.data as JobEventData<E>);
    },
    clear() {
      sent.length = 0;
    },
  } satisfies JobSender & Record<string, unknown>;
}
