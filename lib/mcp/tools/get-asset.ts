import { z } from "zod";
import { getAssetOrThrow, presentAsset } from "../../assets/get-asset";
import { startEncodeOnRead } from "../../encode/request-encode";
import { assetToken, defineTool, organization } from "./tool";

export const getAssetTool = defineTool({
  name: "get_asset",
  title: "Read an asset",
  description: [
    "Read one asset's current state (its head): title, description, text, media_type, size, md5, tags, custom fields, boards,",
    "display_url, stream_url, encode_status and head_version_number.",
    "Use it to confirm which asset you are about to change, to compare `md5` after create_asset_version,",
    "and to wait for a video: poll this tool and watch `stream_url` (null until an encode has finished); do not ask for another encode while waiting.",
    "The links in the answer are signed and expire after a few days; fetch them again rather than storing them.",
  ].join(" "),
  scope: "read",
  annotations: { readOnlyHint: true, openWorldHint: false },
  input: z.object({ organization, asset_token: assetToken }),
  async run(ctx, args) {
    const workspace = await ctx.workspace(args.organization);
    // Reading a video starts its encode on plans that encode on first read, as GET /v1/…/assets/:token does.
    const asset = await startEncodeOnRead(ctx.deps, workspace, await getAssetOrThrow(ctx.deps.db, workspace, args.asset_token));
    return { data: await presentAsset(ctx.deps.db, asset, await ctx.link()) };
  },
});
