import { eq } from "drizzle-orm";
import type { Principal } from "../auth/principal";
import { triggers } from "../db/schema";
import type { Deps } from "../deps";
import { getTriggerOrThrow } from "./get-trigger";
import { makerOf } from "./maker";
import { TRIGGER_LIFETIME_MS } from "./policy";
import { toTriggerJson, type TriggerJson } from "./present";

/**
 * Beyond the interface: another 90 days from now, for a live or an expired trigger. It also
 * re-enables a trigger its receiver disabled with 410 Gone: renewing is the client saying the
 * receiver is back. It re-enables one disabled because its maker lost the admin role too, and
 * the caller takes it over: it now stops when the caller loses that role. Events that happened
 * while it was expired or disabled are not replayed.
 */
export async function renewTrigger(deps: Deps, principal: Principal, id: string): Promise<TriggerJson> {
  const view = await getTriggerOrThrow(deps.db, principal, id);
  const now = deps.clock();
  const [trigger] = await deps.db
    .update(triggers)
    .set({ expirationDate: new Date(now.getTime() + TRIGGER_LIFETIME_MS), disabledAt: null, disabledReason: null, createdBy: makerOf(principal) })
    .where(eq(triggers.id, view.trigger.id))
    .returning();
  return toTriggerJson({ ...view, trigger }, now);
}
