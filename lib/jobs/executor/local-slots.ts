import type { Db } from "../../db";
import type { Claim } from "./store/queue";

/**
 * Free call slots of an executor running in this process, offered to the event API of the same
 * database: a send stores its runs' first calls already leased to that executor and hands them
 * over, so a run costs no claim statement of its own (the event's insert is the claim).
 *
 * `limit` slots are reserved until `adopt` or `release` (once, whichever comes first): the
 * executor's loop does not fill them meanwhile.
 */
export type SlotOffer = {
  token: string;
  leaseMs: number;
  limit: number;
  /** The calls the insert leased (at most `limit`); the rest of the reservation is freed. */
  adopt(claims: Claim[]): void;
  /** Nothing was leased (the insert failed, or took no run). */
  release(): void;
};

type Provider = { offerSlots(): SlotOffer | null };

/** On globalThis, as the work signal: the event API and the executor may be loaded in different module graphs. */
type Registry = { byDb: WeakMap<object, Provider> };
const registry: Registry = ((globalThis as { __easelJobsLocalSlots?: Registry }).__easelJobsLocalSlots ??= { byDb: new WeakMap() });

export function offerLocalSlots(db: Db): SlotOffer | null {
  return registry.byDb.get(db)?.offerSlots() ?? null;
}

export function provideLocalSlots(db: Db, provider: Provider): () => void {
  registry.byDb.set(db, provider);
  return () => {
    if (registry.byDb.get(db) === provider) registry.byDb.delete(db);
  };
}
