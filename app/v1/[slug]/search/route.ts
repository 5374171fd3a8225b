import { visibleBoardIds } from "@/lib/boards";
import { json } from "@/lib/http/envelope";
import { toPage } from "@/lib/http/pagination";
import { parseQuery } from "@/lib/http/parse";
import { methods } from "@/lib/http/route";
import { withApi } from "@/lib/http/with-api";
import { linkerFor } from "@/lib/media/linker-for";
import { searchAssets } from "@/lib/search/search-assets";
import { SearchQuery } from "../assets/schema";

// GET /v1/:slug/search?query= — ranked search over title, description, text, tags and field values
const search = withApi({ scope: "read", boardToken: true }, async ({ req, deps, workspace, principal }) => {
  const q = parseQuery(req, SearchQuery);
  const boardIds = await visibleBoardIds(deps.db, workspace, principal);
  const link = await linkerFor(req, deps);
  return json(await searchAssets(deps, { workspace, boardIds, query: q.query }, toPage(q), link));
});

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({ GET: search });
