import { and, eq, isNull, ne, or } from "drizzle-orm";
import { stageAssetChanged } from "../assets/events";
import { assets } from "../db/schema";
import type { Deps } from "../deps";
import { jobMediaBaseUrl } from "../http/base-url";
import { transactionWithEvents } from "../jobs/outbox";
import { mediaLinker } from "../media/links";
import { getSecret } from "../secrets";
import { workspaceStorage } from "../storage/workspace-storage";
import type { EncodeOwner } from "./claim";
import { encodeDir, hlsContentType, masterKeyOf } from "./keys";
import type { Rung } from "./ladder";
import { releaseLease } from "./lease";
import { loadAssetAndWorkspace } from "./load";
import { logLost } from "./log-lost";
import { deleteEncodeOutputs } from "./outputs";
import { masterPlaylist, type Variant } from "./playlists";
import { removeWorkDir } from "./source-file";

/** The variant players start with: the highest at or below 720p (a fair first guess on most links). */
function startVariant(rungs: Rung[]): string | undefined {
  const fit = rungs.filter((r) => Math.min(r.width, r.height) <= 720);
  const pick = fit[fit.length - 1] ?? rungs[0];
  return pick ? `${pick.name}/index.m3u8` : undefined;
}

export type PublishResult = { status: "published" | "superseded"; streamKey: string };

/**
 * The publish step: write the master playlist, then point the asset at it, only if the head still
 * holds the bytes this run encoded and no other run published first. Then `asset_updated` with
 * `changes.stream_url`, stored in the transaction that points the asset at the stream
 * (lib/jobs/outbox). A superseded run deletes its outputs. Safe to run again after a crash: a
 * stream already pointing at this run's playlist counts as published, and its event was stored
 * with that first update, so none is sent twice.
 */
export async function publishEncode(deps: Deps, owner: EncodeOwner, runId: string, rungs: Rung[], variants: Variant[]): Promise<PublishResult> {
  const storage = workspaceStorage(deps, owner);
  const dir = encodeDir(owner.storageKey, runId);
  const streamKey = masterKeyOf(dir);
  await storage.write(streamKey, Buffer.from(masterPlaylist(variants, startVariant(rungs))), hlsContentType(streamKey));
  // Read before the transaction: on the embedded database nothing but `tx` may run inside it.
  const link = mediaLinker(jobMediaBaseUrl(), await getSecret(deps.db, "media_url_key"), deps.clock());
  const updated = await transactionWithEvents(deps, async (tx, stage) => {
    const [row] = await tx
      .update(assets)
      .set({ streamKey, encodeStatus: "ready", encodeError: null, encodeProgress: null })
      .where(and(eq(assets.id, owner.assetId), eq(assets.storageKey, owner.storageKey), or(ne(assets.encodeStatus, "ready"), isNull(assets.streamKey))))
      .returning();
    if (row) await stageAssetChanged(stage, deps.clock, { asset: row, kind: "asset_updated", changes: { stream_url: { old: null, new: link(row.token, "stream") } } });
    return row;
  });
  const asset = updated ?? (await loadAssetAndWorkspace(deps.db, owner.assetId))?.asset;
  const ours = asset?.streamKey === streamKey;
  if (!ours) await deleteEncodeOutputs(storage, dir, rungs.map((r) => r.name)).catch(logLost("deleting a superseded encode's outputs", { dir }));
  await releaseLease(storage, owner.storageKey, runId);
  await removeWorkDir(runId);
  return { status: asset && ours ? "published" : "superseded", streamKey };
}
