import type { EventType, StandardSchemaV1 } from "inngest";
import { inngest } from "./client";

/** An event of the registry (lib/jobs/events.ts). */
export type JobEvent = EventType<string, StandardSchemaV1<Record<string, unknown>>>;
export type JobEventData<E extends JobEvent> = StandardSchemaV1.InferInput<E["schema"]>;
export type SendOptions = {
  /** Idempotency: a second event with the same id starts no function. Leave unset to queue a run on every send. */
  id?: string;
};

/**
 * The port domain code sends jobs through (`deps.jobs`). The payload is validated against the
 * event's schema; a bad payload throws before anything is sent.
 *
 * Send after your transaction commits, never inside `db.transaction()`: a run must not start for
 * a change that rolls back, and on the embedded database the event is stored through the same
 * single session, so a send from inside a transaction would wait for that transaction forever.
 */
export interface JobSender {
  send<E extends JobEvent>(event: E, data: JobEventData<E>, options?: SendOptions): Promise<void>;
}

/** Through the Inngest client: to a real Inngest server, or to the embedded executor's event API. */
export function inngestJobSender(client = inngest): JobSender {
  return {
    async send(event, data, options) {
      await client.send(event.create(data as never, options));
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
