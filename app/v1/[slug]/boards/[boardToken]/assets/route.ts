import { listBoardAssets } from "@/lib/assets/list-board-assets";
import { toPage } from "@/lib/http/pagination";
import { parseQuery } from "@/lib/http/parse";
import { methods } from "@/lib/http/route";
import { streamedJson } from "@/lib/http/streamed-json";
import { withApi } from "@/lib/http/with-api";
import { linkerFor } from "@/lib/media/linker-for";
import { BoardAssetsQuery } from "../../schema";

// GET /v1/:slug/boards/:token/assets — assets on the board; nested_assets=true adds its sub-boards'
const list = withApi({ scope: "read", boardToken: true }, async ({ req, params, deps, workspace, principal }) => {
  const q = parseQuery(req, BoardAssetsQuery);
  const nested = q.nested_assets === "true" || q.nested_assets === "1";
  const link = await linkerFor(req, deps);
  return streamedJson(await listBoardAssets(deps, { workspace, principal, token: params.boardToken, nested, query: q.query, md5: q.md5, page: toPage(q), link }));
});

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({ GET: list });
