import { NonRetriableError } from "inngest";
import { getDeps } from "../deps";
import { inngest } from "../jobs/client";
import { encodeVideoRequested } from "../jobs/events";
import { limitOf } from "../sandbox/limit-error";
import { claimEncode, type Claim } from "./claim";
import { encodeLadder } from "./encode-ladder";
import { EncodeFailure, encodeErrorCode } from "./errors";
import { failAbandonedRun, failEncode } from "./fail";
import { planEncode, type EncodePlan } from "./plan-encode";
import { publishEncode } from "./publish";
import { makeStoryboard } from "./storyboard";

/** Waits of a run whose asset another live run is encoding: 15 s doubling to 5 min, at most ~16 h in all. */
const waitSeconds = (i: number) => Math.min(300, 15 * 2 ** Math.min(i - 1, 5));
const MAX_WAITS = 200;

/** A step body whose permanent failures skip the step's retries (a corrupt file stays corrupt). */
const failFast =
  <T>(body: () => Promise<T>) =>
  async (): Promise<T> => {
    try {
      return await body();
    } catch (err) {
      if (err instanceof EncodeFailure && err.permanent) throw new NonRetriableError(err.message, { cause: err });
      throw err;
    }
  };

/**
 * Encodes a video to an adaptive HLS ladder. Durable steps: claim, probe, ladder (every rung in one
 * ffmpeg pass), publish; a run cut short resumes at its step, and a ladder step cut short resumes
 * at the first segment it had not stored in every rung. At most two encode steps at
 * once, one per workspace (a workspace's backlog never holds both; docs/jobs.md, "Fair queues"),
 * so the steps of one asset never overlap; two runs of one asset (a retry while encoding) are
 * kept apart by the lease.
 */
export const encodeVideoJob = inngest.createFunction(
  {
    id: "encode-video",
    retries: 2,
    concurrency: [{ limit: 2 }, { key: "event.data.workspaceId", limit: 1 }],
    triggers: [encodeVideoRequested],
    onFailure: async ({ event, step }) => {
      const failed = event.data as { run_id: string; event: { data: { assetId: number } } };
      return step.run("release-abandoned", async () => failAbandonedRun(await getDeps(), { assetId: failed.event.data.assetId, runId: failed.run_id }));
    },
  },
  async ({ event, step, runId }) => {
    const { assetId } = event.data;
    // ---- claim (or wait for the live run encoding the same bytes)
    let claim: Claim = await step.run("claim", async () => claimEncode(await getDeps(), { assetId, runId }));
    for (let i = 1; claim.kind === "wait"; i++) {
      await step.sleep(`wait-${i}`, `${waitSeconds(i)}s`);
      const takeOver = i >= MAX_WAITS;
      claim = await step.run(`claim-${i}`, async () => claimEncode(await getDeps(), { assetId, runId, takeOver }));
    }
    if (claim.kind !== "owner") return claim;
    const owner = claim;

    let plan: EncodePlan | null = null;
    try {
      // ---- probe, the ladder (every rung in one pass), publish
      plan = await step.run("probe", failFast(async () => planEncode(await getDeps(), owner, runId)));
      const current = plan;
      const variants = await step.run("ladder", failFast(async () => encodeLadder(await getDeps(), owner, runId, current)));
      const { rungs, source } = plan;
      await step.run("storyboard", async () => makeStoryboard(await getDeps(), owner, runId, source));
      return await step.run("publish", async () => publishEncode(await getDeps(), owner, runId, rungs, variants));
    } catch (err) {
      // ---- a step failed for good: record the code, remove the unpublished outputs, fail the run
      const detail = err instanceof Error ? err.message : String(err);
      const code = encodeErrorCode(err);
      const limit = limitOf(err);
      const rungs = plan?.rungs ?? [];
      await step.run("mark-failed", async () => failEncode(await getDeps(), { ...owner, runId, rungs, code, detail, limit }));
      throw new NonRetriableError(`encode of asset ${assetId} failed: ${detail}`);
    }
  },
);
