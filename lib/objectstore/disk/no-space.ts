/**
 * The disk under the store is full (or the process is over its quota). Not a bug and not the
 * client's fault: each protocol answers 507 with a code that says so, after the body's temp file
 * has been removed, so nothing of the refused request is kept and a retry can succeed once space
 * is freed.
 */
export function isNoSpace(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === "ENOSPC" || code === "EDQUOT";
}

export const NO_SPACE_MESSAGE = "The store's disk is full: nothing of this request was kept. Retry once space has been freed.";
