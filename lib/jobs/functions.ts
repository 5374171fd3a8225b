import { encodeVideoJob } from "../encode/encode-video.job";
import { processAssetJob } from "../media/process-asset.job";
import { expireUploadsJob } from "../uploads/expire-uploads.job";
import { deliverWebhookJob } from "../webhooks/deliver.job";
import { fanOutWebhooksJob } from "../webhooks/fan-out.job";
import { pruneJobRuns } from "./prune-runs.job";

/**
 * Every function the serve route (app/api/inngest) offers. A new job: write it next to its
 * capability (`lib/<capability>/<name>.job.ts`, created with `inngest` from ./client and triggered
 * by an event of ./events), then add it here. The embedded executor picks it up at the next start.
 */
export const functions = [pruneJobRuns, processAssetJob, encodeVideoJob, expireUploadsJob, fanOutWebhooksJob, deliverWebhookJob];
