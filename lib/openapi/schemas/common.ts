import { z } from "zod";
import { SCOPES } from "../../db/schema/api-tokens";
import { ERROR_STATUS, type ErrorCode } from "../../errors";

/**
 * Building blocks of the response schemas. Every response schema is strict (an unknown key fails
 * to parse), because the integration suite checks real responses against them: a presenter that
 * grows a field without its schema fails the tests instead of drifting from the reference.
 */

/** An instant as the API writes it: ISO 8601 in UTC with milliseconds (`Date#toISOString`). */
export const Timestamp = z.iso.datetime();

/** Content digest: 32 lowercase hex digits, everywhere (prepare, asset, version). */
export const Md5 = z.string().regex(/^[0-9a-f]{32}$/);

/** A listing's `md5` filter: 32 hex digits (upper case read as the same digest), exact match on the asset's head md5. */
export const Md5Filter = z
  .string()
  .regex(/^[0-9a-fA-F]{32}$/, "must be 32 hex digits")
  .transform((s) => s.toLowerCase())
  .optional()
  .meta({ description: "Only assets whose current content has this md5 (32 hex digits): how a client finds a file it already uploaded." });

export const PagyJson = z
  .strictObject({
    current_page: z.number().int().min(1),
    page_items: z.number().int().min(0).meta({ description: "Items on this page." }),
    total_pages: z.number().int().min(1).meta({ description: "At least 1, also for an empty list." }),
    total_count: z.number().int().min(0),
  })
  .meta({ id: "Pagy", description: "Where a page sits in its list. Query `page` (default 1) and `per_page` (1..100) choose the page." });
export type PagyJson = z.infer<typeof PagyJson>;

/** `{"data": [...], "pagy": {...}}`, the list envelope. */
export const pageOf = <T extends z.ZodType>(item: T, id: string, description: string) =>
  z.strictObject({ data: z.array(item), pagy: PagyJson }).meta({ id, description });

/** `{"data": {...}}`, the single-resource envelope. */
export const oneOf = <T extends z.ZodType>(item: T, id: string) =>
  z.strictObject({ data: item }).meta({ id, description: "A single resource in the `data` envelope." });

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/** The error envelope, with `extensions.code` limited to `codes` (an operation's codes for one status). */
export const errorEnvelope = (codes: readonly ErrorCode[]) =>
  z.strictObject({
    errors: z
      .array(
        z.strictObject({
          message: z.string().meta({ description: "For people; may change. Branch on `extensions.code`." }),
          extensions: z.strictObject({
            code: z.enum(codes as [ErrorCode, ...ErrorCode[]]),
            field: z.string().optional().meta({ description: "validation_failed (and a few others): dotted path of the first bad field, or a header name." }),
            required_scope: z
              .enum([...SCOPES, "manage"])
              .optional()
              .meta({ description: "insufficient_scope: the scope the operation needs; `manage` (API tokens, webhook triggers, settings, members) is a signed-in person's admin role in the workspace." }),
            revert_window_days: z.number().int().nullable().optional().meta({ description: "revert_window_exceeded: the workspace's window, in days." }),
            head_version_number: z.number().int().min(1).optional().meta({ description: "precondition_failed: the current head." }),
            retry_after: z.number().int().min(0).optional().meta({ description: "rate_limited: seconds until the window resets (also in `Retry-After`)." }),
            allow: z.array(z.string()).optional().meta({ description: "method_not_allowed: the path's methods (also in `Allow`)." }),
            max_size: z.number().int().optional().meta({ description: "payload_too_large: the largest size accepted, in bytes." }),
            missing_parts: z.array(z.number().int()).optional().meta({ description: "storage_object_not_found: multipart part numbers not uploaded." }),
            expected_md5: Md5.optional().meta({ description: "checksum_mismatch: the md5 given at upload_prepare." }),
            actual_md5: Md5.optional().meta({ description: "checksum_mismatch: the md5 of the bytes in storage." }),
            expected_size: z.number().int().optional().meta({ description: "size_mismatch: the size given at upload_prepare, in bytes." }),
            actual_size: z.number().int().optional().meta({ description: "size_mismatch: the size of the object in storage, in bytes." }),
            reason: z.string().optional().meta({ description: "invalid_hook_url: why the URL was refused." }),
            trigger_status: z.enum(["active", "expired", "disabled"]).optional().meta({ description: "validation_failed on resend: the trigger's status." }),
          }),
        }),
      )
      .min(1),
  });

export const ErrorEnvelope = errorEnvelope(ERROR_CODES).meta({
  id: "ErrorEnvelope",
  description: "Every error, on every route and status >= 400. Clients branch on `extensions.code`, never on the message.",
});
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;
