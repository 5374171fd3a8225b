import { and, eq } from "drizzle-orm";
import type { Principal } from "../auth/principal";
import { webhookDeliveries } from "../db/schema";
import type { Deps } from "../deps";
import { DomainError, notFound } from "../errors";
import { webhookDeliveryRequested } from "../jobs/events";
import { storeAndHandOff } from "../jobs/outbox";
import type { ResendJson } from "../openapi/schemas/webhooks";
import { getTriggerOrThrow } from "./get-trigger";
import { triggerStatus } from "./present";

export type { ResendJson };

/**
 * Beyond the interface: delivers a logged message again, with the same body and the same
 * `webhook-id` (receivers that already processed it recognise the duplicate), on a fresh retry
 * schedule. Its attempts continue the message's numbering in the log.
 */
export async function resendDelivery(deps: Deps, principal: Principal, input: { triggerId: string; deliveryId: string }): Promise<ResendJson> {
  const { trigger } = await getTriggerOrThrow(deps.db, principal, input.triggerId);
  // Delivery ids are integers; anything else names no delivery (and must not reach the integer column).
  if (!/^\d{1,9}$/.test(input.deliveryId)) throw notFound("delivery_not_found", "Delivery");
  const [delivery] = await deps.db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.id, Number(input.deliveryId)), eq(webhookDeliveries.triggerId, trigger.id)))
    .limit(1);
  if (!delivery) throw notFound("delivery_not_found", "Delivery");
  const status = triggerStatus(trigger, deps.clock());
  if (status !== "active") {
    throw new DomainError("validation_failed", `The trigger is ${status}: renew it before resending`, { field: "trigger", trigger_status: status });
  }
  // Stored before answering "queued", then handed on (lib/jobs/outbox). Each resend is an event of
  // its own: it starts a delivery run even though the message was delivered before.
  await storeAndHandOff(deps, webhookDeliveryRequested, { triggerId: trigger.id, messageId: delivery.messageId, payload: delivery.payload, workspaceId: trigger.workspaceId });
  return { trigger_id: trigger.id, message_id: delivery.messageId, status: "queued" };
}
