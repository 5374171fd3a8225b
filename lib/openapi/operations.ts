import { z } from "zod";
import type { Scope } from "../db/schema/api-tokens";
import { ERROR_STATUS, type ErrorCode } from "../errors";
import { BoardAccessTokenOne, CreateAccessTokenBody } from "./schemas/access-tokens";
import { AiSearchPage, AssetListQuery, AssetOne, AssetPage, AssetWriteJson, PatchAssetBody, RevertBody, SearchPage, SearchQuery } from "./schemas/assets";
import { BoardAssetsQuery, BoardListQuery, BoardOne, BoardPage, CreateBoardBody, UpdateBoardBody } from "./schemas/boards";
import { errorEnvelope } from "./schemas/common";
import { DownloadLinkOne, DownloadLinkQuery } from "./schemas/download-link";
import { CompleteBody, PreparedUploadOne, PrepareBody } from "./schemas/uploads";
import { VersionListJson, VersionsQuery } from "./schemas/versions";
import { CreatedTriggerJson, CreateTriggerBody, DeliveryPage, ListDeliveriesQuery, ListTriggersQuery, ResendJson, TriggerJson, TriggerListJson } from "./schemas/webhooks";

/**
 * Every /v1 operation: what the route files do, as data the OpenAPI document is built from and the
 * tests check against the routes (tests/openapi). `auth` mirrors the route's `withApi` options;
 * `errors` lists the codes the operation's own domain code can answer, and the codes every
 * operation of its kind shares (auth, validation, idempotency) are added by `errorCodesOf`.
 */

export type Tag = "Boards" | "Assets" | "Uploads" | "Versions" | "Video" | "Search" | "Board access tokens" | "Webhooks" | "Reference";

export type Auth =
  | { kind: "none" }
  | {
      kind: "token";
      scope: Scope;
      /** One of the seven read routes a board access token may call. */
      boardToken?: boolean;
      /** Only an API token (not a board access token, not a browser session). */
      apiTokenOnly?: boolean;
      /** The API token needs the webhooks permission. */
      webhooks?: boolean;
    };

export type Operation = {
  operationId: string;
  method: "get" | "post" | "patch" | "delete";
  /** OpenAPI path template; `{name}` segments are the route's dynamic segments. */
  path: string;
  tag: Tag;
  summary: string;
  description?: string;
  auth: Auth;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Takes an optional `If-Match: <head_version_number>` header. */
  ifMatch?: boolean;
  success: { status: 200 | 201 | 202 | 204; description: string; schema: z.ZodType | null };
  errors: ErrorCode[];
};

const read = (extra: Omit<Extract<Auth, { kind: "token" }>, "kind" | "scope"> = {}): Auth => ({ kind: "token", scope: "read", ...extra });
const write = (extra: Omit<Extract<Auth, { kind: "token" }>, "kind" | "scope"> = {}): Auth => ({ kind: "token", scope: "write", ...extra });

const versionGates: ErrorCode[] = ["asset_not_found", "versioning_not_enabled", "version_write_forbidden", "precondition_failed"];

