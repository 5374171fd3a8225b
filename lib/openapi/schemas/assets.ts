import { z } from "zod";
import { ENCODE_STATUSES } from "../../db/schema/assets";
import { ENCODE_ERROR_CODES } from "../../encode/errors";
import { BOUNDS, checkFieldBounds, fieldBoundsProblem } from "../../http/bounds";
import { firstContainerOver } from "../../http/json-containers";
import { pageQuery } from "../../http/pagination";
import { Md5, Md5Filter, oneOf, pageOf, PagyJson, Timestamp } from "./common";

// ---- requests (app/v1/[slug]/assets/** validate with these)

const tagList = z
  .string()
  .max(BOUNDS.tagFilterChars)
  .transform((s) => s.split(",").map((t) => t.trim()).filter(Boolean));

export const AssetListQuery = pageQuery().extend({
  query: z.string().max(BOUNDS.searchQuery).optional().meta({ description: "Case-insensitive substring of title, description, text, a tag or a field value." }),
  md5: Md5Filter,
});

export const SearchQuery = pageQuery().extend({
  query: z.string().trim().min(1, "must not be empty").max(BOUNDS.searchQuery),
  media_type: z
    .string()
    .max(BOUNDS.mediaType)
    .regex(/^[\w.+-]+(\/[\w.+-]*)?$/, "must be a MIME type or family such as image")
    .optional()
    .meta({ description: "An exact type (`image/png`) or a family (`image`)." }),
  board_token: z.string().min(1).max(BOUNDS.boardToken).optional().meta({ description: "Only this board and its sub-boards." }),
  tags: tagList.optional().meta({ description: "Comma-separated; every tag must be present." }),
});

/** A stored version's number: anything but a positive integer is `invalid_version_number`. */
export const versionNumber = z.number({ error: "must be a positive integer" }).int("must be a positive integer").positive("must be a positive integer");

/** A media type as a request gives it: `type/subtype`, at most BOUNDS.mediaType characters. */
const mediaType = z.string().max(BOUNDS.mediaType).regex(/^[\w.+-]+\/[\w.+-]+$/, "must be a MIME type such as image/png");

/**
 * Custom fields as a request gives them (contract §13): at most 100, names 1–100 characters,
 * string values of at most 10,000, all together at most 64 KiB of JSON. The PATCH route checks
 * the same bounds before parsing (lib/http/bounds.ts); this check keeps them wherever the schema
 * is used, and states them in the OpenAPI document.
 */
const customFields = z
  .record(z.string().min(1).max(BOUNDS.fieldNameChars), z.string().max(BOUNDS.fieldValueChars))
  .superRefine((fields, ctx) => {
    const problem = fieldBoundsProblem(fields);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  })
  .meta({
    maxProperties: BOUNDS.fieldCount,
    description: `Replaces the custom fields. Not versioned. At most ${BOUNDS.fieldCount} fields, names 1–${BOUNDS.fieldNameChars} characters, values at most ${BOUNDS.fieldValueChars.toLocaleString("en")} characters, all together at most ${BOUNDS.fieldsJsonBytes / 1024} KiB of JSON (else 422 validation_failed on \`fields\`).`,
  });

export const PatchAssetBody = z.object({
  asset: z.object({
    create_version: z.boolean().optional().meta({ description: "true: snapshot the head first (a version write, or a metadata checkpoint). `false` with `signed_storage_id` is 422." }),
    signed_storage_id: z.string().min(1).max(BOUNDS.signedStorageId).optional().meta({ description: "From upload_prepare: the uploaded bytes become a new version." }),
    media_type: mediaType.optional(),
    comment: z.string().max(BOUNDS.comment).optional().meta({ description: "Note on the snapshot this request creates, or on `version_number` in a comment edit. `\"\"` clears it; omitted changes nothing." }),
    version_number: versionNumber.optional().meta({ description: "Without `signed_storage_id`: edit the comment of this stored version (1..head−1)." }),
    title: z.string().trim().min(1, "must not be empty").max(BOUNDS.title).optional(),
    description: z.string().max(BOUNDS.description).optional(),
    text: z.string().max(BOUNDS.text).optional(),
    tags: z.array(z.string().trim().min(1).max(BOUNDS.tagChars)).max(BOUNDS.tagCount).optional().meta({ description: "Replaces the tags. Not versioned." }),
    fields: customFields.optional(),
  }),
});

