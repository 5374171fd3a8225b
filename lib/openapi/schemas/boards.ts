import { z } from "zod";
import { BOARD_STATES } from "../../db/schema/boards";
import { BOUNDS } from "../../http/bounds";
import { pageQuery } from "../../http/pagination";
import { Md5Filter, oneOf, pageOf, Timestamp } from "./common";

// ---- requests (app/v1/[slug]/boards/** validate with these)

const title = z.string().trim().min(1, "must not be empty").max(BOUNDS.title);
const boardToken = z.string().min(1).max(BOUNDS.boardToken);

export const CreateBoardBody = z.object({
  board: z.object({ title, parent_token: boardToken.nullish().meta({ description: "Board to create it under; omitted or null: top level." }) }),
});

export const UpdateBoardBody = z.object({
  board: z
    .object({
      title: title.optional(),
      state: z.enum(BOARD_STATES).optional(),
      parent_token: boardToken.nullable().optional().meta({ description: "New parent; null moves the board to the top level. A move under itself or a descendant is 422." }),
    })
    .refine((b) => Object.keys(b).length > 0, "give at least one of title, state, parent_token"),
});

export const BoardListQuery = pageQuery();

export const BoardAssetsQuery = pageQuery().extend({
  nested_assets: z.enum(["true", "false", "1", "0"]).optional().meta({ description: "`true`: also the assets of every sub-board." }),
  query: z.string().max(BOUNDS.searchQuery).optional().meta({ description: "Case-insensitive substring of title, description, text, a tag or a field value." }),
  md5: Md5Filter,
});

// ---- responses (lib/boards/present.ts)

export const BoardJson = z
  .strictObject({
    token: z.string().meta({ description: "The board's handle in paths (`:token`), also called collection token." }),
    title: z.string(),
    parent_token: z.string().nullable().meta({ description: "Null at the top level." }),
    state: z.enum(BOARD_STATES).meta({ description: "Version writes need an asset on at least one `active` board." }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: "Board", description: "A board. Boards nest; an asset may sit on several boards." });
export type BoardJson = z.infer<typeof BoardJson>;

export const BoardOne = oneOf(BoardJson, "BoardResponse");
export const BoardPage = pageOf(BoardJson, "BoardPage", "A page of boards, oldest first.");
export type BoardPage = z.infer<typeof BoardPage>;
