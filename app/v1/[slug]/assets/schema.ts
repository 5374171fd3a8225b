import { z } from "zod";
import { pageQuery } from "@/lib/http/pagination";

const tagList = z
  .string()
  .max(1000)
  .transform((s) => s.split(",").map((t) => t.trim()).filter(Boolean));

export const AssetListQuery = pageQuery().extend({ query: z.string().max(500).optional() });

export const SearchQuery = pageQuery().extend({
  query: z.string().trim().min(1, "must not be empty").max(500),
  media_type: z.string().regex(/^[\w.+-]+(\/[\w.+-]*)?$/, "must be a MIME type or family such as image").optional(),
  board_token: z.string().min(1).max(64).optional(),
  tags: tagList.optional(),
});
