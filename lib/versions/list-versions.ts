import { count, desc, eq } from "drizzle-orm";
import { getAssetOrThrow } from "../assets/get-asset";
import type { Deps } from "../deps";
import { assetVersions, type Workspace } from "../db/schema";
import { offsetOf, pagy, type Page } from "../http/pagination";
import type { MediaLinker } from "../media/links";
import { toVersionJson, type Surface } from "./present";

/**
 * Stored versions newest first, with `head_version_number` (the number the next write takes; the
 * newest stored version is always head − 1). Pages by the (asset, number) index, so the cost does
 * not grow with history length.
 */
export async function listVersions(deps: Deps, input: { workspace: Workspace; token: string; page: Page; surface: Surface; link: MediaLinker }) {
  const asset = await getAssetOrThrow(deps.db, input.workspace, input.token);
  const [rows, [{ total }]] = await Promise.all([
    deps.db
      .select()
      .from(assetVersions)
      .where(eq(assetVersions.assetId, asset.id))
      .orderBy(desc(assetVersions.versionNumber))
      .limit(input.page.perPage)
      .offset(offsetOf(input.page)),
    deps.db.select({ total: count() }).from(assetVersions).where(eq(assetVersions.assetId, asset.id)),
  ]);
  const now = deps.clock();
  const ctx = { surface: input.surface, workspace: input.workspace, now, assetToken: asset.token, link: input.link };
  return {
    data: rows.map((v) => toVersionJson(v, ctx)),
    head_version_number: asset.nextVersionNumber,
    pagy: pagy(input.page, rows.length, total),
  };
}
