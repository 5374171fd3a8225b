import { presentAsset } from "@/lib/assets/get-asset";
import { retryVideoProcessing } from "@/lib/encode/retry";
import { json } from "@/lib/http/envelope";
import { methods } from "@/lib/http/route";
import { withApi } from "@/lib/http/with-api";
import { linkerFor } from "@/lib/media/linker-for";

// POST /v1/:slug/assets/:token/retry_video_processing — queue an HLS encode unless one has finished
// (422 not_a_video, encode_already_finished, streaming_not_available); poll GET asset for stream_url
const retry = withApi({ scope: "write" }, async ({ req, params, deps, workspace }) => {
  const asset = await retryVideoProcessing(deps, { workspace, token: params.token });
  return json({ data: await presentAsset(deps.db, asset, await linkerFor(req, deps)) });
});

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({ POST: retry });
