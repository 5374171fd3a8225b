import { z } from "zod";

export const PrepareBody = z.object({
  asset: z.object({
    title: z.string().max(500).optional(),
    media_type: z.string().regex(/^[\w.+-]+\/[\w.+-]+$/, "must be a MIME type such as image/png"),
    size: z.number().int("must be a whole number of bytes").positive("must be above 0"),
    collection_token: z.string().min(1).max(64).optional(),
    // 32 hex digits; upper case is accepted and read as the same digest.
    md5: z
      .string()
      .regex(/^[0-9a-fA-F]{32}$/, "must be 32 lowercase hex digits")
      .transform((s) => s.toLowerCase())
      .optional(),
  }),
});
