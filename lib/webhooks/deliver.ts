import type { Deps } from "../deps";
import type { UrlPolicy } from "../net/url-guard";
import { deliverBatch } from "./deliver-batch";

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

/**
 * One attempt of one message (a retry, a resend): a batch of one, so it is checked, signed, sent
 * and logged exactly as a fan-out's first attempts are (deliver-batch.ts).
 */
export async function attemptDelivery(deps: Deps, msg: DeliveryMessage, opts: AttemptOptions = {}): Promise<AttemptResult> {
  const [result] = await deliverBatch(deps, [msg], opts);
  return result;
}
