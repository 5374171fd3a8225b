import type { Clock } from "../clock";
import type { StorageDriver } from "../storage/types";
import { leaseKey } from "./keys";
import { logLost } from "./log-lost";

/**
 * Which run is encoding an asset's bytes, kept as a small object beside the stream folders.
 *
 * The per-asset concurrency key stops two steps of one asset running at once, not two runs:
 * between the steps of a running encode another run of the same asset (a retry_video_processing
 * call) may take its turn. That run must not start a second encode while the first is alive, yet
 * must take over one that died. The owner renews the lease while it works; a run that finds a
 * live lease of another run waits (durable sleeps hold no slot). Nothing depends on the lease
 * being exclusive: publishing is conditional in the database, so a rare double encode wastes CPU
 * but never publishes mixed or stale outputs.
 */
export type Lease = { runId: string; until: number };

/** How long a lease outlives its last renewal; covers the gap between two steps of the owner. */
export const LEASE_MS = 5 * 60_000;
export const RENEW_EVERY_MS = 30_000;

export async function readLease(storage: StorageDriver, storageKey: string): Promise<Lease | null> {
  try {
    if (!(await storage.head(leaseKey(storageKey)))) return null;
    const text = await new Response(await storage.read(leaseKey(storageKey))).text();
    const lease = JSON.parse(text) as Lease;
    return typeof lease.runId === "string" && typeof lease.until === "number" ? lease : null;
  } catch {
    return null;
  }
}

export const isLive = (lease: Lease | null, runId: string, now: Date): lease is Lease => Boolean(lease && lease.runId !== runId && lease.until > now.getTime());

export async function writeLease(storage: StorageDriver, storageKey: string, runId: string, clock: Clock): Promise<void> {
  const lease: Lease = { runId, until: clock().getTime() + LEASE_MS };
  await storage.write(leaseKey(storageKey), Buffer.from(JSON.stringify(lease)), "application/json");
}

/** Removes the lease if this run holds it (a lease taken over by another run stays theirs). */
export async function releaseLease(storage: StorageDriver, storageKey: string, runId: string): Promise<void> {
  const lease = await readLease(storage, storageKey);
  if (lease?.runId === runId) await storage.delete(leaseKey(storageKey)).catch(logLost("releasing an encode lease (it expires by itself)", { key: leaseKey(storageKey), run_id: runId }));
}

/** Renews the lease every RENEW_EVERY_MS while `work` runs. */
export async function whileLeased<T>(storage: StorageDriver, storageKey: string, runId: string, clock: Clock, work: () => Promise<T>): Promise<T> {
  await writeLease(storage, storageKey, runId, clock);
  const timer = setInterval(() => void writeLease(storage, storageKey, runId, clock).catch(logLost("renewing an encode lease (retried at the next renewal)", { key: leaseKey(storageKey), run_id: runId })), RENEW_EVERY_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
