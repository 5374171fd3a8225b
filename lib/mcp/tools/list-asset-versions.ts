import { z } from "zod";
import { BOUNDS } from "../../http/bounds";
import { listVersions } from "../../versions/list-versions";
import { assetToken, defineTool, organization } from "./tool";

export const listAssetVersionsTool = defineTool({
  name: "list_asset_versions",
  title: "List an asset's versions",
  description: [
    "List the stored versions of one asset, newest first, with `head_version_number`: the number the NEXT version write will take.",
    "The newest stored version is head_version_number − 1; an asset that was never versioned has head_version_number 1 and no versions.",
    "Use it before revert_asset or edit_asset_version_comment to find the right `version_number` (never guess one),",
    "and after a write that timed out or failed, to see whether it landed before trying again.",
    "`revertable: false` means revert_asset will refuse that version (it is outside the plan's revert window).",
    "On Free and Pro plans, versions past the 7-day revert window come with `thumbnails: []` and `primary_storage_id: null`: that is by design, not missing data, so do not report it as an error.",
    "Paginated with `page` (from 1) and `per_page` (1–100, default 100); `pagy.total_count` is the number of stored versions.",
  ].join(" "),
  scope: "read",
  annotations: { readOnlyHint: true, openWorldHint: false },
  input: z.object({
    organization,
    asset_token: assetToken,
    page: z.number().int().min(1).max(BOUNDS.page).optional().describe("Page number, from 1 (default 1)."),
    per_page: z.number().int().min(1).max(BOUNDS.perPage).optional().describe("Versions per page, 1–100 (default 100)."),
  }),
  async run(ctx, args) {
    const workspace = await ctx.workspace(args.organization);
    const page = { page: args.page ?? 1, perPage: args.per_page ?? 100 };
    return listVersions(ctx.deps, { workspace, token: args.asset_token, page, surface: "mcp", link: await ctx.link() });
  },
});
