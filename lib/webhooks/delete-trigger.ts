import { eq } from "drizzle-orm";
import type { Principal } from "../auth/principal";
import { triggers } from "../db/schema";
import type { Deps } from "../deps";
import { getTriggerOrThrow } from "./get-trigger";

/**
 * Deletes a trigger: nothing is delivered for it from now on, including retries already
 * scheduled (each attempt looks the trigger up first). The row stays, marked deleted, so the
 * delivery log keeps its history; the API no longer shows either.
 */
export async function deleteTrigger(deps: Deps, principal: Principal, id: string): Promise<void> {
  const { trigger } = await getTriggerOrThrow(deps.db, principal, id);
  await deps.db.update(triggers).set({ deletedAt: deps.clock() }).where(eq(triggers.id, trigger.id));
}
