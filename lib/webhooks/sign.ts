import crypto from "node:crypto";
import { Webhook } from "standardwebhooks";

/** A new signing secret in the Standard Webhooks form receivers' libraries read: `whsec_` + base64 key. */
export function newSigningSecret(): string {
  return `whsec_${crypto.randomBytes(32).toString("base64")}`;
}

/** A message id: stable across every retry and resend of one event to one trigger. */
export function messageIdFor(eventId: string, triggerId: string): string {
  return `msg_${crypto.createHash("sha256").update(`${eventId}\n${triggerId}`).digest("base64url").slice(0, 27)}`;
}

export type SignedHeaders = { "webhook-id": string; "webhook-timestamp": string; "webhook-signature": string };

/**
 * The Standard Webhooks headers of one attempt: `webhook-signature` is `v1,` + base64
 * HMAC-SHA256 of `id.timestamp.body` under the trigger's secret. `at` is the attempt's wall-clock
 * time: receivers compare it with their own clock to refuse replays.
 */
export function signDelivery(secret: string, messageId: string, at: Date, body: string): SignedHeaders {
  return {
    "webhook-id": messageId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(messageId, at, body),
  };
}
