import { and, eq, gt, inArray, isNull } from "drizzle-orm";
import { z } from "zod";
import { withAncestors } from "../boards/queries";
import { assetBoards, assets, boards, triggers, workspaces, type Hook } from "../db/schema";
import type { Deps } from "../deps";
import { jobMediaBaseUrl } from "../http/base-url";
import { mediaLinker } from "../media/links";
import { getSecret } from "../secrets";
import { addedAssetJson, deletedAssetJson, updatedAssetJson, type Collection, type PayloadAsset, type PayloadBase } from "./payload";
import { messageIdFor } from "./sign";

/** The data of an `asset/changed` event (lib/jobs/events.ts). */
export type AssetChange = {
  assetId: number;
  workspaceId: number;
  kind: Hook;
  changes?: Record<string, { old: unknown; new: unknown }>;
  occurredAt: string;
  snapshot?: unknown;
};

/** One trigger's message: its stable webhook-id and the board it watches. */
export type DeliveryTarget = { triggerId: string; messageId: string; collection: Collection };

export type DeliveryPlan = { base: PayloadBase; targets: DeliveryTarget[] };

const DeletedSnapshot = z.object({ id: z.number().int(), token: z.string(), title: z.string(), boardIds: z.array(z.number().int()) });

/** The asset part of the payload and the boards the asset is (or, deleted, was) on; null when the asset is gone. */
async function assetSide(deps: Deps, change: AssetChange): Promise<{ boardIds: number[]; asset: () => Promise<PayloadAsset> } | null> {
  if (change.kind === "asset_deleted") {
    const snapshot = DeletedSnapshot.parse(change.snapshot);
    return { boardIds: snapshot.boardIds, asset: async () => deletedAssetJson(snapshot) };
  }
  const [asset] = await deps.db
    .select()
    .from(assets)
    .where(and(eq(assets.id, change.assetId), eq(assets.workspaceId, change.workspaceId)))
    .limit(1);
  // Deleted before the fan-out ran: its asset_deleted event reports it.
  if (!asset) return null;
  const memberships = await deps.db.select({ boardId: assetBoards.boardId }).from(assetBoards).where(eq(assetBoards.assetId, asset.id));
  const boardIds = memberships.map((m) => m.boardId);
  if (change.kind === "asset_updated") return { boardIds, asset: async () => updatedAssetJson(asset, change.changes ?? {}) };
  return {
    boardIds,
    asset: async () => addedAssetJson(asset, mediaLinker(jobMediaBaseUrl(), await getSecret(deps.db, "media_url_key"), deps.clock())),
  };
}

/**
 * Who hears about an asset change: every live trigger (not deleted, not disabled, not expired now)
 * of the change's kind on any board the asset is on or any ancestor of those boards, each once
 * however many of its sub-boards hold the asset. The message id derives from the event id, so a
 * fan-out that runs twice produces the same webhook-ids and receivers can drop the duplicates.
 */
export async function planDeliveries(deps: Deps, eventId: string, change: AssetChange): Promise<DeliveryPlan | null> {
  const [workspace] = await deps.db.select().from(workspaces).where(eq(workspaces.id, change.workspaceId)).limit(1);
  if (!workspace) return null;
  const side = await assetSide(deps, change);
  if (!side || side.boardIds.length === 0) return null;

  const watched = await withAncestors(deps.db, workspace.id, side.boardIds);
  const live = await deps.db
    .select({ id: triggers.id, boardToken: boards.token, boardTitle: boards.title })
    .from(triggers)
    .innerJoin(boards, eq(boards.id, triggers.boardId))
    .where(
      and(
        eq(triggers.workspaceId, workspace.id),
        inArray(triggers.boardId, watched),
        eq(triggers.hook, change.kind),
        isNull(triggers.deletedAt),
        isNull(triggers.disabledAt),
        gt(triggers.expirationDate, deps.clock()),
      ),
    )
    .orderBy(triggers.id);
  if (live.length === 0) return null;

  return {
    base: { event: change.kind, timestamp: change.occurredAt, organization: { slug: workspace.slug, name: workspace.name }, asset: await side.asset() },
    targets: live.map((t) => ({ triggerId: t.id, messageId: messageIdFor(eventId, t.id), collection: { token: t.boardToken, title: t.boardTitle } })),
  };
}
