import { getDeps } from "../deps";
import { inngest } from "../jobs/client";
import { uploadCleanupSchedule } from "../jobs/events";
import { expireUploads } from "./expire-uploads";

/** Every 15 minutes: delete the bytes of uploads reserved more than 24 h ago and never completed. */
export const expireUploadsJob = inngest.createFunction(
  { id: "uploads-expire", retries: 2, concurrency: { limit: 1 }, triggers: [uploadCleanupSchedule] },
  async ({ step }) => step.run("expire", async () => expireUploads(await getDeps())),
);
