import { NonRetriableError } from "inngest";
import { getDeps } from "../deps";
import { inngest } from "../jobs/client";
import { webhookDeliveryRequested } from "../jobs/events";
import { attemptDelivery, type AttemptResult } from "./deliver";
import { retrySchedule } from "./retry-schedule";

/**
 * One message to one trigger, attempted on the rest of its retry schedule: a durable sleep before
 * each attempt (none before a first attempt), one step per attempt, until one is delivered, the
 * receiver answers 410, the trigger is no longer live, or the schedule runs out. A fan-out makes
 * the first attempt itself and starts this run only for a failure (`attemptsMade: 1`); a resend
 * starts it from the beginning. Failed attempts are results, not thrown errors, so the SDK's own
 * retries stay for infrastructure failures (the database unreachable).
 */
export const deliverWebhookJob = inngest.createFunction(
  {
    id: "webhooks-deliver",
    retries: 3,
    // Fair across workspaces (docs/jobs.md, "Fair queues"): one workspace's failing receivers hold at most 2 of 8 slots.
    concurrency: [{ limit: 8 }, { key: "event.data.workspaceId", limit: 2 }],
    triggers: [webhookDeliveryRequested],
  },
  async ({ event, step }) => {
    let schedule: number[];
    try {
      schedule = retrySchedule();
    } catch (err) {
      throw new NonRetriableError((err as Error).message);
    }
    let last: AttemptResult | null = null;
    for (let i = event.data.attemptsMade ?? 0; i < schedule.length; i++) {
      if (schedule[i] > 0) await step.sleep(`wait-before-attempt-${i + 1}`, Math.round(schedule[i] * 1000));
      last = await step.run(`attempt-${i + 1}`, async () => attemptDelivery(await getDeps(), event.data));
      if (last.outcome !== "failed") return last;
    }
    return { ...last, exhausted: true };
  },
);
