import crypto from "node:crypto";
import type { Workspace } from "../db/schema";
import type { Deps } from "../deps";
import { env } from "../env";
import { DomainError } from "../errors";
import type { StorageDriver } from "../storage/types";
import { newSessionSlot, openSession } from "./session";

/**
 * Bytes the server obtained itself (an assistant's ingest URL), turned into what a client's
 * upload would have produced: an object under a fresh key and a pending upload session, named by
 * a signed_storage_id. The caller hands that id to the ordinary version write (patchAsset), so
 * there is one path from "bytes in storage" to "new version", whoever put the bytes there.
 *
 * The md5 is recorded with the session, so the version write checks that storage holds exactly
 * the bytes given here.
 */
export async function ingestBytes(
  deps: Deps,
  storage: StorageDriver,
  input: { workspace: Workspace; bytes: Buffer; mediaType: string; title?: string },
): Promise<{ signedStorageId: string; key: string; md5: string }> {
  const { workspace, bytes } = input;
  const max = env().EASEL_MAX_UPLOAD_BYTES;
  if (bytes.length === 0) throw new DomainError("validation_failed", "The file is empty", { field: "size" });
  if (bytes.length > max) throw new DomainError("payload_too_large", `size ${bytes.length} is above the limit of ${max} bytes`, { field: "size", max_size: max });

  // ---- the bytes are stored before the session that names them is opened
  const slot = newSessionSlot(workspace.id, deps.clock());
  const md5 = crypto.createHash("md5").update(bytes).digest("hex");
  await storage.write(slot.storageKey, bytes, input.mediaType);
  const signedStorageId = await openSession(deps, workspace, slot, {
    title: input.title ?? null,
    mediaType: input.mediaType,
    size: bytes.length,
    md5,
    collectionToken: null,
    multipartUploadId: null,
  });
  return { signedStorageId, key: slot.storageKey, md5 };
}
