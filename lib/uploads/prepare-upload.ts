import { findBoard } from "../boards";
import type { Workspace } from "../db/schema";
import type { Deps } from "../deps";
import { env } from "../env";
import { DomainError, notFound } from "../errors";
import type { PreparedUploadJson } from "../openapi/schemas/uploads";
import type { StorageDriver } from "../storage/types";
import { newSessionSlot, openSession } from "./session";

export type PrepareInput = { title?: string; mediaType: string; size: number; collectionToken?: string; md5?: string };

/** The wire shape is the response schema's (lib/openapi/schemas), so the reference cannot drift from it. */
export type { PreparedUploadJson };

/**
 * Reserves an upload: records a pending session and presigns the storage URLs the client sends
 * the bytes to. Nothing becomes an asset until upload_complete (or a version-writing PATCH).
 */
export async function prepareUpload(deps: Deps, storage: StorageDriver, input: { workspace: Workspace; asset: PrepareInput }): Promise<PreparedUploadJson> {
  const { workspace, asset } = input;
  const max = env().EASEL_MAX_UPLOAD_BYTES;
  if (asset.size > max) throw new DomainError("payload_too_large", `size ${asset.size} is above the limit of ${max} bytes`, { field: "size", max_size: max });
  if (asset.collectionToken && !(await findBoard(deps.db, workspace.id, asset.collectionToken))) throw notFound("board_not_found", "Board");

  // ---- storage first: a session is recorded only for an upload storage accepted
  const slot = newSessionSlot(workspace.id, deps.clock());
  const prepared = await storage.prepareUpload({ key: slot.storageKey, size: asset.size, contentType: asset.mediaType, expiresAt: slot.expiresAt });
  const signedStorageId = await openSession(deps, workspace, slot, {
    title: asset.title ?? null,
    mediaType: asset.mediaType,
    size: asset.size,
    md5: asset.md5 ?? null,
    collectionToken: asset.collectionToken ?? null,
    multipartUploadId: prepared.multipartUploadId,
  });

  return {
    storage_provider: workspace.storageKind,
    signed_storage_id: signedStorageId,
    upload_url: prepared.uploadUrl,
    multipart_upload_id: prepared.multipartUploadId,
    part_size: prepared.partSize,
    part_urls: prepared.partUrls,
    list_parts_url: prepared.listPartsUrl,
    expires_at: slot.expiresAt.toISOString(),
  };
}
