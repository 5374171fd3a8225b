import { json } from "@/lib/http/envelope";
import { parseJson } from "@/lib/http/parse";
import { methods } from "@/lib/http/route";
import { withApi } from "@/lib/http/with-api";
import { workspaceStorage } from "@/lib/storage/workspace-storage";
import { prepareUpload } from "@/lib/uploads/prepare-upload";
import { PrepareBody } from "./schema";

// POST /v1/:slug/assets/upload_prepare — reserve an upload and presign where the bytes go
const prepare = withApi({ scope: "write" }, async ({ req, deps, workspace }) => {
  const { asset } = await parseJson(req, PrepareBody);
  const storage = workspaceStorage(deps, workspace, req);
  const input = { title: asset.title, mediaType: asset.media_type, size: asset.size, collectionToken: asset.collection_token, md5: asset.md5 };
  return json({ data: await prepareUpload(deps, storage, { workspace, asset: input }) });
});

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({ POST: prepare });
