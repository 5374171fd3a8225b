import { z } from "zod";
import { BOARD_TOKEN_MAX_SECONDS, BOARD_TOKEN_MIN_SECONDS } from "@/lib/access-tokens/create-board-token";

export const CreateAccessTokenBody = z.object({
  board_token: z.string().min(1).max(64),
  expires_in: z
    .number({ error: "must be a whole number of seconds" })
    .int("must be a whole number of seconds")
    .min(BOARD_TOKEN_MIN_SECONDS)
    .max(BOARD_TOKEN_MAX_SECONDS),
});
