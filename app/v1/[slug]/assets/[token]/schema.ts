import { z } from "zod";

/** A stored version's number: anything but a positive integer is `invalid_version_number`. */
export const versionNumber = z.number({ error: "must be a positive integer" }).int("must be a positive integer").positive("must be a positive integer");

export const PatchAssetBody = z.object({
  asset: z.object({
    create_version: z.boolean().optional(),
    signed_storage_id: z.string().min(1).max(2000).optional(),
    media_type: z.string().regex(/^[\w.+-]+\/[\w.+-]+$/, "must be a MIME type such as image/png").optional(),
    comment: z.string().max(10_000).optional(),
    version_number: versionNumber.optional(),
    title: z.string().trim().min(1, "must not be empty").max(500).optional(),
    description: z.string().max(10_000).optional(),
    text: z.string().max(100_000).optional(),
    tags: z.array(z.string().trim().min(1).max(100)).max(100).optional(),
    fields: z.record(z.string().min(1).max(100), z.string().max(10_000)).optional(),
  }),
});

export const RevertBody = z.object({
  version_number: versionNumber,
  comment: z.string().max(10_000).optional(),
});

export const VERSION_FIELD_CODES = { version_number: "invalid_version_number" } as const;