export const OPERATIONS: Operation[] = [
  // ---- boards
  {
    operationId: "listBoards",
    method: "get",
    path: "/v1/{slug}/boards",
    tag: "Boards",
    summary: "List top-level boards",
    description: "Top-level boards, oldest first. A board access token sees only its own board.",
    auth: read({ boardToken: true }),
    query: BoardListQuery,
    success: { status: 200, description: "A page of boards.", schema: BoardPage },
    errors: [],
  },
  {
    operationId: "createBoard",
    method: "post",
    path: "/v1/{slug}/boards",
    tag: "Boards",
    summary: "Create a board",
    description: "Creates a board at the top level or under `parent_token`.",
    auth: write(),
    body: CreateBoardBody,
    success: { status: 201, description: "The board created.", schema: BoardOne },
    errors: ["board_not_found"],
  },
  {
    operationId: "getBoard",
    method: "get",
    path: "/v1/{slug}/boards/{boardToken}",
    tag: "Boards",
    summary: "Read a board",
    description: "A board access token reads its board and the boards below it; any other board reads as not found.",
    auth: read({ boardToken: true }),
    success: { status: 200, description: "The board.", schema: BoardOne },
    errors: ["board_not_found"],
  },
  {
    operationId: "updateBoard",
    method: "patch",
    path: "/v1/{slug}/boards/{boardToken}",
    tag: "Boards",
    summary: "Rename, change state or move a board",
    description: "Any state may follow any other. Moving a board under itself or a descendant is 422 `validation_failed` (field `parent_token`).",
    auth: write(),
    body: UpdateBoardBody,
    success: { status: 200, description: "The board after the change.", schema: BoardOne },
    errors: ["board_not_found"],
  },
  {
    operationId: "listBoardChildren",
    method: "get",
    path: "/v1/{slug}/boards/{boardToken}/children",
    tag: "Boards",
    summary: "List a board's sub-boards",
    description: "Direct sub-boards, oldest first.",
    auth: read({ boardToken: true }),
    query: BoardListQuery,
    success: { status: 200, description: "A page of boards.", schema: BoardPage },
    errors: ["board_not_found"],
  },
  {
    operationId: "listBoardAssets",
    method: "get",
    path: "/v1/{slug}/boards/{boardToken}/assets",
    tag: "Boards",
    summary: "List a board's assets",
    description: "Assets on the board, newest first; `nested_assets=true` adds the assets of every sub-board.",
    auth: read({ boardToken: true }),
    query: BoardAssetsQuery,
    success: { status: 200, description: "A page of assets.", schema: AssetPage },
    errors: ["board_not_found"],
  },
  // ---- assets and search
  {
    operationId: "listAssets",
    method: "get",
    path: "/v1/{slug}/assets",
    tag: "Assets",
    summary: "List assets",
    description: "Every asset the caller may see, newest first (a board access token: its board and sub-boards).",
    auth: read({ boardToken: true }),
    query: AssetListQuery,
    success: { status: 200, description: "A page of assets.", schema: AssetPage },
    errors: [],
  },
  {
    operationId: "searchAssets",
    method: "get",
    path: "/v1/{slug}/search",
    tag: "Search",
    summary: "Full-text search",
    description:
      "Every word of `query` must start a word of the title, tags, description, text or a field value (`harb` finds `harbour`). Ranked (a title hit ranks above a description hit), newest first among equals.",
    auth: read({ boardToken: true }),
    query: SearchQuery,
    success: { status: 200, description: "Ranked results with their `score`.", schema: SearchPage },
    errors: ["board_not_found"],
  },
  {
    operationId: "aiSearch",
    method: "get",
    path: "/v1/{slug}/ai_search",
    tag: "Search",
    summary: "Natural-language search",
    description:
      "`query` in plain English (\"portrait photos from last week that are not blue\"), read by rules into filters: media kinds, time, orientation, duration, size, colours, tags, negation. Remaining words rank by full text. The answer explains how the query was read.",
    auth: read({ boardToken: true }),
    query: SearchQuery,
    success: { status: 200, description: "Results with `explanation` and `interpretation`.", schema: AiSearchPage },
    errors: ["board_not_found"],
  },
  {
    operationId: "getAsset",
    method: "get",
    path: "/v1/{slug}/assets/{token}",
    tag: "Assets",
    summary: "Read an asset",
    description:
      "On plans that do not encode on upload (Free, Pro, Creative), reading a video starts its encode; `stream_url` fills in later. Poll this, never retry_video_processing, to wait for it.",
    auth: read(),
    success: { status: 200, description: "The asset.", schema: AssetOne },
    errors: ["asset_not_found"],
  },
  {
    operationId: "updateAsset",
    method: "patch",
    path: "/v1/{slug}/assets/{token}",
    tag: "Versions",
    summary: "Update an asset: metadata, version write, checkpoint or comment edit",
    description: [
      "Chosen by the body (docs/versions.md has the full table):",
      "- `signed_storage_id` (with `create_version` true or omitted): the uploaded bytes become a new version; head + 1.",
      "- `version_number` without `signed_storage_id`: edit that stored version's `comment`; head unchanged.",
      "- `create_version: true` without bytes: a metadata checkpoint when title, description or text change or a non-empty `comment` is given (head + 1); otherwise nothing is written (200).",
      "- otherwise: a plain metadata update (title, description, text, tags, fields), no version.",
      "Tags and fields are never versioned. `If-Match: <head_version_number>` makes a version write fail with 412 when the head moved.",
    ].join("\n"),
    auth: write(),
    body: PatchAssetBody,
    ifMatch: true,
    success: { status: 200, description: "The asset after the write, with `head_version_number`.", schema: AssetWriteJson },
    errors: [...versionGates, "invalid_version_number", "version_not_found", "invalid_signed_storage_id", "storage_object_not_found", "size_mismatch", "checksum_mismatch", "storage_unavailable"],
  },
  {
    operationId: "deleteAsset",
    method: "delete",
    path: "/v1/{slug}/assets/{token}",
    tag: "Assets",
    summary: "Delete an asset and its history",
    description: "Emits `asset_deleted`.",
    auth: write(),
    success: { status: 204, description: "Deleted; no body.", schema: null },
    errors: ["asset_not_found"],
  },
  // ---- uploads
  {
    operationId: "prepareUpload",
    method: "post",
    path: "/v1/{slug}/assets/upload_prepare",
    tag: "Uploads",
    summary: "Reserve an upload",
    description:
      "Returns where to send the bytes. gcs (Kind A): POST `upload_url` with `x-goog-resumable: start`, then PUT the bytes to the `Location` it answers. s3 (Kind B): PUT `upload_url`, or each of `part_urls` for 5 MiB and more. With a real bucket the upload URL is signed create-only: when its signed headers (`X-Amz-SignedHeaders`, `X-Goog-SignedHeaders`) name `if-none-match` or `x-goog-if-generation-match`, send `If-None-Match: *` or `x-goog-if-generation-match: 0` with that request. Then call upload_complete (or a version-writing PATCH) with `signed_storage_id`.",
    auth: write(),
    body: PrepareBody,
    success: { status: 200, description: "Where to send the bytes.", schema: PreparedUploadOne },
    errors: ["board_not_found", "payload_too_large", "storage_unavailable"],
  },
  {
    operationId: "completeUpload",
    method: "post",
    path: "/v1/{slug}/assets/upload_complete",
    tag: "Uploads",
    summary: "Complete an upload: create the asset",
    description:
      "Completes a multipart upload (listing the parts itself: send no ETags), confirms the bytes are in storage, creates the asset and starts its processing. Idempotent: the same `signed_storage_id` again returns the asset it created.",
    auth: write(),
    body: CompleteBody,
    success: { status: 200, description: "The asset.", schema: AssetOne },
    errors: ["invalid_signed_storage_id", "storage_object_not_found", "size_mismatch", "checksum_mismatch", "board_not_found", "asset_not_found", "storage_unavailable"],
  },
  // ---- versions
  {
    operationId: "listVersions",
    method: "get",
    path: "/v1/{slug}/assets/{token}/versions",
    tag: "Versions",
    summary: "List stored versions",
    description: "Newest first, 100 to a page by default, with `head_version_number` beside `data`. Available on every plan.",
    auth: read(),
    query: VersionsQuery,
    success: { status: 200, description: "The version list envelope.", schema: VersionListJson },
    errors: ["asset_not_found"],
  },
  {
    operationId: "getDownloadLink",
    method: "get",
    path: "/v1/{slug}/assets/{token}/download_link",
    tag: "Versions",
    summary: "Get a download link to the original bytes",
    description:
      "A signed link to the full-resolution original of the head, or of stored version `version`, valid for one hour, with the md5 and size to check the download against. The head's link follows the head (a version write or revert changes what it serves); a stored version's link always serves that version. Past the revert window on a gated plan a version's original is withheld (403 `revert_window_exceeded`). Answered with `Cache-Control: no-store`.",
    auth: read(),
    query: DownloadLinkQuery,
    success: { status: 200, description: "The link.", schema: DownloadLinkOne },
    errors: ["asset_not_found", "version_not_found", "revert_window_exceeded"],
  },
  {
    operationId: "revertAsset",
    method: "post",
    path: "/v1/{slug}/assets/{token}/revert",
    tag: "Versions",
    summary: "Revert to a stored version",
    description:
      "The head is stored as a new version (carrying `comment`), then version N's content becomes the head: head + 1. Reverting to the live head, or retrying a revert that succeeded, is a 200 that writes nothing.",
    auth: write(),
    body: RevertBody,
    ifMatch: true,
    success: { status: 200, description: "The asset after the revert, with `head_version_number`.", schema: AssetWriteJson },
    errors: [...versionGates, "invalid_version_number", "version_not_found", "revert_window_exceeded", "version_blob_missing", "storage_unavailable"],
  },
  // ---- video
  {
    operationId: "retryVideoProcessing",
    method: "post",
    path: "/v1/{slug}/assets/{token}/retry_video_processing",
    tag: "Video",
    summary: "Restart a video's HLS encode",
    description:
      "Queues an encode unless one has finished. It cannot tell a running encode from a dead one, so each call queues a job (a second one finds the work done); do not poll it. Poll GET asset and watch `stream_url`.",
    auth: write(),
    success: { status: 200, description: "Encode queued; the asset.", schema: AssetOne },
    errors: ["asset_not_found", "not_a_video", "encode_already_finished", "streaming_not_available"],
  },
  // ---- board access tokens
  {
    operationId: "createBoardAccessToken",
    method: "post",
    path: "/v1/{slug}/access_tokens",
    tag: "Board access tokens",
    summary: "Create a board access token",
    description:
      "Exchanges an API token for a short-lived, read-only token limited to one board and its sub-boards, for browser code: mint it on your server, hand it to the page. It works on the seven read routes only, has its own rate limit, and outlives the revocation of the API token. Each call counts as one request of the API token.",
    auth: read({ apiTokenOnly: true }),
    body: CreateAccessTokenBody,
    success: { status: 200, description: "The token.", schema: BoardAccessTokenOne },
    errors: ["board_not_found"],
  },
  // ---- webhooks (bare bodies, no slug in the path)
  {
    operationId: "listTriggers",
    method: "get",
    path: "/v1/trigger",
    tag: "Webhooks",
    summary: "List webhook triggers",
    description: "The token's workspace's triggers (not deleted), oldest first.",
    auth: read({ webhooks: true }),
    query: ListTriggersQuery,
    success: { status: 200, description: "The triggers.", schema: TriggerListJson },
    errors: ["workspace_not_found"],
  },
  {
    operationId: "createTrigger",
    method: "post",
    path: "/v1/trigger",
    tag: "Webhooks",
    summary: "Create a webhook trigger",
    description: "Easel POSTs a signed JSON body (see `webhooks` in this document) to `hook_url` when an asset on the board or a sub-board is added, updated or deleted. Triggers live 90 days.",
    auth: write({ webhooks: true }),
    body: CreateTriggerBody,
    success: { status: 201, description: "The trigger, bare, with its signing secret (shown only here).", schema: CreatedTriggerJson },
    errors: ["workspace_not_found", "board_not_found", "invalid_hook_url"],
  },
  {
    operationId: "deleteTrigger",
    method: "delete",
    path: "/v1/trigger/{id}",
    tag: "Webhooks",
    summary: "Delete a webhook trigger",
    description: "Nothing more is delivered for it, retries already scheduled included.",
    auth: write({ webhooks: true }),
    success: { status: 204, description: "Deleted; no body.", schema: null },
    errors: ["trigger_not_found"],
  },
  {
    operationId: "renewTrigger",
    method: "post",
    path: "/v1/trigger/{id}/renew",
    tag: "Webhooks",
    summary: "Renew a webhook trigger",
    description: "A new `expiration_date` 90 days from now, for a live or an expired trigger; re-enables one disabled by a 410. Missed events are not replayed.",
    auth: write({ webhooks: true }),
    success: { status: 200, description: "The trigger, bare.", schema: TriggerJson },
    errors: ["trigger_not_found"],
  },
  {
    operationId: "listDeliveries",
    method: "get",
    path: "/v1/trigger/{id}/deliveries",
    tag: "Webhooks",
    summary: "List a trigger's deliveries",
    description: "One row per attempt, newest first.",
    auth: read({ webhooks: true }),
    query: ListDeliveriesQuery,
    success: { status: 200, description: "A page of delivery attempts.", schema: DeliveryPage },
    errors: ["trigger_not_found"],
  },
  {
    operationId: "resendDelivery",
    method: "post",
    path: "/v1/trigger/{id}/deliveries/{delivery_id}/resend",
    tag: "Webhooks",
    summary: "Resend a delivered message",
    description: "The same body and `webhook-id`, on a fresh retry schedule. A trigger that is expired or disabled must be renewed first (422).",
    auth: write({ webhooks: true }),
    success: { status: 202, description: "Queued.", schema: ResendJson },
    errors: ["trigger_not_found", "delivery_not_found"],
  },
  // ---- this document
  {
    operationId: "getOpenApiDocument",
    method: "get",
    path: "/v1/openapi.json",
    tag: "Reference",
    summary: "This OpenAPI document",
    description: "No authentication. Also rendered for people at /docs/api.",
    auth: { kind: "none" },
    success: { status: 200, description: "The OpenAPI 3.1 document.", schema: z.looseObject({ openapi: z.string().startsWith("3.1") }) },
    errors: [],
  },
];

