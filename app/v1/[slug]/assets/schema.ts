import { z } from "zod";
import { pageQuery } from "@/lib/http/pagination";

export const AssetListQuery = pageQuery().extend({ query: z.string().max(500).optional() });
export const SearchQuery = pageQuery().extend({ query: z.string().trim().min(1, "must not be empty").max(500) });
