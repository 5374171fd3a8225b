import { eq, sql } from "drizzle-orm";
import type { DbOrTx } from "../db";
import { assets } from "../db/schema";
import { newId } from "../jobs/executor/ids";
import { log } from "../log/logger.mjs";
import { boardTokensOf } from "./board-tokens";
import { AccessEnded, LIVE_CHANNEL, LiveMessage, type LiveKind } from "./message";

export type AssetAnnouncement = {
  kind: LiveKind;
  assetId: number;
  /** The cursor; the outbox row's id when the change stored one, a new ULID otherwise. */
  id?: string;
  changed?: string[];
  /** encode_progress: where the encode stands. */
  progress?: LiveMessage["progress"];
  /** For an asset already deleted: what the deleting write kept of it. */
  gone?: { workspaceId: number; token: string; boardIds: number[] };
};

/**
 * Sends a message to every node's live streams with PostgreSQL's NOTIFY. Called with the write's
 * transaction, the notification is delivered at its commit and never if it rolls back, exactly
 * like the outbox row beside it; called with `db`, at once.
 */
export async function notifyLive(db: DbOrTx, message: LiveMessage): Promise<void> {
  await db.execute(sql`select pg_notify(${LIVE_CHANNEL}, ${JSON.stringify(LiveMessage.parse(message))})`);
}

/**
 * Tells every node that a person lost a workspace, so their open streams of it end. With the
 * removing write's transaction it is delivered at commit, and never if the removal rolls back.
 */
export async function announceAccessEnded(db: DbOrTx, workspaceId: number, userId: number): Promise<void> {
  await db.execute(sql`select pg_notify(${LIVE_CHANNEL}, ${JSON.stringify(AccessEnded.parse({ accessEnded: { workspaceId, userId } }))})`);
}

/**
 * Announces a change of an asset: its token, boards and head version are read with `db` (the
 * write's transaction, so a change being written reads as written). An asset that is gone and has
 * no `gone` record announces nothing (a job finishing on an asset deleted meanwhile).
 */
export async function announceAsset(db: DbOrTx, a: AssetAnnouncement): Promise<void> {
  const id = a.id ?? newId();
  if (a.gone) {
    const boards = await boardTokensOf(db, { boardIds: a.gone.boardIds });
    return notifyLive(db, { id, workspaceId: a.gone.workspaceId, kind: a.kind, asset: a.gone.token, boards });
  }
  const [row] = await db
    .select({ workspaceId: assets.workspaceId, token: assets.token, next: assets.nextVersionNumber })
    .from(assets)
    .where(eq(assets.id, a.assetId))
    .limit(1);
  if (!row) {
    log().debug({ component: "live", asset_id: a.assetId, kind: a.kind }, "live update not sent: the asset is gone");
    return;
  }
  const boards = await boardTokensOf(db, { assetId: a.assetId });
  await notifyLive(db, { id, workspaceId: row.workspaceId, kind: a.kind, asset: row.token, boards, version: row.next, changed: a.changed?.slice(0, 64), progress: a.progress });
}
