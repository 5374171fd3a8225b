import { eq } from "drizzle-orm";
import { assets, workspaces } from "../db/schema";
import { getDeps } from "../deps";
import { embeddingsConfig } from "../embeddings/config";
import { embedAsset } from "../embeddings/embed-asset";
import { queueEncodeAfterProcessing } from "../encode/request-encode";
import { inngest } from "../jobs/client";
import { assetProcessingRequested } from "../jobs/events";
import { log } from "../log/logger.mjs";
import { workspaceStorage } from "../storage/workspace-storage";
import { processAsset } from "./process-asset";

/**
 * After upload_complete or a version write with new bytes: sniff, probe, thumbnails, the asset's
 * embedding vector when a service is configured (docs/search.md), then the video encode where the
 * plan says so.
 */
export const processAssetJob = inngest.createFunction(
  { id: "asset-process", retries: 3, concurrency: [{ limit: 2 }, { key: "event.data.workspaceId", limit: 1 }], triggers: [assetProcessingRequested] },
  async ({ event, step }) => {
    const result = await step.run("probe-and-thumbnail", async () => {
      const deps = await getDeps();
      const [row] = await deps.db
        .select({ storageKind: workspaces.storageKind })
        .from(assets)
        .innerJoin(workspaces, eq(workspaces.id, assets.workspaceId))
        .where(eq(assets.id, event.data.assetId));
      if (!row) return { status: "gone" as const };
      return processAsset(deps, workspaceStorage(deps, row), event.data.assetId);
    });
    // Only with an embeddings service configured; whatever happens in it, processing has succeeded.
    const embeddings = embeddingsConfig();
    if (result.status === "processed" && embeddings) {
      await step.run("embed", async () =>
        embedAsset(await getDeps(), embeddings, event.data.assetId).catch((err: unknown) => {
          // Processing has succeeded all the same: the asset is found by full text until a later write embeds it.
          log().error({ component: "embeddings", asset_id: event.data.assetId, err }, "embedding step failed; the asset has no vector");
          return { status: "failed" as const, reason: "error" };
        }),
      );
    }
    // Now that the bytes are known to be a video: plans that encode on upload start the encode.
    if (result.status === "processed" && result.isVideo) await step.run("queue-encode", async () => queueEncodeAfterProcessing(await getDeps(), event.data.assetId));
    return result;
  },
);
