import { listWorkspaceAssets } from "@/lib/assets/list-board-assets";
import { toPage } from "@/lib/http/pagination";
import { parseQuery } from "@/lib/http/parse";
import { methods } from "@/lib/http/route";
import { streamedJson } from "@/lib/http/streamed-json";
import { withApi } from "@/lib/http/with-api";
import { linkerFor } from "@/lib/media/linker-for";
import { AssetListQuery } from "./schema";

// GET /v1/:slug/assets — every asset the caller may see, newest first; `query` filters by text, `md5` by content
const list = withApi({ scope: "read", boardToken: true }, async ({ req, deps, workspace, principal }) => {
  const q = parseQuery(req, AssetListQuery);
  const link = await linkerFor(req, deps);
  return streamedJson(await listWorkspaceAssets(deps, { workspace, principal, query: q.query, md5: q.md5, page: toPage(q), link }));
});

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({ GET: list });
