import { z } from "zod";

/** The PostgreSQL notification channel every node listens on. */
export const LIVE_CHANNEL = "easel_live";

/**
 * What changed, as a page needs to know it: enough to refetch exactly the right queries, never
 * the data itself (a page reads that through the API, with its own access checks).
 *
 * - asset_added / asset_updated / asset_deleted: the asset's write (upload, version write, revert,
 *   metadata edit, encode published: `changed` names the fields, e.g. `stream_url`).
 * - asset_processed: thumbnails, dimensions and the sniffed type were saved.
 * - encode_queued / encode_started / encode_failed: the encode badge moved.
 * - encode_progress: a running encode came further (`progress`, the asset JSON's encode_progress);
 *   at most about one a second per encode, and not kept for catch-up (the next one supersedes it).
 * - delivery: a webhook delivery of `trigger` was queued or attempted.
 */
export const LIVE_KINDS = ["asset_added", "asset_updated", "asset_deleted", "asset_processed", "encode_queued", "encode_started", "encode_failed", "encode_progress", "delivery"] as const;
export type LiveKind = (typeof LIVE_KINDS)[number];

/** Board tokens past this many are not listed (`boards: null`: the page refreshes every board's grid). */
export const MAX_BOARDS = 40;

export const LiveMessage = z.object({
  /** The cursor: a ULID, so ids from every node sort by time; SSE `id:`. */
  id: z.string().regex(/^[0-9A-HJKMNP-TV-Z]{26}$/),
  workspaceId: z.number().int(),
  kind: z.enum(LIVE_KINDS),
  /** The asset's token (absent for a delivery). */
  asset: z.string().max(100).optional(),
  /** The boards the asset sits on and their ancestors; null when too many to name. */
  boards: z.array(z.string().max(100)).max(MAX_BOARDS).nullable().optional(),
  /** The asset's head_version_number after the change. */
  version: z.number().int().optional(),
  /** Names of the fields that changed (asset_updated). */
  changed: z.array(z.string().max(64)).max(64).optional(),
  /** How far the encode has come (encode_progress): the asset JSON's `encode_progress`, so a page can move its bar without a refetch. */
  progress: z
    .object({ fraction: z.number().min(0).max(1), rung: z.string().max(40), eta_seconds: z.number().min(0).nullable() })
    .optional(),
  /** The trigger of a delivery. */
  trigger: z.string().max(100).optional(),
});
export type LiveMessage = z.infer<typeof LiveMessage>;

/** The JSON a page receives (`data:` of an SSE message): the message without its workspace id. */
export function publicPart(m: LiveMessage) {
  const { workspaceId: _workspaceId, ...rest } = m;
  return rest;
}

/**
 * Not a change a page sees: a person lost a workspace (their membership was removed). Every node
 * ends that person's open streams of the workspace at once; the browser's reconnect is then
 * authorized afresh and refused.
 */
export const AccessEnded = z.object({ accessEnded: z.object({ workspaceId: z.number().int(), userId: z.number().int() }) });
export type AccessEnded = z.infer<typeof AccessEnded>;
