import type { UrlPolicy } from "../net/url-guard";

/** One message to one trigger: its `webhook-id` and the body every attempt sends. */
export type DeliveryMessage = { triggerId: string; messageId: string; payload: unknown };

/**
 * What one attempt came to. `delivered` and `gone` end the message; `failed` is retried on the
 * schedule; `skipped` means no request was made because the trigger is no longer live.
 */
export type AttemptResult =
  | { outcome: "delivered"; attempt: number; responseStatus: number }
  | { outcome: "gone"; attempt: number; responseStatus: 410 }
  | { outcome: "failed"; attempt: number; responseStatus: number | null; error: string }
  | { outcome: "skipped"; reason: "trigger_deleted" | "trigger_disabled" | "trigger_expired" };

export type AttemptOptions = { timeoutMs?: number; policy?: UrlPolicy };
