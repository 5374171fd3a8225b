import { assetChanged, assetProcessingRequested, encodeVideoRequested, webhookDeliveryRequested } from "../events";
import type { JobEvent } from "../send";

/**
 * The events writes store in the outbox, by name: the relay hands a stored row on as the event of
 * the registry (lib/jobs/events.ts), whose schema validates it once more on the way out.
 */
const STORABLE: JobEvent[] = [assetProcessingRequested, encodeVideoRequested, assetChanged, webhookDeliveryRequested];

const byName = new Map<string, JobEvent>(STORABLE.map((e) => [e.name, e]));

export function storableEvent(name: string): JobEvent | undefined {
  return byName.get(name);
}
