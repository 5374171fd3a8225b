import { createBoardToken } from "@/lib/access-tokens/create-board-token";
import { json } from "@/lib/http/envelope";
import { parseJson } from "@/lib/http/parse";
import { methods } from "@/lib/http/route";
import { withApi } from "@/lib/http/with-api";
import { CreateAccessTokenBody } from "./schema";

// POST /v1/:slug/access_tokens — exchange an API token for a short-lived board access token
const create = withApi({ scope: "read", apiTokenOnly: true }, async ({ req, deps, workspace }) => {
  const body = await parseJson(req, CreateAccessTokenBody);
  return json({ data: await createBoardToken(deps, { workspace, boardToken: body.board_token, expiresIn: body.expires_in }) });
});

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({ POST: create });
