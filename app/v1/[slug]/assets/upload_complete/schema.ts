import { z } from "zod";

export const CompleteBody = z.object({
  asset: z.object({
    signed_storage_id: z.string().min(1).max(2000),
    multipart_upload_id: z.string().min(1).max(1000).optional(),
    title: z.string().max(500).optional(),
    description: z.string().max(10_000).optional(),
    collection_token: z.string().min(1).max(64).optional(),
  }),
});
