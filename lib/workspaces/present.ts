import type { Plan, StorageKind, Workspace } from "../db/schema";
import { encodesOnUpload, revertWindowDays, versioningAllowed } from "../versions/plans";

/** A workspace as the web UI's admin pages show it: its settings plus what its plan allows. */
export type WorkspaceJson = {
  slug: string;
  name: string;
  plan: Plan;
  trial_of: Plan | null;
  storage_kind: StorageKind;
  streaming_enabled: boolean;
  /** Whether version writes (revert, new versions, comment edits) are allowed. */
  versioning: boolean;
  /** Days a version stays revertable; null = unlimited. */
  revert_window_days: number | null;
  encodes_on_upload: boolean;
  created_at: string;
  updated_at: string;
};

export function toWorkspaceJson(ws: Workspace): WorkspaceJson {
  return {
    slug: ws.slug,
    name: ws.name,
    plan: ws.plan,
    trial_of: ws.trialOf,
    storage_kind: ws.storageKind,
    streaming_enabled: ws.streamingEnabled,
    versioning: versioningAllowed(ws),
    revert_window_days: revertWindowDays(ws),
    encodes_on_upload: encodesOnUpload(ws),
    created_at: ws.createdAt.toISOString(),
    updated_at: ws.updatedAt.toISOString(),
  };
}
