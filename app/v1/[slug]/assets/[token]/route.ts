import { deleteAsset } from "@/lib/assets/delete-asset";
import { getAssetWithBoardTokens, presentAsset } from "@/lib/assets/get-asset";
import { patchAsset } from "@/lib/assets/patch-asset";
import { toAssetJson } from "@/lib/assets/present";
import { startEncodeOnRead } from "@/lib/encode/request-encode";
import { json } from "@/lib/http/envelope";
import { parseIfMatch, parseJson } from "@/lib/http/parse";
import { methods } from "@/lib/http/route";
import { withApi } from "@/lib/http/with-api";
import { linkerFor } from "@/lib/media/linker-for";
import { workspaceStorage } from "@/lib/storage/workspace-storage";
import { PatchAssetBody, precheckPatchAsset, precheckPatchAssetText, VERSION_FIELD_CODES } from "./schema";

// GET /v1/:slug/assets/:token — the asset, starting a video's encode on plans that encode on first read
// (a board access token reads assets through list routes)
const show = withApi({ scope: "read" }, async ({ req, params, deps, workspace }) => {
  const { asset, boardTokens } = await getAssetWithBoardTokens(deps.db, workspace, params.token);
  return json({ data: toAssetJson(await startEncodeOnRead(deps, workspace, asset), boardTokens, await linkerFor(req, deps)) });
});

// PATCH /v1/:slug/assets/:token — metadata write, version write, checkpoint or comment edit
const update = withApi({ scope: "write" }, async ({ req, params, deps, workspace, principal }) => {
  const ifMatch = parseIfMatch(req);
  const { asset: a } = await parseJson(req, PatchAssetBody, VERSION_FIELD_CODES, precheckPatchAsset, precheckPatchAssetText);
  const body = {
    createVersion: a.create_version, signedStorageId: a.signed_storage_id, mediaType: a.media_type, comment: a.comment,
    versionNumber: a.version_number, title: a.title, description: a.description, text: a.text, tags: a.tags, fields: a.fields,
  };
  const result = await patchAsset(deps, workspaceStorage(deps, workspace, req), { workspace, principal, token: params.token, ifMatch, body });
  return json({ data: await presentAsset(deps.db, result.asset, await linkerFor(req, deps)), head_version_number: result.headVersionNumber });
});

// DELETE /v1/:slug/assets/:token — delete the asset and its history (204)
const remove = withApi({ scope: "write" }, async ({ req, params, deps, workspace }) => {
  await deleteAsset(deps, workspaceStorage(deps, workspace, req), { workspace, token: params.token });
  return new Response(null, { status: 204 });
});

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({ GET: show, PATCH: update, DELETE: remove });
