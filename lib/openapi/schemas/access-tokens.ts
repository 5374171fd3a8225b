import { z } from "zod";
import { BOARD_TOKEN_MAX_SECONDS, BOARD_TOKEN_MIN_SECONDS } from "../../access-tokens/lifetime";
import { BOUNDS } from "../../http/bounds";
import { oneOf, Timestamp } from "./common";

// ---- requests (app/v1/[slug]/access_tokens validates with this)

export const CreateAccessTokenBody = z.object({
  board_token: z.string().min(1).max(BOUNDS.boardToken).meta({ description: "The board the token may read (with its sub-boards)." }),
  expires_in: z
    .number({ error: "must be a whole number of seconds" })
    .int("must be a whole number of seconds")
    .min(BOARD_TOKEN_MIN_SECONDS)
    .max(BOARD_TOKEN_MAX_SECONDS)
    .meta({ description: "Lifetime in whole seconds, 60..3600." }),
});

// ---- responses (lib/access-tokens/create-board-token.ts)

export const BoardAccessTokenJson = z
  .strictObject({
    access_token: z.string().meta({ description: "Send as `Authorization: Bearer <access_token>` to the seven read routes, or as `?token=` on media links." }),
    token_type: z.literal("Bearer"),
    board_token: z.string(),
    expires_in: z.number().int().meta({ description: "Seconds, as requested." }),
    expires_at: Timestamp,
  })
  .meta({ id: "BoardAccessToken", description: "A read-only token for one board and its sub-boards, for browser code." });
export type BoardAccessTokenJson = z.infer<typeof BoardAccessTokenJson>;

export const BoardAccessTokenOne = oneOf(BoardAccessTokenJson, "BoardAccessTokenResponse");
