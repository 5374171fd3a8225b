import type { z } from "zod";
import { ERROR_STATUS, type ErrorCode } from "../errors";
import { DEFAULT_RETRY_SCHEDULE } from "../webhooks/retry-schedule";
import { ERROR_MEANINGS } from "./errors";
import { toJsonSchema, type Components } from "./json-schema";
import { errorCodesOf, OPERATIONS, type Operation, type Tag } from "./operations";
import { ErrorEnvelope } from "./schemas/common";
import { AddedAssetPayloadJson, DeletedAssetPayloadJson, UpdatedAssetPayloadJson, WebhookPayloadJson } from "./schemas/webhooks";

/**
 * The OpenAPI 3.1 document of /v1, built from the operations registry (lib/openapi/operations.ts)
 * and the same zod schemas the routes validate requests with and the presenters' types come from.
 * Served at GET /v1/openapi.json and rendered at /docs/api.
 */
export type OpenApiDocument = {
  openapi: "3.1.0";
  jsonSchemaDialect: string;
  info: { title: string; version: string; description: string };
  servers?: { url: string }[];
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, unknown>>;
  webhooks: Record<string, unknown>;
  components: { schemas: Components; securitySchemes: Record<string, unknown>; headers: Record<string, unknown>; parameters: Record<string, unknown> };
};

const INTRO = `Easel stores assets (images, video, any file) in workspaces, on boards with sub-boards, with a version history per asset.

**Authentication.** \`Authorization: Bearer <token>\` on every call (but this document): an API token (\`easel_…\`, issued by \`npm run easel -- token create\` or the admin UI, scopes \`read\` and/or \`write\`, optionally the webhooks permission), or a board access token (a short-lived JWT limited to one board, for browser code; only the seven read routes marked below accept it, everywhere else it is 403 \`board_scoped_token\`). Missing, unknown, revoked or expired: 401 \`unauthenticated\`. A token of another workspace reads as not found (404), never 403. A token issued in the admin UI is revoked when the person who issued it leaves the workspace or stops being one of its admins; tokens from \`token create\` on the server are revoked only by hand. (Easel's own web UI calls these routes with its sign-in session cookie instead, from its own pages only; that is not a way in for other clients.)

**Envelopes.** A resource is \`{"data": {...}}\`; a list is \`{"data": [...], "pagy": {...}}\`; the trigger routes answer bare objects. Every error, on every route and status, is \`{"errors": [{"message", "extensions": {"code", ...}}]}\`: branch on \`extensions.code\`.

**Pagination.** \`page\` (default 1) and \`per_page\` (1..100, default 20; version lists 100). Anything else is 422 \`validation_failed\`.

**Rate limits.** Per API token (600/min by default) and per board access token (300/min), in one-minute windows; creating a board access token counts as one request of the API token. Every response carries \`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\`; 429 \`rate_limited\` adds \`Retry-After\`.

**Idempotency.** A POST with \`Idempotency-Key\` (≤ 255 characters) replays its first response (with \`Idempotent-Replayed: true\`) for 24 hours when sent again with the same method, path and body, and writes nothing more.

**CORS.** Any origin may call the API (bearer tokens, never cookies); \`OPTIONS\` answers the preflight. An unknown path is 404 \`route_not_found\`; a known path with another method is 405 \`method_not_allowed\` with \`Allow\`.`;

const TAGS: { name: Tag; description: string }[] = [
  { name: "Boards", description: "Boards and sub-boards, and the assets on them." },
  { name: "Assets", description: "Assets: read, list, delete." },
  { name: "Uploads", description: "Two-phase uploads: reserve, send the bytes to storage, complete." },
  { name: "Versions", description: "Version history: list, write, checkpoint, comment, revert." },
  { name: "Video", description: "HLS encodes of videos." },
  { name: "Search", description: "Full-text and natural-language search." },
  { name: "Board access tokens", description: "Short-lived read-only tokens for browser code." },
  { name: "Webhooks", description: "Triggers that POST signed events to your URL, and their delivery log." },
  { name: "Reference", description: "This document." },
];

const PATH_PARAMS: Record<string, string> = {
  slug: "Workspace slug.",
  boardToken: "Board token (collection token).",
  token: "Asset token.",
  id: "Trigger id.",
  delivery_id: "Delivery id (from the delivery log).",
};

const QUERY_DOCS: Record<string, string> = {
  page: "Page number, from 1.",
  per_page: "Items per page, 1..100.",
  query: "Search text.",
  organization_slug: "Only this workspace's triggers (an API token sees only its own workspace anyway).",
  collection_token: "Only triggers on this board.",
};

