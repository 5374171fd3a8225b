import { and, count, desc, eq, type SQL } from "drizzle-orm";
import type { Principal } from "../auth/principal";
import { webhookDeliveries } from "../db/schema";
import type { Deps } from "../deps";
import { offsetOf, pagy, type Page, type Pagy } from "../http/pagination";
import { getTriggerOrThrow } from "./get-trigger";
import { toDeliveryJson, type DeliveryJson } from "./present";

/** Beyond the interface: the delivery log of a trigger, one row per attempt, newest first. */
export async function listDeliveries(
  deps: Deps,
  principal: Principal,
  input: { triggerId: string; page: Page; messageId?: string },
): Promise<{ data: DeliveryJson[]; pagy: Pagy }> {
  const { trigger } = await getTriggerOrThrow(deps.db, principal, input.triggerId);
  const where: SQL[] = [eq(webhookDeliveries.triggerId, trigger.id)];
  if (input.messageId !== undefined) where.push(eq(webhookDeliveries.messageId, input.messageId));
  const [rows, [{ total }]] = await Promise.all([
    deps.db
      .select()
      .from(webhookDeliveries)
      .where(and(...where))
      .orderBy(desc(webhookDeliveries.id))
      .limit(input.page.perPage)
      .offset(offsetOf(input.page)),
    deps.db.select({ total: count() }).from(webhookDeliveries).where(and(...where)),
  ]);
  return { data: rows.map(toDeliveryJson), pagy: pagy(input.page, rows.length, Number(total)) };
}
