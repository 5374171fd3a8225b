import { z } from "zod";
import { HOOKS } from "@/lib/db/schema";
import { pageQuery } from "@/lib/http/pagination";

export const CreateTriggerBody = z.object({
  hook: z.enum(HOOKS),
  /** Checked in lib/webhooks (scheme, address): failures there are invalid_hook_url, not validation_failed. */
  hook_url: z.string().min(1).max(2048),
  organization_slug: z.string().min(1).max(64),
  collection_token: z.string().min(1).max(64),
});

export const ListTriggersQuery = z.object({
  organization_slug: z.string().min(1).max(64).optional(),
  collection_token: z.string().min(1).max(64).optional(),
});

export const ListDeliveriesQuery = pageQuery().extend({
  message_id: z.string().min(1).max(100).optional(),
});
