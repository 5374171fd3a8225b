import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { EaselError } from "./errors";
import type { WebhookPayload } from "./types";

/** A fetch Headers object, or a plain record such as node:http's `req.headers`. */
type Headers_ = Headers | Record<string, string | string[] | undefined>;

function headerRecord(headers: Headers_): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof Headers !== "undefined" && headers instanceof Headers) {
    headers.forEach((value, key) => (out[key] = value));
    return out;
  }
  for (const [key, value] of Object.entries(headers)) {
    if (value !== undefined) out[key.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

/**
 * Checks a webhook delivery the way Easel signs it (Standard Webhooks: `webhook-id`,
 * `webhook-timestamp`, `webhook-signature`, HMAC-SHA256 with the trigger's `whsec_…` secret) and
 * returns the parsed payload. `body` must be the raw request body, exactly as received. A bad or
 * stale signature throws an EaselError with code `invalid_webhook_signature` (status 401, what a
 * receiver should answer).
 */
export function verifyWebhook(secret: string, headers: Headers_, body: string | Uint8Array): WebhookPayload {
  const text = typeof body === "string" ? body : new TextDecoder().decode(body);
  try {
    return new Webhook(secret).verify(text, headerRecord(headers)) as WebhookPayload;
  } catch (err) {
    if (err instanceof WebhookVerificationError) throw new EaselError(401, "invalid_webhook_signature", err.message, {}, { cause: err });
    throw err;
  }
}
