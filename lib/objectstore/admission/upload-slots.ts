/**
 * How many upload bodies the embedded store reads at once, and which ones it refuses before
 * reading a byte. Every held body costs a socket and a temporary file, so a client that opens
 * thousands of slow bodies would otherwise take every file descriptor of the process (contract
 * §13, docs/reliability.md "Connection and open-file bounds").
 *
 * A body is admitted when its upload URL, its workspace and the process's open files all have
 * room; the slot it takes is given back once, whichever comes first of the operation finishing
 * and the request closing.
 */

/** Why a body was refused; each names the bound that was full. */
export type RefusalReason = "upload_url" | "workspace" | "open_files";

export type UploadSlot = { release(): void };

export type Admission = { admitted: true; slot: UploadSlot } | { admitted: false; reason: RefusalReason };

export type UploadSlotLimits = {
  /** Bodies read at once per upload URL (a part's URL, a single PUT URL, a resumable session). */
  perUrl: number;
  /** Bodies read at once per workspace. */
  perWorkspace: number;
  /** Whether the process's open files are past the share at which new bodies are refused. */
  openFilesTight: () => boolean;
};

export type UploadSlots = {
  admit(urlKey: string, workspace: string | null): Admission;
  /** Bodies being read now for one URL or one workspace (for tests and logs). */
  inUse(kind: "url" | "workspace", key: string): number;
};

export function createUploadSlots(limits: UploadSlotLimits): UploadSlots {
  const byUrl = new Map<string, number>();
  const byWorkspace = new Map<string, number>();
  const take = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  const give = (counts: Map<string, number>, key: string) => {
    const left = (counts.get(key) ?? 0) - 1;
    // An empty entry is deleted so the maps hold only the URLs being uploaded to now.
    if (left <= 0) counts.delete(key);
    else counts.set(key, left);
  };

  return {
    admit(urlKey, workspace) {
      if ((byUrl.get(urlKey) ?? 0) >= limits.perUrl) return { admitted: false, reason: "upload_url" };
      if (workspace !== null && (byWorkspace.get(workspace) ?? 0) >= limits.perWorkspace) return { admitted: false, reason: "workspace" };
      if (limits.openFilesTight()) return { admitted: false, reason: "open_files" };
      take(byUrl, urlKey);
      if (workspace !== null) take(byWorkspace, workspace);
      let held = true;
      return {
        admitted: true,
        slot: {
          release() {
            if (!held) return;
            held = false;
            give(byUrl, urlKey);
            if (workspace !== null) give(byWorkspace, workspace);
          },
        },
      };
    },
    inUse(kind, key) {
      return (kind === "url" ? byUrl : byWorkspace).get(key) ?? 0;
    },
  };
}

/**
 * The workspace a stored key belongs to: Easel writes every workspace's objects under
 * `ws/<id>/` (lib/uploads/session.ts). Keys outside that layout (an operator's own S3 client
 * writing with the store's key pair) belong to none and are bounded per URL and by open files only.
 */
export function workspaceOfKey(key: string): string | null {
  const match = /^ws\/(\d+)\//.exec(key);
  return match ? match[1] : null;
}
