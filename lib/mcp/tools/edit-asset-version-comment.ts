import { z } from "zod";
import { presentAsset } from "../../assets/get-asset";
import { patchAsset } from "../../assets/patch-asset";
import { assetToken, comment, defineTool, organization, VERSION_FIELD_CODES, versionNumber } from "./tool";

export const editAssetVersionCommentTool = defineTool({
  name: "edit_asset_version_comment",
  title: "Edit the note on a stored version",
  description: [
    "Replace the note (`comment`) on one stored version, 1 … head_version_number − 1. The asset's content and its version numbers do not change.",
    "An empty string clears the note. The previous note is overwritten, not kept, so read it with list_asset_versions first if it matters.",
    "The live head is not a stored version: head_version_number itself answers version_not_found.",
    "To annotate the head, pass `comment` to revert_asset or create_asset_version instead; it lands on the snapshot of the head they replace.",
  ].join(" "),
  scope: "write",
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  input: z.object({
    organization,
    asset_token: assetToken,
    version_number: versionNumber,
    comment: comment.describe("The new note; an empty string clears it."),
  }),
  fieldCodes: VERSION_FIELD_CODES,
  async run(ctx, args) {
    const workspace = await ctx.workspace(args.organization);
    // Through the PATCH dispatcher, so a comment edit behaves exactly as it does over REST.
    const body = { versionNumber: args.version_number, comment: args.comment };
    const result = await patchAsset(ctx.deps, ctx.storage(workspace), { workspace, principal: ctx.principal, token: args.asset_token, body });
    return {
      data: await presentAsset(ctx.deps.db, result.asset, await ctx.link()),
      head_version_number: result.headVersionNumber,
      version: { version_number: args.version_number, comment: args.comment === "" ? null : args.comment },
    };
  },
});
