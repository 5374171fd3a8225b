import { presentAsset } from "@/lib/assets/get-asset";
import { json } from "@/lib/http/envelope";
import { parseIfMatch, parseJson } from "@/lib/http/parse";
import { methods } from "@/lib/http/route";
import { withApi } from "@/lib/http/with-api";
import { linkerFor } from "@/lib/media/linker-for";
import { workspaceStorage } from "@/lib/storage/workspace-storage";
import { revertAsset } from "@/lib/versions/revert-asset";
import { RevertBody, VERSION_FIELD_CODES } from "../schema";

// POST /v1/:slug/assets/:token/revert — restore a stored version (head moves forward by one)
const revert = withApi({ scope: "write" }, async ({ req, params, deps, workspace, principal }) => {
  const ifMatch = parseIfMatch(req);
  const body = await parseJson(req, RevertBody, VERSION_FIELD_CODES);
  const input = { workspace, principal, token: params.token, versionNumber: body.version_number, comment: body.comment, ifMatch };
  const result = await revertAsset(deps, workspaceStorage(deps, workspace, req), input);
  return json({ data: await presentAsset(deps.db, result.asset, await linkerFor(req, deps)), head_version_number: result.headVersionNumber });
});

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({ POST: revert });
