import { cron, eventType } from "inngest";
import { z } from "zod";

/**
 * Every event Easel's jobs react to, with its payload schema: the one registry. Functions use
 * these as triggers; domain code stores them in its write's transaction (lib/jobs/outbox, which
 * validates the payload against the schema) and the outbox hands them on after the commit.
 */

/**
 * The workspace a job works for: its functions' concurrency is keyed by it, so one workspace's
 * backlog never holds every slot (docs/jobs.md, "Fair queues"). Every sender sets it; it is
 * optional only so that an event stored before it existed (a job queued across an upgrade) still
 * passes the SDK's check of the trigger's schema and runs, in the group of the empty key.
 */
const workspaceKey = z.number().int().optional();

/** An upload completed or a new version was written: probe the media, make thumbnails. */
export const assetProcessingRequested = eventType("asset/processing.requested", {
  schema: z.object({ assetId: z.number().int(), workspaceId: workspaceKey }),
});

/**
 * Encode a video to HLS. Deliberately no event id: every retry_video_processing call must queue
 * a new run (the spec); the per-workspace concurrency key (one step at a time per workspace, so per
 * asset too) serialises their steps, the encode's lease their runs, and a late run finds the work done.
 */
export const encodeVideoRequested = eventType("encode/video.requested", {
  schema: z.object({ assetId: z.number().int(), workspaceId: workspaceKey }),
});

export const ASSET_CHANGE_KINDS = ["asset_added", "asset_updated", "asset_deleted"] as const;

/** An asset was added, updated or deleted: fan out to webhook triggers. */
export const assetChanged = eventType("asset/changed", {
  schema: z.object({
    assetId: z.number().int(),
    workspaceId: z.number().int(),
    kind: z.enum(ASSET_CHANGE_KINDS),
    changes: z.record(z.string(), z.object({ old: z.unknown(), new: z.unknown() })).optional(),
    occurredAt: z.string(),
    /** The asset as it was when deleted (it is gone by the time the fan-out runs). */
    snapshot: z.unknown().optional(),
  }),
});

/**
 * Deliver one webhook message to one trigger; `messageId` is the stable `webhook-id` across retries.
 * `attemptsMade`: attempts of the retry schedule already spent (a fan-out's failed first attempt
 * is 1: the run starts with the schedule's second wait); absent on a resend, a fresh schedule.
 */
export const webhookDeliveryRequested = eventType("webhook/delivery.requested", {
  schema: z.object({ triggerId: z.string(), messageId: z.string(), payload: z.unknown(), attemptsMade: z.number().int().min(0).optional(), workspaceId: workspaceKey }),
});

/** When expired upload sessions are swept (UTC): the trigger of the upload-cleanup function. */
export const uploadCleanupSchedule = cron("*/15 * * * *");

/** When finished job runs past their retention are pruned (embedded executor only). */
export const jobRunsPruneSchedule = cron("23 * * * *");