/**
 * PATCH's check of the text, before it is parsed: more custom fields than the bound allows are
 * refused on `fields` without paying for JSON.parse of them (a 45,000-field body took 30-80 ms of
 * the event loop to parse alone).
 */
export function precheckPatchAssetText(text: string): void {
  const path = firstContainerOver(text, BOUNDS.fieldCount);
  if (path && path.length === 3 && path[1] === "asset" && path[2] === "fields") checkFieldBounds(tooManyFields);
}
/** Stands for any object with one name over the bound: what checkFieldBounds refuses for its count. */
const tooManyFields = Object.fromEntries(Array.from({ length: BOUNDS.fieldCount + 1 }, (_, i) => [`f${i}`, ""]));

/** PATCH's check before parsing: custom fields over their bounds are refused before any walk over them. */
export function precheckPatchAsset(body: Record<string, unknown>): void {
  const asset = body.asset;
  if (asset !== null && typeof asset === "object") checkFieldBounds((asset as Record<string, unknown>).fields);
}

export const RevertBody = z.object({
  version_number: versionNumber.meta({ description: "Stored version to restore." }),
  comment: z.string().max(BOUNDS.comment).optional().meta({ description: "Recorded on the snapshot of the head being replaced." }),
});

export const VERSION_FIELD_CODES = { version_number: "invalid_version_number" } as const;

// ---- responses (lib/assets/present.ts, lib/search)

const THUMBNAIL_SIZES = ["small", "medium", "large"] as const;

export const ThumbnailJson = z
  .strictObject({
    size: z.enum(THUMBNAIL_SIZES),
    url: z.url().meta({ description: "Signed link; browser code holding a board access token may use `?token=` instead." }),
    width: z.number().int().min(0),
    height: z.number().int().min(0),
  })
  .meta({ id: "Thumbnail" });
export type ThumbnailJson = z.infer<typeof ThumbnailJson>;

export const EncodeErrorJson = z
  .strictObject({
    code: z.enum(ENCODE_ERROR_CODES).meta({ description: "Stable code to branch on (docs/video.md lists them)." }),
    message: z.string().meta({ description: "A sentence for people; the detail of the failure is in the server's log." }),
  })
  .meta({ id: "EncodeError" });

export const ProcessingErrorJson = z
  .strictObject({
    code: z.enum(["time_limit", "memory_limit"]).meta({ description: "The media limit a step went over: `time_limit` (EASEL_MEDIA_TIMEOUT_S) or `memory_limit` (EASEL_MEDIA_MEMORY_MB)." }),
    message: z.string().meta({ description: "Which step and which limit, for people." }),
  })
  .meta({ id: "ProcessingError" });

export const EncodeProgressJson = z
  .strictObject({
    fraction: z.number().min(0).max(1).meta({ description: "Share of the whole encode done, 0 to 1. Never goes back while one encode runs; starts again only when an encode restarts." }),
    rung: z.string().meta({ description: "The ladder's top rendition (e.g. `1080p`): one pass of ffmpeg writes every rung at once, so the fraction is the whole ladder's." }),
    eta_seconds: z.number().min(0).nullable().meta({ description: "Estimated seconds left; null until enough of the encode has run to estimate." }),
  })
  .meta({ id: "EncodeProgress" });

