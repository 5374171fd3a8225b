import { getDeps } from "../deps";
import { env } from "../env";
import { inngest } from "./client";
import { jobRunsPruneSchedule } from "./events";
import { pruneRuns } from "./runs";

/** Hourly: forgets finished runs of the embedded executor after EASEL_JOBS_RETENTION_DAYS (they are only history). */
export const pruneJobRuns = inngest.createFunction(
  { id: "jobs-prune-runs", retries: 1, triggers: [jobRunsPruneSchedule] },
  async ({ step }) => {
    return step.run("prune", async () => {
      const { db, clock } = await getDeps();
      const before = new Date(clock().getTime() - env().EASEL_JOBS_RETENTION_DAYS * 86_400_000);
      return pruneRuns(db, before);
    });
  },
);