const hasSlug = (op: Operation) => op.path.includes("{slug}");

/**
 * Every code an operation can answer: its own, plus those of the wrapper every /v1 handler runs
 * in (lib/http/with-api.ts), in its order: authentication, rate limit, gates, the workspace of the
 * path, request parsing, Idempotency-Key.
 */
export function errorCodesOf(op: Operation): ErrorCode[] {
  const codes = new Set<ErrorCode>();
  if (op.auth.kind === "token") {
    codes.add("unauthenticated").add("rate_limited").add("insufficient_scope");
    if (!op.auth.boardToken || op.auth.apiTokenOnly) codes.add("board_scoped_token");
    if (op.auth.apiTokenOnly) codes.add("api_token_required");
    if (op.auth.webhooks) codes.add("webhook_permission_required");
    if (hasSlug(op)) codes.add("workspace_not_found");
    if (op.method === "post") codes.add("validation_failed").add("idempotency_key_reused").add("idempotency_request_in_progress");
  }
  if (op.query || op.body || op.ifMatch) codes.add("validation_failed");
  if (op.body) codes.add("invalid_json");
  // A JSON body (or any POST body hashed for an Idempotency-Key) above 1 MiB (lib/http/parse.ts).
  if (op.body || (op.auth.kind === "token" && op.method === "post")) codes.add("payload_too_large");
  for (const code of op.errors) codes.add(code);
  // Any operation that reads the database answers this while the database cannot be reached.
  codes.add("database_unavailable");
  codes.add("internal");
  return [...codes];
}

/**
 * The schema a response of `op` with `status` must match: the success body (null: no body), the
 * error envelope limited to the operation's codes of that status, or undefined when the status is
 * not documented for the operation at all.
 */
export function responseSchemaFor(op: Operation, status: number): z.ZodType | null | undefined {
  if (status === op.success.status) return op.success.schema;
  const codes = errorCodesOf(op).filter((c) => ERROR_STATUS[c] === status);
  return codes.length ? errorEnvelope(codes) : undefined;
}
