import { eq } from "drizzle-orm";
import { z } from "zod";
import type { DbOrTx } from "../db";
import { triggers } from "../db/schema";
import { assetChanged, encodeVideoRequested, webhookDeliveryRequested } from "../jobs/events";
import { announceAsset, notifyLive } from "./announce";

const DeletedSnapshot = z.object({ token: z.string(), boardIds: z.array(z.number().int()) });

/**
 * The live side of an event a write stores in the outbox (lib/jobs/outbox/stage.ts), sent in the
 * same transaction with the outbox row's id as its cursor: what the outbox hands to jobs and
 * webhooks, the pages hear about at the same commit. Events that change nothing a page shows
 * (a processing request: its asset_added or asset_updated is stored beside it) send nothing.
 */
export async function announceStaged(tx: DbOrTx, id: string, name: string, data: unknown): Promise<void> {
  if (name === assetChanged.name) {
    const d = data as z.infer<typeof assetChanged.schema>;
    const snapshot = d.kind === "asset_deleted" ? DeletedSnapshot.safeParse(d.snapshot) : null;
    const gone = snapshot?.success ? { workspaceId: d.workspaceId, token: snapshot.data.token, boardIds: snapshot.data.boardIds } : undefined;
    return announceAsset(tx, { id, kind: d.kind, assetId: d.assetId, changed: d.changes ? Object.keys(d.changes) : undefined, gone });
  }
  if (name === encodeVideoRequested.name) {
    const d = data as z.infer<typeof encodeVideoRequested.schema>;
    return announceAsset(tx, { id, kind: "encode_queued", assetId: d.assetId });
  }
  if (name === webhookDeliveryRequested.name) {
    const d = data as z.infer<typeof webhookDeliveryRequested.schema>;
    const [trigger] = await tx.select({ workspaceId: triggers.workspaceId }).from(triggers).where(eq(triggers.id, d.triggerId)).limit(1);
    if (trigger) await notifyLive(tx, { id, workspaceId: trigger.workspaceId, kind: "delivery", trigger: d.triggerId });
  }
}
