import { z } from "zod";
import { queryInt } from "../../http/parse";
import { Md5, oneOf, Timestamp } from "./common";

// ---- requests

/** `?version=N`: a stored version's original instead of the head's (N = the head is the head). */
export const DownloadLinkQuery = z.object({
  version: queryInt(1, 2 ** 31 - 1)
    .optional()
    .meta({ description: "A stored version (1 … head − 1), or the head's number; absent: the head." }),
});

// ---- responses (lib/media/download-link.ts)

export const DownloadLinkJson = z
  .strictObject({
    url: z.url().meta({ description: "Signed link to the original bytes (GET, with Range); no header needed. Answers `no-cache` with an ETag." }),
    expires_at: Timestamp.meta({ description: "When the link stops working (one hour after it was made); ask again for a new one." }),
    version_number: z.number().int().min(1).meta({ description: "The version the bytes are: the head's number when no stored version was asked for." }),
    title: z.string(),
    media_type: z.string(),
    md5: Md5.meta({ description: "The bytes' md5, to check a download against." }),
    size: z.number().int().min(0),
  })
  .meta({ id: "DownloadLink", description: "A short-lived signed link to an asset's original bytes." });
export type DownloadLinkJson = z.infer<typeof DownloadLinkJson>;

export const DownloadLinkOne = oneOf(DownloadLinkJson, "DownloadLinkResponse");
