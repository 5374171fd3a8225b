import { z } from "zod";
import { DomainError, type ErrorCode } from "../errors";
import { MAX_JSON_DEPTH, jsonNestsDeeperThan } from "./json-depth";
import { MAX_JSON_VALUES, jsonHoldsMoreValuesThan } from "./json-values";
import { findUnstorable, unstorableReason } from "./unstorable-text";

/** A field whose failure needs its own code instead of validation_failed (e.g. version_number → invalid_version_number). */
export type FieldCodes = Record<string, ErrorCode>;

function fieldOf(issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String);
  if (issue.code === "unrecognized_keys" && issue.keys.length) path.push(issue.keys[0]);
  return path.join(".") || "body";
}

function issueMessage(issue: z.core.$ZodIssue, field: string): string {
  if (issue.code === "invalid_type" && issue.input === undefined) return `${field} is required`;
  return `${field}: ${issue.message}`;
}

export function validationError(error: z.ZodError, fieldCodes: FieldCodes = {}): DomainError {
  const issue = error.issues[0];
  const field = fieldOf(issue);
  const leaf = field.split(".").at(-1) ?? field;
  // Own keys only: a field named "constructor" or "__proto__" must not find Object.prototype's
  // members (a function as the code answered 200 with an envelope that had no code).
  const codeOf = (name: string) => (Object.hasOwn(fieldCodes, name) ? fieldCodes[name] : undefined);
  const code = codeOf(field) ?? codeOf(leaf) ?? "validation_failed";
  return new DomainError(code, issueMessage(issue, field), { field });
}

/** The largest JSON request body any /v1 route reads (contract §1: above it, 413 payload_too_large). */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;

function bodyTooLarge(max: number) {
  return new DomainError("payload_too_large", `The request body is above the limit of ${max} bytes`, { field: "body", max_size: max });
}

/**
 * A request body as text, at most `max` bytes: a larger Content-Length is refused before reading,
 * and a body without one (chunked) is refused as soon as it passes the limit, so no route buffers
 * more than `max` bytes of a client's body.
 */
export async function readBodyText(req: Request, max = MAX_JSON_BODY_BYTES): Promise<string> {
  const declared = req.headers.get("content-length");
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared.trim()) > max) throw bodyTooLarge(max);
  if (!req.body) return "";
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    let next: ReadableStreamReadResult<Uint8Array>;
    try {
      next = await reader.read();
    } catch {
      // The client went away (or the server cut a body that stopped arriving): what came is not a
      // JSON document, and this is not a server failure.
      throw new DomainError("invalid_json", "The request body ended before it was complete");
    }
    const { done, value } = next;
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      // Not awaited: cancelling one branch of a tee()d body (Request.clone) settles only once both are cancelled.
      void reader.cancel().catch(() => undefined);
      throw bodyTooLarge(max);
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/** The refusal of a body nested deeper than MAX_JSON_DEPTH (contract §12), for every transport that reads JSON. */
export function tooDeepError(): DomainError {
  return new DomainError("invalid_json", `The request body nests deeper than ${MAX_JSON_DEPTH} levels`);
}

/** The refusal of a body holding more than MAX_JSON_VALUES values (lib/http/json-values.ts). */
export function tooManyValuesError(): DomainError {
  return new DomainError("validation_failed", `body: the request body holds more than ${MAX_JSON_VALUES} values`, { field: "body" });
}

/**
 * JSON.parse of request text whose nesting and size were checked first: deeper than
 * MAX_JSON_DEPTH or not JSON → 400 invalid_json; more than MAX_JSON_VALUES values → 422
 * validation_failed on `body`. The checks come before parsing because every later walk over the
 * value (the string check below, schemas, JSON.stringify) recurses once per level and visits
 * every value.
 */
export function parseJsonText(text: string, precheckText?: (text: string) => void): unknown {
  if (jsonNestsDeeperThan(text)) throw tooDeepError();
  precheckText?.(text);
  if (jsonHoldsMoreValuesThan(text)) throw tooManyValuesError();
  try {
    return JSON.parse(text);
  } catch {
    throw new DomainError("invalid_json", "The request body is not valid JSON");
  }
}

/**
 * Parses a JSON object body: above MAX_JSON_BODY_BYTES → 413; not JSON, nested deeper than 64
 * levels, or not an object → 400 invalid_json; a string (key or value) holding NUL or a lone
 * surrogate → 422 validation_failed naming it (lib/http/unstorable-text.ts); schema failure → 422
 * naming the field. `precheck` sees the parsed object before those walks over it, to refuse
 * cheaply a body whose size they would pay for (lib/http/bounds.ts); `precheckText` sees the text
 * before it is parsed (after the depth scan), for a bound whose refusal should not cost the parse.
 */
export async function parseJson<S extends z.ZodType>(
  req: Request,
  schema: S,
  fieldCodes: FieldCodes = {},
  precheck?: (body: Record<string, unknown>) => void,
  precheckText?: (text: string) => void,
): Promise<z.infer<S>> {
  const text = await readBodyText(req);
  const value = text.trim() === "" ? {} : parseJsonText(text, precheckText);
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new DomainError("invalid_json", "The request body must be a JSON object");
  }
  precheck?.(value as Record<string, unknown>);
  const bad = findUnstorable(value);
  if (bad) throw new DomainError("validation_failed", `${bad.field || "body"}: ${bad.reason}`, { field: bad.field || "body" });
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw validationError(parsed.error, fieldCodes);
  return parsed.data;
}

export function parseQuery<S extends z.ZodType>(req: Request, schema: S): z.infer<S> {
  const params = Object.fromEntries(new URL(req.url).searchParams);
  // URL parsing turns a lone surrogate into U+FFFD, so only NUL (%00) can reach here; the one check serves both.
  for (const [k, v] of Object.entries(params)) {
    const reason = unstorableReason(k) ?? unstorableReason(v);
    if (reason) throw new DomainError("validation_failed", `${k}: ${reason}`, { field: k });
  }
  const parsed = schema.safeParse(params);
  if (!parsed.success) throw validationError(parsed.error);
  return parsed.data;
}

/** A query integer: digits only, so "2.5", "-1" and "abc" fail instead of being coerced. */
export const queryInt = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

/** Optional `If-Match: <head_version_number>` (quotes allowed); anything else is a 422 naming the header. */
export function parseIfMatch(req: Request): number | undefined {
  const raw = req.headers.get("if-match");
  if (raw === null) return undefined;
  const value = raw.trim().replace(/^W\//, "").replace(/^"(.*)"$/, "$1");
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw new DomainError("validation_failed", "If-Match must be a head_version_number", { field: "If-Match" });
  }
  return Number(value);
}
