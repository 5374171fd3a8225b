import type { ClaimedItem } from "./store/queue";

/**
 * The `qi_id` a call carries and its checkpoints send back: the queue item and the lease the call
 * was made under, so a checkpoint is stored only while that lease is held.
 */
export function checkpointItemId(item: Pick<ClaimedItem, "id" | "leaseToken">): string {
  return `${item.id}:${item.leaseToken}`;
}

export function parseCheckpointItemId(value: unknown): { id: number; leaseToken: string } | null {
  if (typeof value !== "string") return null;
  const match = /^(\d+):(.+)$/.exec(value);
  return match ? { id: Number(match[1]), leaseToken: match[2] } : null;
}
