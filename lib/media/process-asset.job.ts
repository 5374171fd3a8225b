import { eq } from "drizzle-orm";
import { getDeps } from "../deps";
import { assets, workspaces } from "../db/schema";
import { inngest } from "../jobs/client";
import { assetProcessingRequested } from "../jobs/events";
import { storageForJob } from "../uploads/storage-for-request";
import { processAsset } from "./process-asset";

/** After upload_complete or a version write with new bytes: sniff, probe, thumbnails. */
export const processAssetJob = inngest.createFunction(
  { id: "asset-process", retries: 3, concurrency: [{ limit: 2 }, { key: "event.data.assetId", limit: 1 }], triggers: [assetProcessingRequested] },
  async ({ event, step }) => {
    return step.run("probe-and-thumbnail", async () => {
      const deps = await getDeps();
      const [row] = await deps.db
        .select({ storageKind: workspaces.storageKind })
        .from(assets)
        .innerJoin(workspaces, eq(workspaces.id, assets.workspaceId))
        .where(eq(assets.id, event.data.assetId));
      if (!row) return { status: "gone" as const };
      return processAsset(deps, storageForJob(deps, row), event.data.assetId);
    });
  },
);
