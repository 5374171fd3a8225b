import { toPage } from "@/lib/http/pagination";
import { parseQuery } from "@/lib/http/parse";
import { methods } from "@/lib/http/route";
import { streamedJson } from "@/lib/http/streamed-json";
import { withApi } from "@/lib/http/with-api";
import { linkerFor } from "@/lib/media/linker-for";
import { aiSearch } from "@/lib/search/ai/ai-search";
import { searchScope } from "@/lib/search/scope";
import { SearchQuery } from "../assets/schema";

// GET /v1/:slug/ai_search?query= — natural-language search; the answer explains how it read the query
const search = withApi({ scope: "read", boardToken: true }, async ({ req, deps, workspace, principal }) => {
  const q = parseQuery(req, SearchQuery);
  const boards = await searchScope(deps, { workspace, principal, boardToken: q.board_token });
  const filter = { workspace, boards, query: q.query, mediaType: q.media_type, tags: q.tags };
  return streamedJson(await aiSearch(deps, filter, toPage(q), await linkerFor(req, deps)));
});

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({ GET: search });
