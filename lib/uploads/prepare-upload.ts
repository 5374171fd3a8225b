import crypto from "node:crypto";
import { findBoard } from "../boards";
import type { Deps } from "../deps";
import { uploadSessions, type Workspace } from "../db/schema";
import { env } from "../env";
import { DomainError, notFound } from "../errors";
import type { PreparedUploadJson } from "../openapi/schemas/uploads";
import { getSecret } from "../secrets";
import type { StorageDriver } from "../storage/types";
import { SIGNED_ID_TTL_MS, signStorageId } from "./signed-storage-id";

export const MULTIPART_THRESHOLD = 5 * 1024 * 1024;

export type PrepareInput = { title?: string; mediaType: string; size: number; collectionToken?: string; md5?: string };

/** The wire shape is the response schema's (lib/openapi/schemas), so the reference cannot drift from it. */
export type { PreparedUploadJson };

/** Storage key of an upload's bytes: per workspace, unguessable, never reused. */
export const originalKey = (workspaceId: number, handle: string) => `ws/${workspaceId}/originals/${handle}`;

/**
 * Reserves an upload: records a pending session and presigns the storage URLs the client sends
 * the bytes to. Nothing becomes an asset until upload_complete (or a version-writing PATCH).
 */
export async function prepareUpload(deps: Deps, storage: StorageDriver, input: { workspace: Workspace; asset: PrepareInput }): Promise<PreparedUploadJson> {
  const { workspace, asset } = input;
  const max = env().EASEL_MAX_UPLOAD_BYTES;
  if (asset.size > max) throw new DomainError("payload_too_large", `size ${asset.size} is above the limit of ${max} bytes`, { field: "size", max_size: max });
  if (asset.collectionToken && !(await findBoard(deps.db, workspace.id, asset.collectionToken))) throw notFound("board_not_found", "Board");

  const now = deps.clock();
  const expiresAt = new Date(now.getTime() + SIGNED_ID_TTL_MS);
  const handle = crypto.randomBytes(16).toString("base64url");
  const key = originalKey(workspace.id, handle);
  const prepared = await storage.prepareUpload({ key, size: asset.size, contentType: asset.mediaType, expiresAt });

  await deps.db.insert(uploadSessions).values({
    workspaceId: workspace.id,
    handle,
    storageKey: key,
    storageKind: workspace.storageKind,
    status: "pending",
    title: asset.title ?? null,
    mediaType: asset.mediaType,
    size: asset.size,
    md5: asset.md5 ?? null,
    collectionToken: asset.collectionToken ?? null,
    multipartUploadId: prepared.multipartUploadId,
    createdAt: now,
    expiresAt,
  });

  const secret = await getSecret(deps.db, "signed_storage_id_key");
  return {
    storage_provider: workspace.storageKind,
    signed_storage_id: signStorageId(secret, { workspaceId: workspace.id, handle, expiresAt }),
    upload_url: prepared.uploadUrl,
    multipart_upload_id: prepared.multipartUploadId,
    part_size: prepared.partSize,
    part_urls: prepared.partUrls,
    expires_at: expiresAt.toISOString(),
  };
}
