import { z } from "zod";
import { STORAGE_KINDS } from "../../db/schema/workspaces";
import { BOUNDS } from "../../http/bounds";
import { oneOf, Timestamp } from "./common";

// ---- requests (app/v1/[slug]/assets/upload_prepare and upload_complete validate with these)

export const PrepareBody = z.object({
  asset: z.object({
    title: z.string().max(BOUNDS.title).optional(),
    media_type: z.string().max(BOUNDS.mediaType).regex(/^[\w.+-]+\/[\w.+-]+$/, "must be a MIME type such as image/png"),
    size: z.number().int("must be a whole number of bytes").positive("must be above 0").meta({ description: "Bytes; at most the server's limit (default 5 GiB, else 413). upload_complete refuses an object of another size (422 size_mismatch)." }),
    collection_token: z.string().min(1).max(BOUNDS.boardToken).optional().meta({ description: "Board the asset will be placed on." }),
    // 32 hex digits; upper case is accepted and read as the same digest.
    md5: z
      .string()
      .regex(/^[0-9a-fA-F]{32}$/, "must be 32 lowercase hex digits")
      .transform((s) => s.toLowerCase())
      .optional()
      .meta({ description: "Hex md5 of the bytes: upload_complete refuses other bytes (422 checksum_mismatch)." }),
  }),
});

export const CompleteBody = z.object({
  asset: z.object({
    signed_storage_id: z.string().min(1).max(BOUNDS.signedStorageId).meta({ description: "Exactly as upload_prepare returned it." }),
    multipart_upload_id: z.string().min(1).max(BOUNDS.multipartUploadId).optional().meta({ description: "s3 multipart uploads: the value from upload_prepare." }),
    title: z.string().max(BOUNDS.title).optional(),
    description: z.string().max(BOUNDS.description).optional(),
    collection_token: z.string().min(1).max(BOUNDS.boardToken).optional().meta({ description: "Board to place the asset on." }),
  }),
});

// ---- responses (lib/uploads/prepare-upload.ts)

export const PreparedUploadJson = z
  .strictObject({
    storage_provider: z.enum(STORAGE_KINDS).meta({ description: "`gcs` (Kind A, resumable) or `s3` (Kind B)." }),
    signed_storage_id: z.string().meta({ description: "Opaque, signed, valid 24 h. Pass it unchanged to upload_complete or a version-writing PATCH." }),
    upload_url: z.url().meta({ description: "gcs: POST here with `x-goog-resumable: start`; s3 single part: PUT the bytes here." }),
    multipart_upload_id: z.string().nullable().meta({ description: "s3 and size >= 5 MiB (5,242,880 bytes)." }),
    part_size: z.number().int().nullable().meta({ description: "s3 multipart: bytes per part (8 MiB), the last part smaller." }),
    part_urls: z.array(z.url()).nullable().meta({ description: "s3 multipart: presigned PUT URL of part 1..N, in order." }),
    list_parts_url: z
      .url()
      .nullable()
      .meta({ description: "s3 multipart: presigned ListParts URL of this upload (GET), so a client resuming an interrupted upload sends only the parts storage lacks." }),
    expires_at: Timestamp,
  })
  .meta({ id: "PreparedUpload", description: "Where to send the bytes. Storage URLs carry their own signature; send no Authorization to them." });
export type PreparedUploadJson = z.infer<typeof PreparedUploadJson>;

export const PreparedUploadOne = oneOf(PreparedUploadJson, "PreparedUploadResponse");
