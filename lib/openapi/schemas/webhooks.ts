import { z } from "zod";
import { HOOKS, TRIGGER_DISABLED_REASONS } from "../../db/schema/triggers";
import { BOUNDS } from "../../http/bounds";
import { pageQuery } from "../../http/pagination";
import { PagyJson, Timestamp } from "./common";

// ---- requests (app/v1/trigger/** validate with these)

export const CreateTriggerBody = z.object({
  hook: z.enum(HOOKS),
  /** Checked in lib/webhooks (scheme, address): failures there are invalid_hook_url, not validation_failed. */
  hook_url: z.string().min(1).max(BOUNDS.url).meta({ description: "Receiver endpoint: http(s), publicly reachable (https advised)." }),
  organization_slug: z.string().min(1).max(BOUNDS.slug).meta({ description: "Workspace slug." }),
  collection_token: z.string().min(1).max(BOUNDS.boardToken).meta({ description: "Board to watch (its sub-boards included)." }),
});

export const ListTriggersQuery = z.object({
  organization_slug: z.string().min(1).max(BOUNDS.slug).optional(),
  collection_token: z.string().min(1).max(BOUNDS.boardToken).optional(),
});

export const ListDeliveriesQuery = pageQuery().extend({
  message_id: z.string().min(1).max(BOUNDS.messageId).optional().meta({ description: "Only the attempts of this message (its `webhook-id`)." }),
});

// ---- responses (lib/webhooks/present.ts, lib/webhooks/resend-delivery.ts)

const TRIGGER_STATUSES = ["active", "expired", "disabled"] as const;

const triggerFields = {
  id: z.string().meta({ description: "Identifier used to delete or renew the trigger." }),
  hook: z.enum(HOOKS),
  hook_url: z.string(),
  organization_slug: z.string(),
  collection_token: z.string(),
  expiration_date: Timestamp.meta({ description: "No deliveries after it; renew or recreate the trigger (90 days from creation or renewal)." }),
};

export const TriggerJson = z
  .strictObject({
    ...triggerFields,
    created_at: Timestamp,
    status: z.enum(TRIGGER_STATUSES).meta({ description: "`disabled` after a receiver answered 410 Gone, or when the person who made it lost the admin role (renew re-enables it)." }),
    disabled_at: Timestamp.nullable(),
    disabled_reason: z
      .enum(TRIGGER_DISABLED_REASONS)
      .nullable()
      .meta({
        description:
          "Why it is disabled: `receiver_gone` (the receiver answered 410 Gone) or `maker_lost_access` (the person it was made by, signed in or through an API token they made, was removed from the workspace or lost the admin role; renewing hands it to the caller). Null when not disabled.",
      }),
  })
  .meta({ id: "Trigger", description: "A webhook trigger (bare, not in a `data` envelope)." });
export type TriggerJson = z.infer<typeof TriggerJson>;
export type TriggerStatus = TriggerJson["status"];

export const CreatedTriggerJson = z
  .strictObject({
    ...triggerFields,
    secret: z.string().regex(/^whsec_/).meta({ description: "Signing secret (Standard Webhooks); shown only in this answer." }),
  })
  .meta({ id: "CreatedTrigger", description: "The trigger just created, bare, with its signing secret." });
export type CreatedTriggerJson = z.infer<typeof CreatedTriggerJson>;

export const TriggerListJson = z.strictObject({ data: z.array(TriggerJson) }).meta({
  id: "TriggerList",
  description: "The caller's triggers, oldest first, expired and disabled ones included (not paginated).",
});
export type TriggerListJson = z.infer<typeof TriggerListJson>;

// ---- webhook deliveries: the POST body Easel sends to a hook_url (lib/webhooks/payload.ts)

const Organization = z.strictObject({ slug: z.string(), name: z.string() });
const Collection = z.strictObject({ token: z.string(), title: z.string() });

export const AddedAssetPayloadJson = z
  .strictObject({
    id: z.number().int(),
    token: z.string(),
    title: z.string(),
    media_type: z.string(),
    display_url: z.url(),
    created_at: Timestamp,
    updated_at: Timestamp,
    tags: z.array(z.string()),
    fields: z.record(z.string(), z.string()),
  })
  .meta({ id: "WebhookAssetAdded" });

export const UpdatedAssetPayloadJson = z
  .strictObject({
    id: z.number().int(),
    token: z.string(),
    title: z.string(),
    updated_at: Timestamp,
    changes: z
      .record(z.string(), z.strictObject({ old: z.unknown(), new: z.unknown() }))
      .meta({ description: "Keyed by the changed attribute (`title`, `fields`, `stream_url`, …)." }),
  })
  .meta({ id: "WebhookAssetUpdated" });

export const DeletedAssetPayloadJson = z.strictObject({ id: z.number().int(), token: z.string(), title: z.string() }).meta({ id: "WebhookAssetDeleted" });

const envelope = <E extends (typeof HOOKS)[number], A extends z.ZodType>(event: E, asset: A) =>
  z.strictObject({
    event: z.literal(event),
    timestamp: Timestamp.meta({ description: "When the change happened; identical across retries (a dedupe key with event and asset token)." }),
    organization: Organization,
    collection: Collection.meta({ description: "The watched board (an asset on a sub-board is reported under it)." }),
    asset: asset,
  });

export const WebhookPayloadJson = z
  .discriminatedUnion("event", [
    envelope("asset_added", AddedAssetPayloadJson),
    envelope("asset_updated", UpdatedAssetPayloadJson),
    envelope("asset_deleted", DeletedAssetPayloadJson),
  ])
  .meta({ id: "WebhookPayload", description: "The JSON body of a delivery, signed per Standard Webhooks." });
export type WebhookPayloadJson = z.infer<typeof WebhookPayloadJson>;

export const DeliveryJson = z
  .strictObject({
    id: z.number().int(),
    trigger_id: z.string(),
    message_id: z.string().meta({ description: "The `webhook-id` header: shared by every attempt (retries and resends) of one message." }),
    event: z.enum(HOOKS),
    attempt: z.number().int().min(1),
    status: z.enum(["succeeded", "failed"]),
    response_status: z.number().int().nullable(),
    error: z.string().nullable(),
    duration_ms: z.number().int().nullable(),
    created_at: Timestamp,
    payload: WebhookPayloadJson.meta({ description: "The body as it was sent." }),
  })
  .meta({ id: "Delivery", description: "One delivery attempt." });
export type DeliveryJson = z.infer<typeof DeliveryJson>;

export const DeliveryPage = z.strictObject({ data: z.array(DeliveryJson), pagy: PagyJson }).meta({
  id: "DeliveryPage",
  description: "A trigger's delivery log, one row per attempt, newest first.",
});
export type DeliveryPage = z.infer<typeof DeliveryPage>;

export const ResendJson = z
  .strictObject({ trigger_id: z.string(), message_id: z.string(), status: z.literal("queued") })
  .meta({ id: "Resend", description: "The message is queued for delivery again, same body and `webhook-id`, on a fresh retry schedule." });
export type ResendJson = z.infer<typeof ResendJson>;
