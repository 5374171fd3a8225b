import { env } from "../../env";
import { sampleOpenFiles, type OpenFilesEstimate } from "./open-files";
import { createUploadSlots, type Admission, type UploadSlots } from "./upload-slots";

/** Bodies the store reads at once per upload URL (contract §13): enough for a client's retries, not a flood. */
export const BODIES_PER_UPLOAD_URL = 4;

/** Seconds a refused uploader is asked to wait: slots free as soon as a body ends. */
export const BUSY_RETRY_AFTER_S = 1;

export type BodyAdmission = (urlKey: string, workspace: string | null) => Admission;

let shared: { slots: UploadSlots; openFiles: OpenFilesEstimate } | null = null;

/**
 * The process's one admission of upload bodies, made on first use with
 * EASEL_MAX_UPLOADS_PER_WORKSPACE and the open-file estimate. Every admitted body counts one
 * file about to be opened (its temporary file) until the next reading of /proc/self/fd.
 */
export const admitStoreBody: BodyAdmission = (urlKey, workspace) => {
  if (!shared) {
    const openFiles = sampleOpenFiles();
    const slots = createUploadSlots({ perUrl: BODIES_PER_UPLOAD_URL, perWorkspace: env().EASEL_MAX_UPLOADS_PER_WORKSPACE, openFilesTight: () => openFiles.tight() });
    shared = { slots, openFiles };
  }
  const admission = shared.slots.admit(urlKey, workspace);
  if (admission.admitted) shared.openFiles.opened();
  return admission;
};

/** Bodies the store is reading now for one upload URL key or one workspace (0 before the first upload). */
export function storeBodiesInUse(kind: "url" | "workspace", key: string): number {
  return shared?.slots.inUse(kind, key) ?? 0;
}
