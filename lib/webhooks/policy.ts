import { env } from "../env";
import type { UrlPolicy } from "../net/url-guard";

/** Triggers live this long from creation or their last renewal (contract §7). */
export const TRIGGER_LIFETIME_MS = 90 * 86_400_000;

/** A receiver has this long to answer a delivery (headers and body) before the attempt counts as failed. */
export const DELIVERY_TIMEOUT_MS = 10_000;

/**
 * Where hook URLs may point: http or https (the docs advise https), public addresses only unless
 * EASEL_WEBHOOK_ALLOW_PRIVATE is set. The same policy is applied at creation and at every delivery,
 * because a name that resolved to a public address then may resolve inward now (DNS rebinding).
 */
export function hookUrlPolicy(overrides: Partial<UrlPolicy> = {}): UrlPolicy {
  return { protocols: ["http:", "https:"], allowPrivate: env().EASEL_WEBHOOK_ALLOW_PRIVATE, ...overrides };
}
