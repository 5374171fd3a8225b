import type { Trigger, WebhookDelivery } from "../db/schema";
import { canonicalPayload } from "./payload";

/** A trigger with the handles its JSON names it by. */
export type TriggerView = { trigger: Trigger; organizationSlug: string; collectionToken: string };

export type TriggerStatus = "active" | "expired" | "disabled";

export type TriggerJson = {
  id: string;
  hook: Trigger["hook"];
  hook_url: string;
  organization_slug: string;
  collection_token: string;
  expiration_date: string;
  created_at: string;
  /** Beyond the interface: `disabled` after a receiver answered 410 Gone (renew re-enables it). */
  status: TriggerStatus;
  disabled_at: string | null;
};

/** The 201 body of creation: the contract's fields, the only time `secret` is shown. */
export type CreatedTriggerJson = Pick<TriggerJson, "id" | "hook" | "hook_url" | "organization_slug" | "collection_token" | "expiration_date"> & { secret: string };

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

export type DeliveryJson = {
  id: number;
  trigger_id: string;
  /** The `webhook-id` header: shared by every attempt (retries and resends) of one message. */
  message_id: string;
  event: string;
  attempt: number;
  status: WebhookDelivery["status"];
  response_status: number | null;
  error: string | null;
  duration_ms: number | null;
  created_at: string;
  payload: unknown;
};

export function toDeliveryJson(d: WebhookDelivery): DeliveryJson {
  return {
    id: d.id,
    trigger_id: d.triggerId,
    message_id: d.messageId,
    event: d.event,
    attempt: d.attempt,
    status: d.status,
    response_status: d.responseStatus,
    error: d.error,
    duration_ms: d.durationMs,
    created_at: d.createdAt.toISOString(),
    payload: canonicalPayload(d.payload),
  };
}
