import { and, desc, eq, gt, lte, sql } from "drizzle-orm";
import { getAssetOrThrow } from "../assets/get-asset";
import { prepared } from "../db/prepared";
import { assetVersions, type Workspace } from "../db/schema";
import type { Deps } from "../deps";
import { offsetOf, pagy, type Page } from "../http/pagination";
import type { MediaLinker } from "../media/links";
import type { VersionListJson } from "../openapi/schemas/versions";
import { toVersionJson, type Surface } from "./present";

/**
 * Stored versions newest first, with `head_version_number` (the number the next write takes; the
 * newest stored version is always head − 1). Versions are numbered 1..head−1 without gaps (never
 * pruned; a number is taken only inside the committing transaction), so page p is a range of
 * numbers read through the (asset, number) index: the last page of 100,000 versions costs what
 * the first does, and the total needs no count.
 */
export async function listVersions(
  deps: Deps,
  input: { workspace: Workspace; token: string; page: Page; surface: Surface; link: MediaLinker },
): Promise<VersionListJson> {
  const asset = await getAssetOrThrow(deps.db, input.workspace, input.token);
  const total = asset.nextVersionNumber - 1;
  const newest = total - offsetOf(input.page);
  const page = prepared(deps.db, "versions_by_number_range", (d) =>
    d
      .select()
      .from(assetVersions)
      .where(and(eq(assetVersions.assetId, sql.placeholder("assetId")), lte(assetVersions.versionNumber, sql.placeholder("newest")), gt(assetVersions.versionNumber, sql.placeholder("oldestExcluded"))))
      .orderBy(desc(assetVersions.versionNumber))
      .prepare("versions_by_number_range"),
  );
  const rows = await page.execute({ assetId: asset.id, newest, oldestExcluded: newest - input.page.perPage });
  const now = deps.clock();
  const ctx = { surface: input.surface, workspace: input.workspace, now, assetToken: asset.token, link: input.link };
  return {
    data: rows.map((v) => toVersionJson(v, ctx)),
    head_version_number: asset.nextVersionNumber,
    pagy: pagy(input.page, rows.length, total),
  };
}
