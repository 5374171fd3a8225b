import type { Principal } from "../auth/principal";
import type { Deps } from "../deps";
import type { Workspace } from "../db/schema";
import { DomainError } from "../errors";
import type { StorageDriver } from "../storage/types";
import { editVersionComment } from "../versions/edit-comment";
import type { VersionWriteResult } from "../versions/revert-asset";
import { writeVersion } from "../versions/write-version";
import type { Changes } from "./changes";
import { emitAssetChanged, requestProcessing } from "./events";
import { updateAsset } from "./update-asset";

export type PatchAssetInput = {
  workspace: Workspace;
  principal: Principal;
  token: string;
  ifMatch?: number;
  body: {
    createVersion?: boolean;
    signedStorageId?: string;
    mediaType?: string;
    comment?: string;
    versionNumber?: number;
    title?: string;
    description?: string;
    text?: string;
    tags?: string[];
    fields?: Record<string, string>;
  };
};

/**
 * PATCH /v1/:slug/assets/:token, by the interface's state table:
 * - `signed_storage_id` → a version write with new bytes (`create_version: false` with it is refused);
 * - `version_number` without bytes → a comment edit of that stored version;
 * - `create_version: true` → a metadata checkpoint (or nothing, when nothing changes);
 * - otherwise a plain metadata update, no version.
 * Tags and custom fields are never versioned; they apply alongside any of these.
 */
export async function patchAsset(deps: Deps, storage: StorageDriver, input: PatchAssetInput): Promise<VersionWriteResult> {
  const b = input.body;
  const metadata = { title: b.title, description: b.description, text: b.text };
  let result: VersionWriteResult;
  if (b.signedStorageId !== undefined) {
    if (b.createVersion === false) {
      throw new DomainError("validation_failed", "signed_storage_id always writes a version: omit create_version or set it to true", { field: "create_version" });
    }
    result = await writeVersion(deps, storage, { ...input, signedStorageId: b.signedStorageId, mediaType: b.mediaType, comment: b.comment, metadata });
  } else if (b.versionNumber !== undefined) {
    result = await editVersionComment(deps, { workspace: input.workspace, token: input.token, versionNumber: b.versionNumber, comment: b.comment });
  } else if (b.createVersion === true) {
    result = await writeVersion(deps, storage, { ...input, comment: b.comment, metadata });
  } else {
    const { asset, changes } = await updateAsset(deps, { workspace: input.workspace, token: input.token, fields: { ...metadata, tags: b.tags, fields: b.fields } });
    result = { asset, headVersionNumber: asset.nextVersionNumber, changes, wrote: false };
  }
  // ---- unversioned fields alongside a version write or comment edit
  if ((b.signedStorageId !== undefined || b.versionNumber !== undefined || b.createVersion === true) && (b.tags || b.fields)) {
    const extra = await updateAsset(deps, { workspace: input.workspace, token: input.token, fields: { tags: b.tags, fields: b.fields } });
    result = { ...result, asset: extra.asset, changes: { ...result.changes, ...extra.changes } as Changes };
  }
  // ---- after commit: events and processing
  if (result.wrote && b.signedStorageId !== undefined) await requestProcessing(deps, result.asset);
  if (result.wrote || Object.keys(result.changes).length) await emitAssetChanged(deps, { asset: result.asset, kind: "asset_updated", changes: result.changes });
  return result;
}
