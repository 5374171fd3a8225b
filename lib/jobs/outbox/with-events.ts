import type { DbOrTx, Tx } from "../../db";
import type { JobEvent, JobEventData } from "../send";
import type { RelayDeps } from "./deliver";
import { handOff } from "./hand-off";
import { stageEvent } from "./stage";

/** Stores an event with the write it belongs to. */
export type StageEvent = <E extends JobEvent>(event: E, data: JobEventData<E>) => Promise<void>;

/**
 * The events of one operation whose writes span calls: `stage(tx, …)` inside each write's
 * transaction, then `handOff()` once after the last commit.
 */
export function eventsOf(deps: RelayDeps) {
  const ids: string[] = [];
  return {
    async stage<E extends JobEvent>(tx: DbOrTx, event: E, data: JobEventData<E>) {
      ids.push(await stageEvent(tx, event, data));
    },
    /** After the commit: events of a transaction that rolled back are simply not found. */
    handOff: () => handOff(deps, ids.splice(0)),
  };
}

/**
 * A transaction whose events are stored in it and handed on after it commits: the usual shape of
 * a write that produces jobs or webhooks.
 */
export async function transactionWithEvents<T>(deps: RelayDeps, work: (tx: Tx, stage: StageEvent) => Promise<T>): Promise<T> {
  const events = eventsOf(deps);
  const result = await deps.db.transaction((tx) => work(tx, (event, data) => events.stage(tx, event, data)));
  await events.handOff();
  return result;
}

/** A single event with no other write to join (a resend, a test's event): stored, then handed on. */
export async function storeAndHandOff<E extends JobEvent>(deps: RelayDeps, event: E, data: JobEventData<E>): Promise<void> {
  await handOff(deps, [await stageEvent(deps.db, event, data)]);
}
