import { listChildren } from "@/lib/boards";
import { json } from "@/lib/http/envelope";
import { toPage } from "@/lib/http/pagination";
import { parseQuery } from "@/lib/http/parse";
import { methods } from "@/lib/http/route";
import { withApi } from "@/lib/http/with-api";
import { BoardListQuery } from "../../schema";

// GET /v1/:slug/boards/:token/children — direct sub-boards, paginated
const list = withApi({ scope: "read", boardToken: true }, async ({ req, params, deps, workspace, principal }) => {
  const q = parseQuery(req, BoardListQuery);
  return json(await listChildren(deps, { workspace, principal, token: params.boardToken, page: toPage(q) }));
});

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({ GET: list });
