import { getDeps } from "../deps";
import { inngest } from "../jobs/client";
import { assetChanged, webhookDeliveryRequested } from "../jobs/events";
import { payloadFor } from "./payload";
import { planDeliveries } from "./plan-deliveries";

/** Delivery events per sendEvent step: bounded so one request stays well under event API size limits. */
const BATCH = 200;

/**
 * An asset change → one delivery run per live trigger that watches it, each with its own retries.
 * The delivery events carry the message id as their event id: a fan-out that runs twice queues
 * each message once.
 */
export const fanOutWebhooksJob = inngest.createFunction(
  { id: "webhooks-fan-out", retries: 3, triggers: [assetChanged] },
  async ({ event, step }) => {
    const eventId = event.id ?? `${event.data.kind}:${event.data.assetId}:${event.data.occurredAt}`;
    const plan = await step.run("plan-deliveries", async () => planDeliveries(await getDeps(), eventId, event.data));
    if (!plan) return { deliveries: 0 };
    const events = plan.targets.map((t) =>
      webhookDeliveryRequested.create({ triggerId: t.triggerId, messageId: t.messageId, payload: payloadFor(plan.base, t.collection) }, { id: t.messageId }),
    );
    for (let i = 0; i < events.length; i += BATCH) {
      await step.sendEvent(`enqueue-deliveries-${i / BATCH + 1}`, events.slice(i, i + BATCH));
    }
    return { deliveries: events.length };
  },
);
