import { z } from "zod";
import { presentAsset } from "../../assets/get-asset";
import { revertAsset } from "../../versions/revert-asset";
import { assetToken, comment, defineTool, organization, VERSION_FIELD_CODES, versionNumber } from "./tool";

export const revertAssetTool = defineTool({
  name: "revert_asset",
  title: "Revert an asset to a stored version",
  description: [
    "Make a stored version the asset's live content again. The current head is first saved as a new stored version (carrying `comment`),",
    "so nothing is lost, and head_version_number moves forward by one (old head + 1), never back.",
    "Call list_asset_versions first to pick `version_number` and check that it is `revertable`.",
    "Repeating the same call after a success or a timeout is safe: it changes nothing and creates no duplicate.",
    "Do not use it to undo a comment edit (use edit_asset_version_comment) or to 'refresh' an asset.",
    "Errors: revert_window_exceeded (older than the plan's revert window: tell the user, do not retry), version_not_found,",
    "versioning_not_enabled (the plan has no version writes), version_write_forbidden (the asset is on no active board), version_blob_missing.",
  ].join(" "),
  scope: "write",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.object({
    organization,
    asset_token: assetToken,
    version_number: versionNumber,
    comment: comment.optional().describe("Note recorded on the snapshot of the head being replaced (what it was, why it is replaced), not on the restored content."),
  }),
  fieldCodes: VERSION_FIELD_CODES,
  async run(ctx, args) {
    const workspace = await ctx.workspace(args.organization);
    const input = { workspace, principal: ctx.principal, token: args.asset_token, versionNumber: args.version_number, comment: args.comment };
    const result = await revertAsset(ctx.deps, ctx.storage(workspace), input);
    return { data: await presentAsset(ctx.deps.db, result.asset, await ctx.link()), head_version_number: result.headVersionNumber };
  },
});
