import { and, eq } from "drizzle-orm";
import { getAssetOrThrow } from "../assets/get-asset";
import type { Deps } from "../deps";
import { assetVersions, type Workspace } from "../db/schema";
import { DomainError } from "../errors";
import { assertBoardVersionWriteable, assertVersioningAllowed } from "./gates";
import type { VersionWriteResult } from "./revert-asset";

/**
 * Edits the note of stored version N (1..head−1); the asset's content is untouched. `""` clears
 * the note (it then reads null); an omitted comment changes nothing. The only mutable part of a
 * version row.
 */
export async function editVersionComment(
  deps: Deps,
  input: { workspace: Workspace; token: string; versionNumber: number; comment: string | undefined },
): Promise<VersionWriteResult & { versionChanged: boolean }> {
  const asset = await getAssetOrThrow(deps.db, input.workspace, input.token);
  assertVersioningAllowed(input.workspace);
  await assertBoardVersionWriteable(deps.db, asset.id);
  const n = input.versionNumber;
  const notFound = new DomainError("version_not_found", `No stored version ${n}`);
  if (n >= asset.nextVersionNumber) throw notFound;
  const [version] = await deps.db
    .select({ id: assetVersions.id, comment: assetVersions.comment })
    .from(assetVersions)
    .where(and(eq(assetVersions.assetId, asset.id), eq(assetVersions.versionNumber, n)));
  if (!version) throw notFound;
  const base = { asset, headVersionNumber: asset.nextVersionNumber, changes: {}, wrote: false };
  if (input.comment === undefined) return { ...base, versionChanged: false };
  const comment = input.comment === "" ? null : input.comment;
  if (comment === version.comment) return { ...base, versionChanged: false };
  await deps.db.update(assetVersions).set({ comment }).where(eq(assetVersions.id, version.id));
  return { ...base, versionChanged: true };
}