const RATE_HEADERS = {
  "RateLimit-Limit": { $ref: "#/components/headers/RateLimit-Limit" },
  "RateLimit-Remaining": { $ref: "#/components/headers/RateLimit-Remaining" },
  "RateLimit-Reset": { $ref: "#/components/headers/RateLimit-Reset" },
};

const integerHeader = (description: string) => ({ description, schema: { type: "integer", minimum: 0 } });

const COMPONENT_HEADERS = {
  "RateLimit-Limit": integerHeader("Requests allowed in the current one-minute window for this token (or client address, unauthenticated)."),
  "RateLimit-Remaining": integerHeader("Requests left in the current window."),
  "RateLimit-Reset": integerHeader("Seconds until the window resets."),
  "Retry-After": integerHeader("Seconds to wait before retrying."),
  "Idempotent-Replayed": { description: "`true` when this is the stored first response to an earlier request with the same Idempotency-Key.", schema: { type: "string", enum: ["true"] } },
};

const SECURITY_SCHEMES = {
  apiToken: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "easel_…",
    description: "An API token of one workspace, with scopes `read` and/or `write` and optionally the webhooks permission. Keep it on your server.",
  },
  boardAccessToken: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description:
      "A board access token from `POST /v1/{slug}/access_tokens`: read-only, one board and its sub-boards, at most one hour, its own rate limit. Accepted only by the seven read routes that list it; media links (`display_url`, `stream_url`, thumbnails) also take it as `?token=`.",
  },
};

const COMPONENT_PARAMETERS = {
  IdempotencyKey: {
    name: "Idempotency-Key",
    in: "header",
    required: false,
    description: "Any string up to 255 characters. The same key with the same method, path and body within 24 h replays the first response and writes nothing.",
    schema: { type: "string", maxLength: 255 },
  },
  IfMatch: {
    name: "If-Match",
    in: "header",
    required: false,
    description: "The `head_version_number` the client last saw (quotes allowed). A version write against a head that moved is 412 `precondition_failed`.",
    schema: { type: "string", pattern: '^(W/)?"?[0-9]+"?$' },
  },
};

function codeList(codes: ErrorCode[]): string {
  return codes.map((c) => `- \`${c}\`: ${ERROR_MEANINGS[c]}`).join("\n");
}

/** The error response of one status: the envelope, with `extensions.code` narrowed to the operation's codes. */
function errorResponse(status: number, codes: ErrorCode[]) {
  const headers: Record<string, unknown> = { ...RATE_HEADERS };
  if (status === 429) headers["Retry-After"] = { $ref: "#/components/headers/Retry-After" };
  const narrowed = { properties: { errors: { items: { properties: { extensions: { properties: { code: { enum: codes } } } } } } } };
  return {
    description: codeList(codes),
    headers,
    content: { "application/json": { schema: { allOf: [{ $ref: "#/components/schemas/ErrorEnvelope" }, narrowed] } } },
  };
}

function security(op: Operation) {
  if (op.auth.kind === "none") return [];
  const schemes: Record<string, string[]>[] = [{ apiToken: [op.auth.scope] }];
  if (op.auth.boardToken && !op.auth.apiTokenOnly) schemes.push({ boardAccessToken: [] });
  return schemes;
}

function authLine(op: Operation): string {
  if (op.auth.kind === "none") return "**Auth:** none.";
  const parts = [`**Scope:** \`${op.auth.scope}\`.`];
  if (op.auth.webhooks) parts.push("The API token needs the webhooks permission.");
  if (op.auth.apiTokenOnly) parts.push("Only an API token may call it.");
  parts.push(op.auth.boardToken && !op.auth.apiTokenOnly ? "A board access token is accepted." : "A board access token is refused (403 `board_scoped_token`).");
  return parts.join(" ");
}

function queryParameters(op: Operation, components: Components) {
  if (!op.query) return [];
  const defaults = op.query.safeParse({});
  return Object.entries(op.query.shape).map(([name, field]) => {
    const schema = toJsonSchema(field as z.ZodType, "input", components);
    const dflt = defaults.success ? (defaults.data as Record<string, unknown>)[name] : undefined;
    if (dflt !== undefined) schema.default = String(dflt);
    const description = (schema.description as string | undefined) ?? QUERY_DOCS[name];
    delete schema.description;
    return { name, in: "query", required: !(field as z.ZodType).isOptional(), description, schema };
  });
}

