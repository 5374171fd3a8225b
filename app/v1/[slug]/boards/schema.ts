import { z } from "zod";
import { BOARD_STATES } from "@/lib/db/schema";
import { pageQuery } from "@/lib/http/pagination";

const title = z.string().trim().min(1, "must not be empty").max(500);
const boardToken = z.string().min(1).max(64);

export const CreateBoardBody = z.object({
  board: z.object({ title, parent_token: boardToken.nullish() }),
});

export const UpdateBoardBody = z.object({
  board: z
    .object({ title: title.optional(), state: z.enum(BOARD_STATES).optional(), parent_token: boardToken.nullable().optional() })
    .refine((b) => Object.keys(b).length > 0, "give at least one of title, state, parent_token"),
});

export const BoardListQuery = pageQuery();

export const BoardAssetsQuery = pageQuery().extend({
  nested_assets: z.enum(["true", "false", "1", "0"]).optional(),
  query: z.string().max(500).optional(),
});
