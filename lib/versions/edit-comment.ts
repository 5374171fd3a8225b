import { and, eq } from "drizzle-orm";
import { getAssetOrThrow } from "../assets/get-asset";
import { assetVersions, type Workspace } from "../db/schema";
import type { Deps } from "../deps";
import { DomainError } from "../errors";
import { assertBoardVersionWriteable, assertVersioningAllowed } from "./gates";
import { finishWithin, type VersionWriteResult, type WithinWrite } from "./revert-asset";

/**
 * Edits the note of stored version N (1..head−1); the asset's content is untouched. `""` clears
 * the note (it then reads null); an omitted comment changes nothing. The only mutable part of a
 * version row. `within` runs in the edit's transaction (the caller's other fields and events).
 */
export async function editVersionComment(
  deps: Deps,
  input: { workspace: Workspace; token: string; versionNumber: number; comment: string | undefined; within?: WithinWrite },
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
  const comment = input.comment === undefined ? undefined : input.comment === "" ? null : input.comment;
  const versionChanged = comment !== undefined && comment !== version.comment;
  if (!versionChanged && !input.within) return { ...base, versionChanged };
  return deps.db.transaction(async (tx) => {
    if (versionChanged) await tx.update(assetVersions).set({ comment }).where(eq(assetVersions.id, version.id));
    return { ...(await finishWithin(tx, input.within, base)), versionChanged };
  });
}
