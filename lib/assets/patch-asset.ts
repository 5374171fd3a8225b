import type { Principal } from "../auth/principal";
import type { Tx } from "../db";
import type { Workspace } from "../db/schema";
import type { Deps } from "../deps";
import { DomainError } from "../errors";
import { eventsOf, type StageEvent } from "../jobs/outbox";
import type { StorageDriver } from "../storage/types";
import { editVersionComment } from "../versions/edit-comment";
import type { VersionWriteResult, WithinWrite } from "../versions/revert-asset";
import { writeVersion } from "../versions/write-version";
import { hasChanges, type Changes } from "./changes";
import { stageAssetChanged, stageProcessing } from "./events";
import { applyAssetFields, updateAsset } from "./update-asset";

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
  const unversioned = b.tags || b.fields ? { tags: b.tags, fields: b.fields } : null;
  const events = eventsOf(deps);

  /**
   * Last inside the write's transaction: tags and custom fields (never versioned) alongside a
   * version write or comment edit, then the events of everything the request changed, so the
   * request's writes and their events commit together (lib/jobs/outbox).
   */
  const within =
    (withFields: boolean): WithinWrite =>
    async (tx: Tx, written: VersionWriteResult) => {
      let result = written;
      if (withFields && unversioned) {
        const extra = await applyAssetFields(tx, result.asset.id, unversioned, deps.clock());
        result = { ...result, asset: extra.asset, changes: { ...result.changes, ...extra.changes } as Changes };
      }
      const stage: StageEvent = (event, data) => events.stage(tx, event, data);
      if (result.wrote && b.signedStorageId !== undefined) await stageProcessing(stage, result.asset);
      if (result.wrote || hasChanges(result.changes)) await stageAssetChanged(stage, deps.clock, { asset: result.asset, kind: "asset_updated", changes: result.changes });
      return result;
    };

  let result: VersionWriteResult;
  if (b.signedStorageId !== undefined) {
    if (b.createVersion === false) {
      throw new DomainError("validation_failed", "signed_storage_id always writes a version: omit create_version or set it to true", { field: "create_version" });
    }
    result = await writeVersion(deps, storage, { ...input, signedStorageId: b.signedStorageId, mediaType: b.mediaType, comment: b.comment, metadata, within: within(true) });
  } else if (b.versionNumber !== undefined) {
    // Without tags or fields a comment edit changes no asset: no event, no transaction beyond its own.
    const edit = { workspace: input.workspace, token: input.token, versionNumber: b.versionNumber, comment: b.comment };
    result = await editVersionComment(deps, { ...edit, within: unversioned ? within(true) : undefined });
  } else if (b.createVersion === true) {
    result = await writeVersion(deps, storage, { ...input, comment: b.comment, metadata, within: within(true) });
  } else {
    const fields = { ...metadata, tags: b.tags, fields: b.fields };
    const written = await updateAsset(deps, {
      workspace: input.workspace,
      token: input.token,
      fields,
      within: async (tx, r) => void (await within(false)(tx, { ...r, headVersionNumber: r.asset.nextVersionNumber, wrote: false })),
    });
    result = { asset: written.asset, headVersionNumber: written.asset.nextVersionNumber, changes: written.changes, wrote: false };
  }
  // ---- after commit: hand the stored events on
  await events.handOff();
  return result;
}
