import { mediaBaseUrl } from "@/lib/http/base-url";
import { json } from "@/lib/http/envelope";
import { parseQuery } from "@/lib/http/parse";
import { methods } from "@/lib/http/route";
import { withApi } from "@/lib/http/with-api";
import { downloadLink } from "@/lib/media/download-link";
import { DownloadLinkQuery } from "@/lib/openapi/schemas/download-link";

// GET /v1/:slug/assets/:token/download_link[?version=N] — a signed one-hour link to the original bytes
const show = withApi({ scope: "read" }, async ({ req, params, deps, workspace }) => {
  const q = parseQuery(req, DownloadLinkQuery);
  const link = await downloadLink(deps, { workspace, token: params.token, version: q.version, baseUrl: mediaBaseUrl(req) });
  // The answer is a capability: nothing on the way may keep it.
  return json({ data: link }, 200, { "Cache-Control": "no-store" });
});

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({ GET: show });
