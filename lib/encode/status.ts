import { and, eq, inArray } from "drizzle-orm";
import type { Deps } from "../deps";
import type { Db } from "../db";
import { assets, type Asset, type EncodeStatus } from "../db/schema";
import { encodeVideoRequested } from "../jobs/events";
import { isVideo } from "../media/sniff";

/**
 * Whether an asset is a video for streaming: its media type says so, and the processing probe
 * (when it has run) found a picture. An audio-only file in a video container is not one.
 */
export function isVideoAsset(asset: Pick<Asset, "mediaType" | "media">): boolean {
  if (!isVideo(asset.mediaType)) return false;
  return !(asset.media.durationSeconds !== undefined && asset.media.width === undefined);
}

/** An encode of the head's current bytes has been published. */
export const encodeFinished = (asset: Pick<Asset, "encodeStatus" | "streamKey">) => asset.encodeStatus === "ready" && asset.streamKey !== null;

/**
 * Moves the asset to `queued` if its status is one of `from` and its bytes are still the ones the
 * caller saw: concurrent readers race on this update and exactly one of them wins.
 */
export async function markQueued(db: Db, asset: Asset, from: EncodeStatus[]): Promise<Asset | null> {
  const [row] = await db
    .update(assets)
    .set({ encodeStatus: "queued", encodeError: null })
    .where(and(eq(assets.id, asset.id), eq(assets.storageKey, asset.storageKey), inArray(assets.encodeStatus, from)))
    .returning();
  return row ?? null;
}

/** Puts the status back when the job could not be queued, so the next trigger tries again. */
async function unqueue(db: Db, asset: Asset, to: EncodeStatus) {
  await db
    .update(assets)
    .set({ encodeStatus: to, encodeError: asset.encodeError })
    .where(and(eq(assets.id, asset.id), eq(assets.storageKey, asset.storageKey), eq(assets.encodeStatus, "queued")));
}

/**
 * Queues an encode job. Deliberately no event id: every request is a run of its own (the spec's
 * retry semantics); runs of one asset take turns, and a late one finds the work done.
 * `previous` is the asset before markQueued: when the send fails its status is restored.
 */
export async function sendEncode(deps: Deps, previous: Asset, restore: boolean): Promise<void> {
  try {
    await deps.jobs.send(encodeVideoRequested, { assetId: previous.id });
  } catch (err) {
    if (restore) await unqueue(deps.db, previous, previous.encodeStatus);
    throw err;
  }
}
