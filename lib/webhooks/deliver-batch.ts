import { and, inArray, isNull } from "drizzle-orm";
import { triggers, type Trigger } from "../db/schema";
import type { Deps } from "../deps";
import { countWebhookDelivery } from "../metrics/registry.mjs";
import { checkUrl, resolveTarget, UrlGuardError, type PinnedTarget, type UrlPolicy } from "../net/url-guard";
import type { AttemptOptions, AttemptResult, DeliveryMessage } from "./attempt";
import { logAttempts, type AttemptRecord } from "./log-attempts";
import { serializePayload } from "./payload";
import { DELIVERY_TIMEOUT_MS, hookUrlPolicy } from "./policy";
import { pooledPost, type PostAnswer } from "./pooled-post";
import { signDelivery } from "./sign";

/** Requests of one batch in flight at once (each origin is further held to SOCKETS_PER_ORIGIN). */
export const BATCH_IN_FLIGHT = 50;

const EXCERPT_CHARS = 500;

function excerpt(body: Buffer): string {
  // Control characters stripped: the log is shown in terminals and the admin UI.
  return body.subarray(0, EXCERPT_CHARS * 4).toString("utf8").replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "").slice(0, EXCERPT_CHARS);
}

function describeStatus(answer: PostAnswer): string {
  if (answer.status >= 300 && answer.status < 400 && answer.location) return `HTTP ${answer.status}: redirect to ${answer.location.slice(0, 200)} not followed`;
  const text = excerpt(answer.body).trim();
  return text ? `HTTP ${answer.status}: ${text}` : `HTTP ${answer.status}`;
}

type Skipped = Extract<AttemptResult, { outcome: "skipped" }>;

function whyNotLive(trigger: Trigger | undefined, now: Date): Skipped["reason"] | null {
  if (!trigger || trigger.deletedAt) return "trigger_deleted";
  if (trigger.disabledAt) return "trigger_disabled";
  if (trigger.expirationDate.getTime() <= now.getTime()) return "trigger_expired";
  return null;
}

/**
 * The hook URL checked and its host resolved and checked, now: once per host and batch (the
 * triggers of a batch are attempted within the same moment), so a host shared by many triggers is
 * looked up once, not once per trigger.
 */
function targetResolver(policy: UrlPolicy) {
  const byHost = new Map<string, Promise<PinnedTarget>>();
  return async (hookUrl: string): Promise<PinnedTarget> => {
    const url = checkUrl(hookUrl, policy);
    const hostKey = `${url.protocol}//${url.host}`;
    let resolved = byHost.get(hostKey);
    if (!resolved) {
      resolved = resolveTarget(url, policy);
      byHost.set(hostKey, resolved);
    }
    const { address, family } = await resolved;
    return { url, address, family };
  };
}

/** Runs `work` on every item, at most `limit` at once. */
async function eachBounded<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

type Sent = { index: number; record: AttemptRecord };

/**
 * One attempt of each message, made concurrently: each trigger is looked up again (deleted,
 * disabled and expired triggers get nothing, even when a retry was already scheduled), its body
 * signed and POSTed through the SSRF guard (the hook URL's host resolved and checked again now, the
 * connection made to, or pooled for, the checked address), no redirect followed. Then every attempt
 * is logged in one statement and the triggers that answered 410 Gone are disabled in one more.
 * 2xx is success; anything else, including a timeout or a refused address, is a failure the caller
 * retries. Results are in `messages` order. A database failure throws after the requests were made:
 * the caller's step runs again and sends them again (at least once, under the same webhook-ids).
 * `justRead`: the triggers' rows when the caller read them a moment ago (a fan-out's plan), so they
 * are not read twice.
 */
export async function deliverBatch(deps: Deps, messages: DeliveryMessage[], opts: AttemptOptions = {}, justRead?: Trigger[]): Promise<AttemptResult[]> {
  if (messages.length === 0) return [];
  const found = justRead ?? (await deps.db.select().from(triggers).where(inArray(triggers.id, [...new Set(messages.map((m) => m.triggerId))])));
  const byId = new Map(found.map((t) => [t.id, t]));
  const now = deps.clock();
  const results: (AttemptResult | undefined)[] = new Array(messages.length);
  const toSend: { index: number; trigger: Trigger; msg: DeliveryMessage }[] = [];
  messages.forEach((msg, index) => {
    const trigger = byId.get(msg.triggerId);
    const notLive = whyNotLive(trigger, now);
    if (notLive) results[index] = { outcome: "skipped", reason: notLive };
    else toSend.push({ index, trigger: trigger!, msg });
  });

  const resolve = targetResolver(opts.policy ?? hookUrlPolicy());
  const sent: Sent[] = [];
  await eachBounded(toSend, BATCH_IN_FLIGHT, async ({ index, trigger, msg }) => {
    const body = serializePayload(msg.payload);
    const started = performance.now();
    let answer: PostAnswer | null = null;
    let error: string | null = null;
    try {
      const target = await resolve(trigger.hookUrl);
      // The signature's timestamp is wall-clock time, not lib/clock: receivers check it against their
      // own clocks (5 min tolerance), so a moved test clock must not make every delivery unverifiable.
      const headers = signDelivery(trigger.secret, msg.messageId, new Date(), body);
      answer = await pooledPost(target, {
        headers: { "content-type": "application/json", "user-agent": "Easel-Webhooks/1", ...headers },
        body,
        timeoutMs: opts.timeoutMs ?? DELIVERY_TIMEOUT_MS,
      });
    } catch (err) {
      if (!(err instanceof UrlGuardError)) throw err;
      error = `${err.reason}: ${err.message}`;
    }
    const ok = answer !== null && answer.status >= 200 && answer.status < 300;
    if (answer && !ok) error = describeStatus(answer);
    const durationMs = Math.round(performance.now() - started);
    sent.push({ index, record: { trigger, messageId: msg.messageId, payload: msg.payload, ok, responseStatus: answer?.status ?? null, error, durationMs } });
  });

  const attempts = await logAttempts(deps, sent.map((s) => s.record));
  const gone: string[] = [];
  sent.forEach(({ index, record: r }, i) => {
    const attempt = attempts[i];
    if (r.ok) results[index] = { outcome: "delivered", attempt, responseStatus: r.responseStatus! };
    else if (r.responseStatus === 410) {
      results[index] = { outcome: "gone", attempt, responseStatus: 410 };
      gone.push(r.trigger.id);
    } else results[index] = { outcome: "failed", attempt, responseStatus: r.responseStatus, error: r.error ?? "unknown error" };
  });
  if (gone.length) {
    await deps.db
      .update(triggers)
      .set({ disabledAt: deps.clock(), disabledReason: "receiver_gone" })
      .where(and(inArray(triggers.id, [...new Set(gone)]), isNull(triggers.disabledAt)));
  }
  // Counted once the attempts are in the delivery log, as the log counts them.
  for (const r of results) countWebhookDelivery(r!.outcome);
  return results as AttemptResult[];
}
