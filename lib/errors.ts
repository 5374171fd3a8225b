/**
 * The error vocabulary of Easel. Domain code throws DomainError with a code; each transport (HTTP,
 * MCP, jobs) renders it. The HTTP status of every code is in lib/http/envelope.ts.
 */
export const ERROR_STATUS = {
  // interface.md
  versioning_not_enabled: 403,
  version_write_forbidden: 403,
  revert_window_exceeded: 403,
  board_scoped_token: 403,
  version_not_found: 404,
  invalid_version_number: 422,
  version_blob_missing: 422,
  // contract.md §1
  unauthenticated: 401,
  insufficient_scope: 403,
  api_token_required: 403,
  webhook_permission_required: 403,
  workspace_not_found: 404,
  board_not_found: 404,
  asset_not_found: 404,
  trigger_not_found: 404,
  delivery_not_found: 404,
  storage_object_not_found: 404,
  invalid_signed_storage_id: 422,
  checksum_mismatch: 422,
  validation_failed: 422,
  invalid_json: 400,
  method_not_allowed: 405,
  route_not_found: 404,
  not_a_video: 422,
  encode_already_finished: 422,
  streaming_not_available: 422,
  invalid_hook_url: 422,
  payload_too_large: 413,
  rate_limited: 429,
  // contract.md §12
  size_mismatch: 422,
  // beyond the contract (docs/api.md)
  idempotency_key_reused: 422,
  idempotency_request_in_progress: 409,
  storage_unavailable: 503,
  database_unavailable: 503,
  precondition_failed: 412,
  internal: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "DomainError";
  }
}

export const notFound = (code: Extract<ErrorCode, `${string}_not_found`>, what: string) =>
  new DomainError(code, `${what} not found`);
