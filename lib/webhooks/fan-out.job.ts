import type { Trigger } from "../db/schema";
import { getDeps, type Deps } from "../deps";
import { inngest } from "../jobs/client";
import { assetChanged, webhookDeliveryRequested } from "../jobs/events";
import { deliverFirstAttempts, type FirstAttempts } from "./first-attempts";
import type { PayloadBase } from "./payload";
import { planDeliveries, type DeliveryTarget } from "./plan-deliveries";

/** Triggers whose first attempts one step makes together (and a kill -9 mid-step makes again). */
export const FAN_OUT_BATCH = 100;

/**
 * An asset change → the first attempt to every live trigger that watches it, made by this run in
 * batches (deliver-batch.ts: concurrent POSTs on pooled connections, one log statement per batch),
 * and one delivery run per failed attempt, on the rest of that trigger's retry schedule.
 *
 * Steps: `plan-deliveries` plans; when the plan fits in one batch (up to FAN_OUT_BATCH triggers)
 * the same step makes its attempts, so the common case is one step and two calls. A larger plan
 * is memoized, then `deliver-batch-1`… run in parallel, so a receiver that holds its answer for
 * the whole timeout delays no other batch. A step cut short (kill -9) runs again whole: its
 * receivers may get the message twice, under the same webhook-id (at least once; receivers
 * deduplicate on it), and none is skipped. Each batch enqueues its own failures' retry runs as
 * soon as it knows them, with the message id as the event id: a batch that runs again starts no
 * second retry run.
 */
export const fanOutWebhooksJob = inngest.createFunction(
  {
    id: "webhooks-fan-out",
    retries: 3,
    // Fair across workspaces (docs/jobs.md, "Fair queues"): a bulk import's changes hold at most 2 of 8 slots.
    concurrency: [{ limit: 8 }, { key: "event.data.workspaceId", limit: 2 }],
    triggers: [assetChanged],
  },
  async ({ event, step }) => {
    const eventId = event.id ?? `${event.data.kind}:${event.data.assetId}:${event.data.occurredAt}`;
    const planned = await step.run("plan-deliveries", async () => {
      const deps = await getDeps();
      const plan = await planDeliveries(deps, eventId, event.data);
      if (!plan) return null;
      // Memoized: the envelope and the targets only, never the trigger rows (their secrets).
      if (plan.targets.length > FAN_OUT_BATCH) return { plan: { base: plan.base, targets: plan.targets }, attempts: null };
      return { plan: null, attempts: await attemptAndEnqueueRetries(deps, event.data.workspaceId, plan.base, plan.targets, plan.triggers) };
    });
    if (!planned) return { deliveries: 0 };
    let all: BatchOutcome[];
    if (planned.plan) {
      const { base, targets } = planned.plan;
      const batches: DeliveryTarget[][] = [];
      for (let i = 0; i < targets.length; i += FAN_OUT_BATCH) batches.push(targets.slice(i, i + FAN_OUT_BATCH));
      all = await Promise.all(batches.map((batch, i) => step.run(`deliver-batch-${i + 1}`, async () => attemptAndEnqueueRetries(await getDeps(), event.data.workspaceId, base, batch))));
    } else {
      all = [planned.attempts!];
    }
    const total = (key: keyof BatchOutcome) => all.reduce((sum, a) => sum + a[key], 0);
    return { delivered: total("delivered"), gone: total("gone"), skipped: total("skipped"), retrying: total("retrying") };
  },
);

type BatchOutcome = Omit<FirstAttempts, "failed"> & { retrying: number };

/** `workspaceId` keys the retry runs' concurrency, as it keys the fan-out's. */
async function attemptAndEnqueueRetries(deps: Deps, workspaceId: number, base: PayloadBase, targets: DeliveryTarget[], justRead?: Trigger[]): Promise<BatchOutcome> {
  const { failed, ...counts } = await deliverFirstAttempts(deps, base, targets, justRead);
  if (failed.length) {
    await inngest.send(failed.map((m) => webhookDeliveryRequested.create({ ...m, attemptsMade: 1, workspaceId }, { id: m.messageId })));
  }
  return { ...counts, retrying: failed.length };
}
