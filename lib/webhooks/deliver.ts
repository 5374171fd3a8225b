import type { Deps } from "../deps";
import type { AttemptOptions, AttemptResult, DeliveryMessage } from "./attempt";
import { deliverBatch } from "./deliver-batch";

export type { AttemptOptions, AttemptResult, DeliveryMessage } from "./attempt";

/**
 * One attempt of one message (a retry, a resend): a batch of one, so it is checked, signed, sent
 * and logged exactly as a fan-out's first attempts are (deliver-batch.ts).
 */
export async function attemptDelivery(deps: Deps, msg: DeliveryMessage, opts: AttemptOptions = {}): Promise<AttemptResult> {
  const [result] = await deliverBatch(deps, [msg], opts);
  return result;
}
