import type { DbOrTx } from "../../db";
import { eventOutbox } from "../../db/schema/event-outbox";
import { announceStaged } from "../../live/announce-staged";
import { newId } from "../executor/ids";
import type { JobEvent, JobEventData } from "../send";
import { storableEvent } from "./registry";

/**
 * Stores a job event in the outbox with `tx`, the transaction of the write that produced it: the
 * event exists exactly when the write committed. The payload is validated against the event's
 * schema first, so a bad payload fails the write instead of failing later at hand-off. Answers
 * the row's id (the event's id at the job system); hand it to `handOff` after the commit. Open
 * pages hear of it at the same commit (lib/live), with the row's id as their cursor.
 */
export async function stageEvent<E extends JobEvent>(tx: DbOrTx, event: E, data: JobEventData<E>): Promise<string> {
  if (storableEvent(event.name) !== event) throw new Error(`${event.name} is not in the outbox registry (lib/jobs/outbox/registry.ts)`);
  const result = await event.schema["~standard"].validate(data);
  if (result.issues) throw new Error(`invalid ${event.name} payload: ${result.issues.map((i) => i.message).join(", ")}`);
  const id = newId();
  await tx.insert(eventOutbox).values({ id, name: event.name, data: data as Record<string, unknown> });
  await announceStaged(tx, id, event.name, data);
  return id;
}