export const AssetJson = z
  .strictObject({
    id: z.number().int().meta({ description: "Numeric id, as in webhook payloads." }),
    token: z.string().meta({ description: "The asset's handle in paths (`:token`). Kept across version writes." }),
    title: z.string(),
    description: z.string().nullable(),
    text: z.string().nullable(),
    media_type: z.string().meta({ description: "MIME type." }),
    display_url: z.url().meta({ description: "Preview of the current content (a signed link that serves the head, also after a version write)." }),
    stream_url: z.url().nullable().meta({ description: "HLS master playlist of a video; null until an encode has finished. Poll GET asset to wait for it." }),
    created_at: Timestamp,
    updated_at: Timestamp,
    tags: z.array(z.string()),
    fields: z.record(z.string(), z.string()).meta({ description: "Custom fields, keyed by field name." }),
    primary_storage_id: z.string().nullable().meta({ description: "Identifier of the full-resolution original." }),
    boards: z.array(z.string()).meta({ description: "Tokens of the boards the asset is on." }),
    encode_status: z.enum(ENCODE_STATUSES).meta({ description: "Video encode state; `none` for other media." }),
    encode_error: EncodeErrorJson.nullable().meta({ description: "Why the encode failed, when `encode_status` is `failed`; otherwise null. Cleared when a retry queues a new encode." }),
    encode_progress: EncodeProgressJson.nullable().meta({ description: "How far the running encode has come, while `encode_status` is `processing`; otherwise null. Pushed to open pages by the live updates." }),
    storyboard_url: z.url().nullable().meta({ description: "WebVTT thumbnails track of the finished encode (scrubbing previews: each cue names a region of a sprite sheet); null until an encode has finished." }),
    processing_error: ProcessingErrorJson.nullable().meta({
      description: "Why a processing step (measure, thumbnails, probe, poster or encode) of the current bytes was stopped by a media limit; otherwise null. The asset keeps what was made before it. Cleared when a later version processes within the limits.",
    }),
    size: z.number().int().min(0).meta({ description: "Bytes." }),
    md5: Md5,
    head_version_number: z.number().int().min(1).meta({ description: "The number the next version write takes; the newest stored version is this minus 1." }),
    thumbnails: z.array(ThumbnailJson),
    width: z.number().nullable(),
    height: z.number().nullable(),
    duration: z.number().nullable().meta({ description: "Seconds, for audio and video." }),
  })
  .meta({ id: "Asset", description: "An asset: its live head and links to its media." });
export type AssetJson = z.infer<typeof AssetJson>;

export const AssetOne = oneOf(AssetJson, "AssetResponse");
export const AssetPage = pageOf(AssetJson, "AssetPage", "A page of assets, newest first.");
export type AssetPage = z.infer<typeof AssetPage>;

export const AssetWriteJson = z
  .strictObject({
    data: AssetJson,
    head_version_number: z.number().int().min(1).meta({ description: "The head after the write (unchanged by a no-op)." }),
  })
  .meta({ id: "AssetWriteResponse", description: "The asset after a write, with `head_version_number` beside `data`." });
export type AssetWriteJson = z.infer<typeof AssetWriteJson>;

export const SearchHitJson = AssetJson.extend({
  score: z.number().meta({ description: "Higher is better (4 decimals): the full-text rank; on ai_search with embeddings configured, that rank plus the cosine similarity to the query (docs/search.md)." }),
}).meta({ id: "SearchHit", description: "An asset found by search, with its rank." });
export type SearchHitJson = z.infer<typeof SearchHitJson>;

export const SearchPage = pageOf(SearchHitJson, "SearchPage", "Search results, best first, newest first among equals.");
export type SearchPage = z.infer<typeof SearchPage>;

const MEDIA_KINDS = ["image", "video", "audio", "pdf"] as const;

export const InterpretationJson = z
  .strictObject({
    kinds: z.array(z.enum(MEDIA_KINDS)),
    notKinds: z.array(z.enum(MEDIA_KINDS)),
    since: Timestamp.nullable(),
    until: Timestamp.nullable(),
    orientation: z.enum(["portrait", "landscape", "square"]).optional(),
    minDurationSeconds: z.number().optional(),
    maxDurationSeconds: z.number().optional(),
    minBytes: z.number().optional(),
    maxBytes: z.number().optional(),
    colors: z.array(z.string()),
    notColors: z.array(z.string()),
    tags: z.array(z.string()),
    words: z.array(z.string()).meta({ description: "Free words that rank results by full text." }),
    notWords: z.array(z.string()),
  })
  .meta({ id: "SearchInterpretation", description: "How ai_search read the query, as filters (keys absent when that rule did not fire)." });

export const AiSearchPage = z
  .strictObject({
    data: z.array(SearchHitJson),
    pagy: PagyJson,
    explanation: z.string().meta({ description: "How the query was read, in words." }),
    interpretation: InterpretationJson,
  })
  .meta({ id: "AiSearchPage", description: "ai_search results with how the query was read." });
export type AiSearchPage = z.infer<typeof AiSearchPage>;
