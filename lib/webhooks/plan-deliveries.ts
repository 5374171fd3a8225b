import { and, eq, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import { ancestorIdsOf } from "../boards/tree";
import { prepared } from "../db/prepared";
import { assetBoards, assets, boards, workspaces, type Asset, type Hook, type Trigger, type Workspace } from "../db/schema";
import type { Deps } from "../deps";
import { jobMediaBaseUrl } from "../http/base-url";
import { runStatement, Statement } from "../jobs/executor/store/statement";
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

/** What a fan-out memoizes: the shared envelope and one target per trigger (no secrets). */
export type DeliveryPlan = { base: PayloadBase; targets: DeliveryTarget[] };

/** The plan and the trigger rows it was made from, read at the same moment: for attempts made right away, never to be memoized. */
export type DeliveryPlanWithTriggers = DeliveryPlan & { triggers: Trigger[] };

const DeletedSnapshot = z.object({ id: z.number().int(), token: z.string(), title: z.string(), boardIds: z.array(z.number().int()) });

type Placement = { workspace: Workspace; boards: { id: number; ancestry: string }[] };

/**
 * The workspace and the boards (with their ancestry) the asset is on, or for a deleted asset
 * was on, in one statement; the asset row too unless deleted. Null when the workspace is gone, or
 * the asset was deleted before the fan-out ran (its asset_deleted event reports it).
 */
async function placement(deps: Deps, change: AssetChange, deletedBoardIds: number[] | null): Promise<(Placement & { asset: Asset | null }) | null> {
  const board = { id: boards.id, ancestry: boards.ancestry };
  if (deletedBoardIds) {
    const rows = await deps.db
      .select({ workspace: workspaces, board })
      .from(workspaces)
      .leftJoin(boards, and(eq(boards.workspaceId, workspaces.id), inArray(boards.id, deletedBoardIds.length ? deletedBoardIds : [-1])))
      .where(eq(workspaces.id, change.workspaceId));
    if (rows.length === 0) return null;
    return { workspace: rows[0].workspace, asset: null, boards: rows.flatMap((r) => (r.board ? [r.board] : [])) };
  }
  // Prepared once per database handle (every asset_added and asset_updated fan-out runs it).
  const placed = prepared(deps.db, "webhook_asset_placement", (d) =>
    d
      .select({ workspace: workspaces, asset: assets, board })
      .from(workspaces)
      .leftJoin(assets, and(eq(assets.id, sql.placeholder("assetId")), eq(assets.workspaceId, workspaces.id)))
      .leftJoin(assetBoards, eq(assetBoards.assetId, assets.id))
      .leftJoin(boards, and(eq(boards.id, assetBoards.boardId), eq(boards.workspaceId, workspaces.id)))
      .where(eq(workspaces.id, sql.placeholder("workspaceId")))
      .prepare("webhook_asset_placement"),
  );
  const rows = await placed.execute({ assetId: change.assetId, workspaceId: change.workspaceId });
  if (rows.length === 0 || !rows[0].asset) return null;
  return { workspace: rows[0].workspace, asset: rows[0].asset, boards: rows.flatMap((r) => (r.board ? [r.board] : [])) };
}

async function assetJson(deps: Deps, change: AssetChange, asset: Asset | null, snapshot: z.infer<typeof DeletedSnapshot> | null): Promise<PayloadAsset> {
  if (snapshot) return deletedAssetJson(snapshot);
  if (change.kind === "asset_updated") return updatedAssetJson(asset!, change.changes ?? {});
  return addedAssetJson(asset!, mediaLinker(jobMediaBaseUrl(), await getSecret(deps.db, "media_url_key"), deps.clock()));
}

type TriggerRow = {
  id: string;
  workspace_id: number;
  board_id: number;
  hook: Hook;
  hook_url: string;
  secret: string;
  created_by_token_id: number | null;
  created_by: number | null;
  expiration_date: Date | string;
  created_at: Date | string;
  deleted_at: Date | string | null;
  disabled_at: Date | string | null;
  board_token: string;
  board_title: string;
};

const date = (v: Date | string) => (v instanceof Date ? v : new Date(v));

/**
 * The live triggers of a kind on the given boards of a workspace, oldest id first, with the board
 * each watches. SQL text on the driver (prepared), as the job executor's hot statements: every
 * fan-out runs it, and the query builder's building and mapping of it cost more CPU than the
 * statement.
 */
async function liveTriggers(deps: Deps, workspaceId: number, boardIds: number[], hook: Hook): Promise<{ trigger: Trigger; boardToken: string; boardTitle: string }[]> {
  const st = new Statement();
  const rows = await runStatement<TriggerRow>(
    deps.db,
    `select t.id, t.workspace_id, t.board_id, t.hook, t.hook_url, t.secret, t.created_by_token_id, t.created_by, t.expiration_date, t.created_at,
        t.deleted_at, t.disabled_at, b.token as board_token, b.title as board_title
      from triggers t join boards b on b.id = t.board_id
      where t.workspace_id = ${st.p(workspaceId, "int")} and t.board_id = any(${st.p(`{${boardIds.join(",")}}`, "text::int[]")})
        and t.hook = ${st.p(hook, "text")} and t.deleted_at is null and t.disabled_at is null and t.expiration_date > ${st.at(deps.clock())}
      order by t.id`,
    st.params,
    true,
  );
  return rows.map((r) => ({
    trigger: {
      id: r.id,
      workspaceId: Number(r.workspace_id),
      boardId: Number(r.board_id),
      hook: r.hook,
      hookUrl: r.hook_url,
      secret: r.secret,
      createdByTokenId: r.created_by_token_id === null ? null : Number(r.created_by_token_id),
      expirationDate: date(r.expiration_date),
      createdAt: date(r.created_at),
      deletedAt: r.deleted_at === null ? null : date(r.deleted_at),
      disabledAt: r.disabled_at === null ? null : date(r.disabled_at),
      createdBy: r.created_by === null ? null : Number(r.created_by),
      // Live triggers only (disabled_at is null above).
      disabledReason: null,
    },
    boardToken: r.board_token,
    boardTitle: r.board_title,
  }));
}

/**
 * Who hears about an asset change: every live trigger (not deleted, not disabled, not expired now)
 * of the change's kind on any board the asset is on or any ancestor of those boards, each once
 * however many of its sub-boards hold the asset. The message id derives from the event id, so a
 * fan-out that runs twice produces the same webhook-ids and receivers can drop the duplicates.
 * Two statements: where the asset is, then the triggers.
 */
export async function planDeliveries(deps: Deps, eventId: string, change: AssetChange): Promise<DeliveryPlanWithTriggers | null> {
  const snapshot = change.kind === "asset_deleted" ? DeletedSnapshot.parse(change.snapshot) : null;
  const placed = await placement(deps, change, snapshot?.boardIds ?? null);
  if (!placed || placed.boards.length === 0) return null;

  const watched = new Set<number>();
  for (const b of placed.boards) {
    watched.add(b.id);
    for (const id of ancestorIdsOf(b)) watched.add(id);
  }
  const live = await liveTriggers(deps, placed.workspace.id, [...watched], change.kind);
  if (live.length === 0) return null;

  const { workspace } = placed;
  return {
    base: { event: change.kind, timestamp: change.occurredAt, organization: { slug: workspace.slug, name: workspace.name }, asset: await assetJson(deps, change, placed.asset, snapshot) },
    targets: live.map(({ trigger: t, boardToken, boardTitle }) => ({ triggerId: t.id, messageId: messageIdFor(eventId, t.id), collection: { token: boardToken, title: boardTitle } })),
    triggers: live.map((l) => l.trigger),
  };
}
