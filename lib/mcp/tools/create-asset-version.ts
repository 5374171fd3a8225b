import { z } from "zod";
import { getAssetOrThrow, presentAsset } from "../../assets/get-asset";
import { patchAsset } from "../../assets/patch-asset";
import { DomainError } from "../../errors";
import { BOUNDS } from "../../http/bounds";
import { SNIFF_BYTES, sniffMediaType } from "../../media/sniff";
import { ingestBytes } from "../../uploads/ingest-bytes";
import { assertBoardVersionWriteable, assertVersioningAllowed } from "../../versions/gates";
import { downloadFile, type DownloadedFile } from "../download";
import { assetToken, comment, defineTool, organization } from "./tool";

const MIME = /^[\w.+-]+\/[\w.+-]+$/;

/** The caller's type, else what the bytes are, else what the server said; an HTML page is refused unless asked for. */
function mediaTypeOf(file: DownloadedFile, declared: string | undefined): string {
  if (declared) return declared;
  const sniffed = sniffMediaType(file.bytes.subarray(0, SNIFF_BYTES));
  if (sniffed) return sniffed;
  if (file.contentType === "text/html") {
    // Usually a share, preview or login page rather than the file itself.
    throw new DomainError("validation_failed", "url: The URL answered with an HTML page, not a file: pass the direct link to the file (or media_type if an HTML file is really meant). Nothing was written.", {
      field: "url",
      reason: "html_page",
    });
  }
  return file.contentType ?? "application/octet-stream";
}

export const createAssetVersionTool = defineTool({
  name: "create_asset_version",
  title: "Replace an asset's file from a URL",
  description: [
    "Replace an asset's file with one downloaded from a public https:// URL. The current head is kept as a stored version (head_version_number + 1).",
    "The URL must be a direct link to the file itself, reachable without credentials: not a web page, share page or login page.",
    "http:// URLs and private or internal addresses are refused, also when reached through a redirect.",
    "Files of 5 MiB (5,242,880 bytes) or more are refused: they need the REST API's multipart upload.",
    "`comment` is recorded on the snapshot of the head being replaced.",
    "NOT idempotent: every successful call writes one more version. If a call times out or fails with `internal`, do not blind-retry:",
    "call list_asset_versions (or get_asset and compare `md5`) first to see whether the version landed.",
    "URL refusals (validation_failed with field `url` and a `reason`, payload_too_large) write nothing.",
    "The new file is processed in the background (thumbnails, video encode).",
  ].join(" "),
  scope: "write",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  input: z.object({
    organization,
    asset_token: assetToken,
    url: z.string().min(1).max(BOUNDS.url).describe("Direct https:// link to the new file (under 5 MiB)."),
    media_type: z.string().max(BOUNDS.mediaType).regex(MIME, "must be a MIME type such as image/png").optional().describe("MIME type of the file; default: recognised from its bytes, else the server's Content-Type."),
    comment: comment.optional().describe("Note recorded on the snapshot of the head being replaced."),
  }),
  async run(ctx, args) {
    const workspace = await ctx.workspace(args.organization);
    const storage = ctx.storage(workspace);
    // ---- gates before the download: a write that will be refused costs no transfer
    const current = await getAssetOrThrow(ctx.deps.db, workspace, args.asset_token);
    assertVersioningAllowed(workspace);
    await assertBoardVersionWriteable(ctx.deps.db, current.id);
    // ---- download, then the same path as upload_prepare + version-writing PATCH
    const file = await downloadFile(args.url, ctx.download);
    const { signedStorageId } = await ingestBytes(ctx.deps, storage, { workspace, bytes: file.bytes, mediaType: mediaTypeOf(file, args.media_type) });
    const body = { createVersion: true, signedStorageId, comment: args.comment };
    const result = await patchAsset(ctx.deps, storage, { workspace, principal: ctx.principal, token: args.asset_token, body });
    return { data: await presentAsset(ctx.deps.db, result.asset, await ctx.link()), head_version_number: result.headVersionNumber };
  },
});
