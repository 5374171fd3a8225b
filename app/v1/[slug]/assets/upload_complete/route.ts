import { presentAsset } from "@/lib/assets/get-asset";
import { json } from "@/lib/http/envelope";
import { parseJson } from "@/lib/http/parse";
import { methods } from "@/lib/http/route";
import { withApi } from "@/lib/http/with-api";
import { linkerFor } from "@/lib/media/linker-for";
import { workspaceStorage } from "@/lib/storage/workspace-storage";
import { completeUpload } from "@/lib/uploads/complete-upload";
import { CompleteBody } from "./schema";

// POST /v1/:slug/assets/upload_complete — turn uploaded bytes into an asset (idempotent)
const complete = withApi({ scope: "write" }, async ({ req, deps, workspace, principal }) => {
  const { asset: a } = await parseJson(req, CompleteBody);
  const body = { signedStorageId: a.signed_storage_id, multipartUploadId: a.multipart_upload_id, title: a.title, description: a.description, collectionToken: a.collection_token };
  const { asset } = await completeUpload(deps, workspaceStorage(deps, workspace, req), { workspace, principal, body });
  return json({ data: await presentAsset(deps.db, asset, await linkerFor(req, deps)) });
});

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({ POST: complete });
