import { ApiClientError } from "./api";

/** What each API error code means to a person using the UI. Branches on `extensions.code` only. */
const PLAIN: Record<string, (ext: Record<string, unknown>) => string> = {
  unauthenticated: () => "Your session has ended. Sign in again.",
  insufficient_scope: () => "You are not allowed to do that.",
  api_token_required: () => "Only an API token can do this, not a signed-in browser session.",
  board_scoped_token: () => "A board access token cannot do this.",
  versioning_not_enabled: () => "This workspace's plan does not allow new versions, reverts or comment edits.",
  version_write_forbidden: () => "The asset's boards are archived, read-only or trashed (or it is on no board), so its versions cannot change.",
  revert_window_exceeded: (ext) =>
    `This version is older than the plan's revert window${typeof ext.revert_window_days === "number" ? ` of ${ext.revert_window_days} days` : ""}, so it can no longer be restored.`,
  version_not_found: () => "That version does not exist (any more).",
  invalid_version_number: () => "That is not a valid version number.",
  version_blob_missing: () => "The stored file of that version is gone from storage.",
  workspace_not_found: () => "This workspace does not exist.",
  board_not_found: () => "This board does not exist.",
  asset_not_found: () => "This asset does not exist (any more).",
  trigger_not_found: () => "This trigger does not exist (any more).",
  delivery_not_found: () => "This delivery does not exist.",
  storage_object_not_found: () => "The uploaded file did not arrive in storage. Try the upload again.",
  invalid_signed_storage_id: () => "The upload expired or was already used. Start it again.",
  checksum_mismatch: () => "The file changed on its way to storage. Try the upload again.",
  size_mismatch: () => "The file that arrived in storage is not the size announced for it. Try the upload again.",
  validation_failed: (ext) => `Please check ${typeof ext.field === "string" ? `the ${ext.field.split(".").at(-1)} field` : "the form"}.`,
  payload_too_large: () => "The file is larger than this server accepts.",
  rate_limited: (ext) => `Too many requests. Try again${typeof ext.retry_after === "number" ? ` in ${ext.retry_after} s` : " shortly"}.`,
  not_a_video: () => "This asset is not a video.",
  encode_already_finished: () => "The video is already encoded.",
  streaming_not_available: () => "Video streaming is turned off for this workspace.",
  invalid_hook_url: () => "That URL cannot receive webhooks (it must be http(s) and publicly reachable).",
  webhook_permission_required: () => "Managing webhooks needs the webhooks permission.",
  precondition_failed: () => "Someone changed this asset meanwhile. Reload and try again.",
  route_not_found: () => "This server does not offer that feature yet.",
  storage_unavailable: () => "Storage is not reachable right now. Try again shortly.",
  network_error: () => "The server could not be reached. Check your connection.",
  internal: () => "Something went wrong on the server.",
};

/** A sentence for an error, with its code kept for support ("… (revert_window_exceeded)"). */
export function describeError(err: unknown): string {
  if (err instanceof ApiClientError) {
    const plain = PLAIN[err.code]?.(err.extensions);
    return plain ? `${plain} (${err.code})` : `${err.message} (${err.code})`;
  }
  return err instanceof Error ? err.message : "Something went wrong.";
}

export const isCode = (err: unknown, code: string) => err instanceof ApiClientError && err.code === code;
