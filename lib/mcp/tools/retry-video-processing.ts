import { z } from "zod";
import { presentAsset } from "../../assets/get-asset";
import { retryVideoProcessing } from "../../encode/retry";
import { assetToken, defineTool, organization } from "./tool";

export const retryVideoProcessingTool = defineTool({
  name: "retry_video_processing",
  title: "Restart a video's encode",
  description: [
    "Queue an HLS encode of a video whose encode failed, died or never started (`encode_status` failed or none and `stream_url` null).",
    "Call it once, then poll get_asset and watch `stream_url`; do NOT call it again to check progress: it cannot tell a running encode",
    "from a dead one, and every call queues another job. Errors: not_a_video, encode_already_finished (stream_url is set: nothing to do),",
    "streaming_not_available (the workspace has video streaming turned off).",
  ].join(" "),
  scope: "write",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  input: z.object({ organization, asset_token: assetToken }),
  async run(ctx, args) {
    const workspace = await ctx.workspace(args.organization);
    const asset = await retryVideoProcessing(ctx.deps, { workspace, token: args.asset_token });
    return { data: await presentAsset(ctx.deps.db, asset, await ctx.link()) };
  },
});