function operationObject(op: Operation, components: Components) {
  const parameters: unknown[] = queryParameters(op, components);
  if (op.method === "post" && op.auth.kind === "token") parameters.push({ $ref: "#/components/parameters/IdempotencyKey" });
  if (op.ifMatch) parameters.push({ $ref: "#/components/parameters/IfMatch" });

  const successHeaders: Record<string, unknown> = { ...RATE_HEADERS };
  if (op.method === "post" && op.auth.kind === "token") successHeaders["Idempotent-Replayed"] = { $ref: "#/components/headers/Idempotent-Replayed" };
  const responses: Record<string, unknown> = {
    [op.success.status]: {
      description: op.success.description,
      headers: successHeaders,
      ...(op.success.schema ? { content: { "application/json": { schema: toJsonSchema(op.success.schema, "output", components) } } } : {}),
    },
  };
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(op)) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) responses[status] = errorResponse(status, codes);

  return {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    description: [op.description, authLine(op)].filter(Boolean).join("\n\n"),
    security: security(op),
    ...(op.auth.kind === "token"
      ? { "x-easel-scope": op.auth.scope, "x-easel-board-access-token": Boolean(op.auth.boardToken && !op.auth.apiTokenOnly), "x-easel-webhooks-permission": Boolean(op.auth.webhooks) }
      : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(op.body ? { requestBody: { required: true, content: { "application/json": { schema: toJsonSchema(op.body, "input", components) } } } } : {}),
    responses,
  };
}

function pathParameters(path: string) {
  return [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: "path", required: true, description: PATH_PARAMS[name], schema: { type: "string" } }));
}

function duration(seconds: number): string {
  if (seconds >= 3600 && seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds >= 60 && seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

const DELIVERY_HEADERS = {
  "webhook-id": { description: "Message id: the same on every retry and resend of one message (dedupe on it).", required: true, schema: { type: "string" } },
  "webhook-timestamp": { description: "Unix seconds of this attempt.", required: true, schema: { type: "string" } },
  "webhook-signature": {
    description: "`v1,<base64 HMAC-SHA256 of id.timestamp.body>` with the trigger's `whsec_` secret (Standard Webhooks; verify with the `standardwebhooks` package).",
    required: true,
    schema: { type: "string" },
  },
};

/** The three events Easel POSTs to a trigger's hook_url (OpenAPI 3.1 `webhooks`). */
function webhookEvents(components: Components) {
  toJsonSchema(WebhookPayloadJson, "output", components);
  const event = (name: string, asset: string, summary: string) => ({
    post: {
      operationId: `webhook_${name}`,
      summary,
      description: `Answer 2xx within 10 s. Anything else is retried; attempts are ${DEFAULT_RETRY_SCHEDULE.map(duration).join(", ")} after the previous one by default (EASEL_WEBHOOK_RETRY_SCHEDULE changes it), and a 410 disables the trigger. Deliveries can repeat: deduplicate on \`webhook-id\`.`,
      parameters: Object.entries(DELIVERY_HEADERS).map(([n, h]) => ({ name: n, in: "header", ...h })),
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: {
              allOf: [
                { $ref: "#/components/schemas/WebhookPayload" },
                { properties: { event: { const: name }, asset: { $ref: `#/components/schemas/${asset}` } } },
              ],
            },
          },
        },
      },
      responses: { "200": { description: "Received. Any 2xx stops the retries." } },
    },
  });
  // Referenced by id so the per-event bodies below resolve.
  for (const s of [AddedAssetPayloadJson, UpdatedAssetPayloadJson, DeletedAssetPayloadJson]) toJsonSchema(s, "output", components);
  return {
    asset_added: event("asset_added", "WebhookAssetAdded", "An asset was created (upload_complete)"),
    asset_updated: event("asset_updated", "WebhookAssetUpdated", "An asset changed (PATCH, version write, revert, finished encode), with `changes`"),
    asset_deleted: event("asset_deleted", "WebhookAssetDeleted", "An asset was deleted"),
  };
}

let cached: OpenApiDocument | null = null;

function build(): OpenApiDocument {
  const components: Components = {};
  toJsonSchema(ErrorEnvelope, "output", components);
  const paths: OpenApiDocument["paths"] = {};
  for (const op of OPERATIONS) {
    const item = (paths[op.path] ??= {});
    if (item[op.method]) throw new Error(`Two operations for ${op.method.toUpperCase()} ${op.path}`);
    if (!item.parameters && pathParameters(op.path).length) item.parameters = pathParameters(op.path);
    item[op.method] = operationObject(op, components);
  }
  const webhooks = webhookEvents(components);
  return {
    openapi: "3.1.0",
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: { title: "Easel API", version: "1", description: INTRO },
    tags: TAGS,
    paths,
    webhooks,
    components: {
      schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))),
      securitySchemes: SECURITY_SCHEMES,
      headers: COMPONENT_HEADERS,
      parameters: COMPONENT_PARAMETERS,
    },
  };
}

/** The document; with `serverUrl` (the origin clients reach this server at) it names that server. */
export function openApiDocument(opts: { serverUrl?: string } = {}): OpenApiDocument {
  cached ??= build();
  return opts.serverUrl ? { ...cached, servers: [{ url: opts.serverUrl }] } : cached;
}
