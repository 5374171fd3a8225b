import { and, eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "../db";
import { assets, type Asset, type EncodeStatus } from "../db/schema";
import type { Deps } from "../deps";
import { encodeVideoRequested } from "../jobs/events";
import { transactionWithEvents } from "../jobs/outbox";
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
export async function markQueued(db: DbOrTx, asset: Asset, from: EncodeStatus[]): Promise<Asset | null> {
  const [row] = await db
    .update(assets)
    .set({ encodeStatus: "queued", encodeError: null, encodeProgress: null })
    .where(and(eq(assets.id, asset.id), eq(assets.storageKey, asset.storageKey), inArray(assets.encodeStatus, from)))
    .returning();
  return row ?? null;
}

/**
 * Queues an encode job: `markQueued`, and the encode request stored in the same transaction
 * (lib/jobs/outbox), so `queued` always has its job on the way, even if the job system is
 * unreachable at that moment (the outbox hands it on later). Answers the queued asset, or null
 * when its status was not one of `from` (another caller got there first).
 *
 * `always`: a request is stored even when the status does not move (retry_video_processing queues
 * a run on every call; runs of one asset take turns, and a late one finds the work done). Requests
 * carry no idempotency of their own: each is a run.
 */
export async function queueEncode(deps: Deps, asset: Asset, from: EncodeStatus[], opts: { always?: boolean } = {}): Promise<Asset | null> {
  return transactionWithEvents(deps, async (tx, stage) => {
    const queued = await markQueued(tx, asset, from);
    if (queued || opts.always) await stage(encodeVideoRequested, { assetId: asset.id, workspaceId: asset.workspaceId });
    return queued;
  });
}
