import { z } from "zod";
import { VERSION_SOURCES } from "../../db/schema/asset-versions";
import { pageQuery } from "../../http/pagination";
import { ThumbnailJson } from "./assets";
import { Md5, PagyJson, Timestamp } from "./common";

// ---- requests

/** Version lists page like every list, but 100 to a page by default. */
export const VersionsQuery = pageQuery(100);

// ---- responses (lib/versions/present.ts, lib/versions/list-versions.ts)

export const VersionJson = z
  .strictObject({
    version_number: z.number().int().min(1).meta({ description: "Stable handle for revert and comment edits; the newest stored version is head − 1." }),
    source: z.enum(VERSION_SOURCES).meta({ description: "`UPLOAD` (bytes uploaded), `REVERT` (restored), `EDIT` (metadata checkpoint)." }),
    comment: z.string().nullable(),
    title: z.string(),
    md5: Md5,
    size: z.number().int().min(0),
    media_type: z.string(),
    revertable: z.boolean().meta({ description: "Whether the version is inside the plan's revert window now; use it instead of computing age." }),
    created_at: Timestamp.meta({ description: "When the version was stored; the revert window is measured from it." }),
    created_by_token: z.string().nullable().meta({ description: "Token (prefix) that made this content." }),
    thumbnails: z.array(ThumbnailJson).meta({ description: "Past the window on a gated plan: watermarked previews at most 320 px wide." }),
    primary_storage_id: z.string().nullable().meta({ description: "Null past the revert window on a gated plan (Free, Pro)." }),
  })
  .meta({ id: "Version", description: "A stored, immutable snapshot of an asset." });
export type VersionJson = z.infer<typeof VersionJson>;

export const VersionListJson = z
  .strictObject({
    data: z.array(VersionJson).meta({ description: "Newest first." }),
    head_version_number: z.number().int().min(1).meta({ description: "The number the next version write takes (not the newest stored version)." }),
    pagy: PagyJson,
  })
  .meta({ id: "VersionList", description: "Stored versions newest first, with the head number beside `data`." });
export type VersionListJson = z.infer<typeof VersionListJson>;
