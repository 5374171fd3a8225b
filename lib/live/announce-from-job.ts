import type { Db } from "../db";
import { newId } from "../jobs/executor/ids";
import { log } from "../log/logger.mjs";
import { announceAsset, notifyLive, type AssetAnnouncement } from "./announce";

/**
 * Live updates of a job's result saved outside any transaction (thumbnails, an encode failure, a
 * webhook attempt): the result is already stored, so failing to announce it must not fail the job
 * (its retry would redo the work). Logged instead: open pages show the change at their next
 * refetch, and a stream that reconnects catches up or refetches everything.
 */
export async function announceJobResult(db: Db, a: AssetAnnouncement): Promise<void> {
  try {
    await announceAsset(db, a);
  } catch (err) {
    log().warn({ component: "live", asset_id: a.assetId, kind: a.kind, err }, "live update lost: open pages show this change at their next refetch");
  }
}

/** A webhook attempt was logged: delivery logs of these triggers changed. */
export async function announceDeliveries(db: Db, triggers: { id: string; workspaceId: number }[]): Promise<void> {
  const distinct = new Map(triggers.map((t) => [t.id, t.workspaceId]));
  for (const [id, workspaceId] of distinct) {
    try {
      await notifyLive(db, { id: newId(), workspaceId, kind: "delivery", trigger: id });
    } catch (err) {
      log().warn({ component: "live", trigger_id: id, err }, "live update lost: open delivery logs show this attempt at their next refetch");
    }
  }
}
