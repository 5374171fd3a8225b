import type { Trigger, WebhookDelivery } from "../db/schema";
import type { CreatedTriggerJson, DeliveryJson, TriggerJson, TriggerStatus, WebhookPayloadJson } from "../openapi/schemas/webhooks";
import { canonicalPayload } from "./payload";

/** The wire shapes are the response schemas' (lib/openapi/schemas), so the reference cannot drift from these. */
export type { CreatedTriggerJson, DeliveryJson, TriggerJson, TriggerStatus };

/** A trigger with the handles its JSON names it by. */
export type TriggerView = { trigger: Trigger; organizationSlug: string; collectionToken: string };

export function triggerStatus(t: Trigger, now: Date): TriggerStatus {
  if (t.disabledAt) return "disabled";
  return t.expirationDate.getTime() <= now.getTime() ? "expired" : "active";
}

export function toTriggerJson(v: TriggerView, now: Date): TriggerJson {
  const t = v.trigger;
  return {
    id: t.id,
    hook: t.hook,
    hook_url: t.hookUrl,
    organization_slug: v.organizationSlug,
    collection_token: v.collectionToken,
    expiration_date: t.expirationDate.toISOString(),
    created_at: t.createdAt.toISOString(),
    status: triggerStatus(t, now),
    disabled_at: t.disabledAt?.toISOString() ?? null,
    // Releases before the reason column disabled triggers only for a 410 Gone.
    disabled_reason: t.disabledAt ? (t.disabledReason ?? "receiver_gone") : null,
  };
}

export function toCreatedTriggerJson(v: TriggerView): CreatedTriggerJson {
  const t = v.trigger;
  return {
    id: t.id,
    hook: t.hook,
    hook_url: t.hookUrl,
    organization_slug: v.organizationSlug,
    collection_token: v.collectionToken,
    expiration_date: t.expirationDate.toISOString(),
    secret: t.secret,
  };
}

export function toDeliveryJson(d: WebhookDelivery): DeliveryJson {
  return {
    id: d.id,
    trigger_id: d.triggerId,
    message_id: d.messageId,
    // Rows are written by the delivery job from a WebhookPayload (the event column is its hook).
    event: d.event as DeliveryJson["event"],
    attempt: d.attempt,
    status: d.status,
    response_status: d.responseStatus,
    error: d.error,
    duration_ms: d.durationMs,
    created_at: d.createdAt.toISOString(),
    payload: canonicalPayload(d.payload) as WebhookPayloadJson,
  };
}
