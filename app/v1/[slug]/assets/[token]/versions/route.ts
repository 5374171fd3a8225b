import { json } from "@/lib/http/envelope";
import { toPage } from "@/lib/http/pagination";
import { parseQuery } from "@/lib/http/parse";
import { methods } from "@/lib/http/route";
import { withApi } from "@/lib/http/with-api";
import { linkerFor } from "@/lib/media/linker-for";
import { VersionsQuery } from "@/lib/openapi/schemas/versions";
import { listVersions } from "@/lib/versions/list-versions";

// GET /v1/:slug/assets/:token/versions — stored versions newest first, with head_version_number
const list = withApi({ scope: "read" }, async ({ req, params, deps, workspace }) => {
  const q = parseQuery(req, VersionsQuery);
  const link = await linkerFor(req, deps);
  return json(await listVersions(deps, { workspace, token: params.token, page: toPage(q), surface: "rest", link }));
});

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({ GET: list });
