import type { Trigger } from "../db/schema";
import type { Deps } from "../deps";
import type { DeliveryMessage } from "./deliver";
import { deliverBatch } from "./deliver-batch";
import { payloadFor, type PayloadBase } from "./payload";
import type { DeliveryTarget } from "./plan-deliveries";

/** How a batch's first attempts went; `failed` are the messages to retry on the rest of their schedule. */
export type FirstAttempts = { delivered: number; gone: number; skipped: number; failed: DeliveryMessage[] };

/** The first attempt of an event's message to each of `targets`, together (deliver-batch.ts); `justRead` as there. */
export async function deliverFirstAttempts(deps: Deps, base: PayloadBase, targets: DeliveryTarget[], justRead?: Trigger[]): Promise<FirstAttempts> {
  const messages = targets.map((t) => ({ triggerId: t.triggerId, messageId: t.messageId, payload: payloadFor(base, t.collection) }));
  const results = await deliverBatch(deps, messages, {}, justRead);
  const summary: FirstAttempts = { delivered: 0, gone: 0, skipped: 0, failed: [] };
  results.forEach((r, i) => {
    if (r.outcome === "failed") summary.failed.push(messages[i]);
    else summary[r.outcome]++;
  });
  return summary;
}
