import { and, eq, isNull, sql } from "drizzle-orm";
import { triggers, webhookDeliveries, type Trigger } from "../db/schema";
import type { Deps } from "../deps";
import { countWebhookDelivery } from "../metrics/registry.mjs";
import { safeFetch, type SafeResponse } from "../net/safe-fetch";
import { UrlGuardError, type UrlPolicy } from "../net/url-guard";
import { serializePayload } from "./payload";
import { DELIVERY_TIMEOUT_MS, hookUrlPolicy } from "./policy";
import { signDelivery } from "./sign";

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

const EXCERPT_CHARS = 500;

function excerpt(body: Buffer): string {
  // Control characters stripped: the log is shown in terminals and the admin UI.
  return body.subarray(0, EXCERPT_CHARS * 4).toString("utf8").replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "").slice(0, EXCERPT_CHARS);
}

function describeStatus(res: SafeResponse): string {
  const location = res.headers.get("location");
  if (res.status >= 300 && res.status < 400 && location) return `HTTP ${res.status}: redirect to ${location.slice(0, 200)} not followed`;
  const text = excerpt(res.body).trim();
  return text ? `HTTP ${res.status}: ${text}` : `HTTP ${res.status}`;
}

function whyNotLive(trigger: Trigger | undefined, now: Date): Extract<AttemptResult, { outcome: "skipped" }>["reason"] | null {
  if (!trigger || trigger.deletedAt) return "trigger_deleted";
  if (trigger.disabledAt) return "trigger_disabled";
  if (trigger.expirationDate.getTime() <= now.getTime()) return "trigger_expired";
  return null;
}

/**
 * One attempt of one message: checks the trigger is still live (deleted, disabled and expired
 * triggers get nothing, even when a retry was already scheduled), signs the body, POSTs it through
 * the SSRF guard (the hook URL's host is resolved and checked again now, and the connection goes to
 * the checked address), follows no redirect, and logs the attempt. 2xx is success; 410 Gone
 * disables the trigger; anything else, including a timeout or a refused address, is a failure to
 * retry.
 */
export async function attemptDelivery(deps: Deps, msg: DeliveryMessage, opts: AttemptOptions = {}): Promise<AttemptResult> {
  const [trigger] = await deps.db.select().from(triggers).where(eq(triggers.id, msg.triggerId)).limit(1);
  const notLive = whyNotLive(trigger, deps.clock());
  if (notLive) {
    countWebhookDelivery("skipped");
    return { outcome: "skipped", reason: notLive };
  }

  const body = serializePayload(msg.payload);
  // The signature's timestamp is wall-clock time, not lib/clock: receivers check it against their
  // own clocks (5 min tolerance), so a moved test clock must not make every delivery unverifiable.
  const headers = signDelivery(trigger.secret, msg.messageId, new Date(), body);
  const started = performance.now();
  let res: SafeResponse | null = null;
  let error: string | null = null;
  try {
    res = await safeFetch(trigger.hookUrl, {
      ...(opts.policy ?? hookUrlPolicy()),
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "Easel-Webhooks/1", ...headers },
      body,
      maxRedirects: 0,
      timeoutMs: opts.timeoutMs ?? DELIVERY_TIMEOUT_MS,
    });
  } catch (err) {
    if (!(err instanceof UrlGuardError)) throw err;
    error = `${err.reason}: ${err.message}`;
  }
  const durationMs = Math.round(performance.now() - started);
  const ok = res !== null && res.status >= 200 && res.status < 300;
  if (res && !ok) error = describeStatus(res);

  const attempt = await logAttempt(deps, msg, trigger, { ok, responseStatus: res?.status ?? null, error, durationMs });
  // Counted once the attempt is in the delivery log, as the log counts it.
  countWebhookDelivery(ok ? "delivered" : res?.status === 410 ? "gone" : "failed");
  if (ok) return { outcome: "delivered", attempt, responseStatus: res!.status };
  if (res?.status === 410) {
    await deps.db
      .update(triggers)
      .set({ disabledAt: deps.clock() })
      .where(and(eq(triggers.id, trigger.id), isNull(triggers.disabledAt)));
    return { outcome: "gone", attempt, responseStatus: 410 };
  }
  return { outcome: "failed", attempt, responseStatus: res?.status ?? null, error: error ?? "unknown error" };
}

/** Times an attempt is numbered again after another attempt of its message took the number first. */
const NUMBERING_TRIES = 50;

/**
 * Records the attempt; its number continues the message's log (a resend's first attempt follows the
 * retries before it). Attempts of one message can be logged at the same moment (a resend racing a
 * retry): the unique (trigger, message, attempt) index lets only one take a number, and the other
 * counts again. One statement when nothing races.
 */
async function logAttempt(
  deps: Deps,
  msg: DeliveryMessage,
  trigger: Trigger,
  r: { ok: boolean; responseStatus: number | null; error: string | null; durationMs: number },
): Promise<number> {
  const next = sql<number>`(select count(*) + 1 from ${webhookDeliveries} where ${webhookDeliveries.triggerId} = ${trigger.id} and ${webhookDeliveries.messageId} = ${msg.messageId})`;
  for (let i = 0; i < NUMBERING_TRIES; i++) {
    const [row] = await deps.db
      .insert(webhookDeliveries)
      .values({
        triggerId: trigger.id,
        messageId: msg.messageId,
        event: trigger.hook,
        payload: msg.payload,
        attempt: next,
        status: r.ok ? "succeeded" : "failed",
        responseStatus: r.responseStatus,
        error: r.error,
        durationMs: r.durationMs,
        createdAt: deps.clock(),
      })
      .onConflictDoNothing({ target: [webhookDeliveries.triggerId, webhookDeliveries.messageId, webhookDeliveries.attempt] })
      .returning({ attempt: webhookDeliveries.attempt });
    if (row) return row.attempt;
  }
  throw new Error(`could not number an attempt of ${msg.messageId}: ${NUMBERING_TRIES} others took the numbers first`);
}
