import type { ErrorCode } from "../errors";

/**
 * What each error code means, in the words a client developer needs. The status of each code is
 * in lib/errors.ts (ERROR_STATUS); this table is its documentation twin, and `satisfies` keeps the
 * two in step: a new code does not compile until it is described here.
 */
export const ERROR_MEANINGS = {
  versioning_not_enabled: "The workspace's plan does not allow version writes (Creative).",
  version_write_forbidden: "The asset is on no active board (trashed, archived, read-only, or on no board). Not a token problem.",
  revert_window_exceeded: "The target version is older than the plan's revert window; `extensions.revert_window_days` is the window's length.",
  board_scoped_token: "A board access token was used on an endpoint or write it may not use.",
  version_not_found: "No stored version with this `version_number` (at or above the head, or never stored).",
  invalid_version_number: "`version_number` is not a positive integer.",
  version_blob_missing: "The stored file of the version is no longer in storage.",
  unauthenticated: "Missing, malformed, unknown, revoked or expired token.",
  insufficient_scope: "The token, or the signed-in person's role, lacks the scope the operation needs; `extensions.required_scope` names it.",
  api_token_required: "The caller is not an API token (for example a signed-in browser session) where one is required.",
  webhook_permission_required: "The API token lacks the webhooks permission.",
  workspace_not_found: "No such workspace, or it belongs to another tenant (never 403, so slugs leak nothing).",
  board_not_found: "No such board in this workspace, or outside the board access token's subtree.",
  asset_not_found: "No such asset in this workspace.",
  trigger_not_found: "No such trigger, or another workspace's.",
  delivery_not_found: "No such delivery of this trigger.",
  storage_object_not_found: "The uploaded bytes (or a multipart part, `extensions.missing_parts`) are not in storage.",
  invalid_signed_storage_id: "The `signed_storage_id` is tampered, expired (24 h), another workspace's, or already used elsewhere.",
  checksum_mismatch: "The uploaded bytes do not match the `md5` given at upload_prepare (`extensions.expected_md5`, `extensions.actual_md5`).",
  size_mismatch: "The uploaded object's size differs from the `size` given at upload_prepare (`extensions.expected_size`, `extensions.actual_size`). Nothing is made; prepare a new upload with the right size and send the bytes there.",
  validation_failed: "The body, query or a header fails its schema; `extensions.field` names the first bad field.",
  invalid_json: "The body is not JSON, or not a JSON object.",
  method_not_allowed: "The path exists but not with this method; the `Allow` header lists the methods.",
  route_not_found: "No route under /v1 matches the path.",
  not_a_video: "The asset is not a video.",
  encode_already_finished: "The video's encode has finished; its `stream_url` is set.",
  streaming_not_available: "Video streaming is turned off for this workspace.",
  invalid_hook_url: "`hook_url` is not http(s), or resolves to a private or loopback address (`extensions.reason`).",
  payload_too_large: "The declared or uploaded size is above the server's limit (`extensions.max_size`).",
  rate_limited: "Too many requests in this one-minute window; retry after `Retry-After` seconds.",
  idempotency_key_reused: "This `Idempotency-Key` was already used with a different method, path or body.",
  idempotency_request_in_progress: "The first request with this `Idempotency-Key` is still being answered.",
  storage_unavailable: "The object store did not answer; nothing was written, retry later.",
  database_unavailable: "The database could not be reached (restarting, or the connection was lost); retry after `Retry-After` seconds.",
  precondition_failed: "`If-Match` names a head that is no longer current; `extensions.head_version_number` is the current one.",
  internal: "An unexpected server error (never with details).",
} as const satisfies Record<ErrorCode, string>;
