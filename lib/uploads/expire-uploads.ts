import type { Deps } from "../deps";
import { log } from "../log/logger.mjs";
import { workspaceStorage } from "../storage/workspace-storage";
import { expireSession, listExpiredSessions } from "./session";

export type ExpireResult = { expired: number; objectsDeleted: number; failures: number };

/**
 * Sessions reserved but never completed within their 24 h: their bytes (whole object or
 * multipart parts) are deleted and the session is marked expired, so abandoned uploads do not
 * fill the store. Marked only after its storage is cleaned, so a failure is retried next sweep.
 */
export async function expireUploads(deps: Deps, limit = 500): Promise<ExpireResult> {
  const now = deps.clock();
  const stale = await listExpiredSessions(deps.db, now, limit);
  const result: ExpireResult = { expired: 0, objectsDeleted: 0, failures: 0 };
  for (const { session, storageKind } of stale) {
    const storage = workspaceStorage(deps, { storageKind });
    try {
      if (session.multipartUploadId) await storage.abortMultipart({ key: session.storageKey, uploadId: session.multipartUploadId });
      if (await storage.head(session.storageKey)) {
        await storage.delete(session.storageKey);
        result.objectsDeleted += 1;
      }
      // Only a still-pending session expires: one completed meanwhile keeps its bytes.
      if (await expireSession(deps.db, session.id)) result.expired += 1;
    } catch (err) {
      result.failures += 1;
      // Still pending: the next sweep tries it again.
      log().warn({ component: "uploads", upload_session_id: session.id, err }, "could not expire an upload session; tried again next sweep");
    }
  }
  return result;
}
