import { and, eq, sql } from "drizzle-orm";
import { assets, type EncodeProgress } from "../db/schema";
import type { Deps } from "../deps";
import { announceJobResult } from "../live/announce-from-job";
import { logLost } from "./log-lost";

/** Reports closer together than this are not stored (nor pushed to pages). */
export const PROGRESS_EVERY_MS = 1000;
/** Nor reports that moved less than this share of the whole encode. */
const MIN_STEP = 0.001;
/** The bar stops short of full until the stream is published (uploads and the master playlist come after the encode). */
const MAX_BEFORE_PUBLISH = 0.99;
/** An estimate needs this much measured progress (share of the encode, and seconds) behind it. */
const ESTIMATE_AFTER = { fraction: 0.01, ms: 2000 };

export type ProgressReporter = {
  /** Where the whole encode stands now (0–1) and the rendition being written. */
  report: (fraction: number, rung: string) => void;
  /** Waits for a store in flight (the step ends after it, so its write does not land after publish). */
  settle: () => Promise<void>;
};

/**
 * Stores an encode's progress on the asset (`encode_progress`) and pushes it to open pages
 * (live `encode_progress`), at most once a PROGRESS_EVERY_MS and only when it moved. The stored
 * fraction never goes back within an encode: the update only applies above the stored one, so a
 * step that resumes after a crash (from its last complete segment, a little before where the
 * reports had reached) holds the bar until it passes it. A new encode starts again from nothing
 * (its claim clears the column). Only the run's own bytes are written to, while it is processing.
 * The estimate is the rate this process has measured, so a resumed encode estimates afresh.
 */
export function progressReporter(deps: Deps, target: { assetId: number; storageKey: string }, now: () => number = Date.now): ProgressReporter {
  let lastStored = -1;
  let lastAt = 0;
  let inFlight: Promise<void> | null = null;
  let first: { fraction: number; at: number } | null = null;
  const estimate = (fraction: number, at: number): number | null => {
    if (!first) return null;
    const done = fraction - first.fraction;
    const ms = at - first.at;
    if (done < ESTIMATE_AFTER.fraction || ms < ESTIMATE_AFTER.ms) return null;
    return Math.max(0, Math.round(((ms / done) * (1 - fraction)) / 1000));
  };
  const store = async (progress: EncodeProgress) => {
    const updated = await deps.db
      .update(assets)
      .set({ encodeProgress: progress })
      .where(
        and(
          eq(assets.id, target.assetId),
          eq(assets.storageKey, target.storageKey),
          eq(assets.encodeStatus, "processing"),
          sql`coalesce((${assets.encodeProgress}->>'fraction')::float8, -1) < ${progress.fraction}`,
        ),
      )
      .returning({ id: assets.id });
    if (!updated.length) return;
    await announceJobResult(deps.db, {
      kind: "encode_progress",
      assetId: target.assetId,
      progress: { fraction: progress.fraction, rung: progress.rung, eta_seconds: progress.etaSeconds },
    });
  };
  return {
    report(raw, rung) {
      const at = now();
      const fraction = Math.round(Math.min(MAX_BEFORE_PUBLISH, Math.max(0, raw)) * 1000) / 1000;
      first ??= { fraction, at };
      if (inFlight || fraction < lastStored + MIN_STEP || at - lastAt < PROGRESS_EVERY_MS) return;
      lastStored = fraction;
      lastAt = at;
      inFlight = store({ fraction, rung, etaSeconds: estimate(fraction, at) })
        .catch(logLost("storing an encode's progress (the next report stores it again)", { asset_id: target.assetId }))
        .finally(() => (inFlight = null));
    },
    settle: async () => {
      await inFlight;
    },
  };
}
