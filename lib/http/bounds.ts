import { DomainError } from "../errors";

/**
 * The bounds on what a request may send (contract §13, "Metadata is bounded"; §12, "Bounded work
 * per request"), in one place: request schemas (lib/openapi/schemas, lib/mcp/tools,
 * app/api/admin) build their limits from these, and docs/security.md ("Bounds on every input")
 * lists them. Each is generous for people and small enough that the largest accepted request
 * costs the server a bounded amount of work (tests/security/largest-inputs.test.ts).
 *
 * Lengths are counted as JavaScript counts a string (UTF-16 code units: a letter outside the
 * Basic Multilingual Plane, such as most emoji, counts two).
 */
export const BOUNDS = {
  /** Custom fields on one asset. */
  fieldCount: 100,
  fieldNameChars: 100,
  fieldValueChars: 10_000,
  /** All fields together, as the UTF-8 bytes of their JSON object. */
  fieldsJsonBytes: 64 * 1024,
  tagCount: 100,
  tagChars: 100,
  title: 500,
  description: 10_000,
  text: 100_000,
  comment: 10_000,
  /** RFC 6838: a type and a subtype of at most 127 characters each. */
  mediaType: 255,
  searchQuery: 500,
  /** The comma-separated `tags` filter of search. */
  tagFilterChars: 1000,
  slug: 64,
  boardToken: 64,
  assetToken: 200,
  signedStorageId: 2000,
  multipartUploadId: 1000,
  url: 2048,
  tokenName: 100,
  email: 320,
  workspaceName: 200,
  messageId: 100,
  page: 1_000_000,
  perPage: 100,
} as const;

/**
 * What is wrong with `fields` against the custom-field bounds, or null when nothing is. It stops
 * counting at the 101st name, so a body of 45,000 fields costs microseconds here, where the walks
 * that come after it (the string check, the schema) take over 100 ms of the event loop. Anything
 * that is not an object of strings is left to the schema, which refuses it with its own message.
 */
export function fieldBoundsProblem(fields: unknown): string | null {
  if (fields === null || typeof fields !== "object" || Array.isArray(fields)) return null;
  let count = 0;
  for (const name in fields) {
    if (Object.hasOwn(fields, name) && ++count > BOUNDS.fieldCount) return `at most ${BOUNDS.fieldCount} custom fields`;
  }
  let jsonBytes = 2; // the braces
  for (const [name, value] of Object.entries(fields)) {
    if (name.length < 1 || name.length > BOUNDS.fieldNameChars) return `a field name must have 1 to ${BOUNDS.fieldNameChars} characters`;
    if (typeof value !== "string") return `the value of ${JSON.stringify(name)} must be a string`;
    if (value.length > BOUNDS.fieldValueChars) return `the value of ${JSON.stringify(name)} is longer than ${BOUNDS.fieldValueChars} characters`;
    // the name and value as JSON strings, the colon, and a comma before every entry but the first
    jsonBytes += Buffer.byteLength(JSON.stringify(name)) + Buffer.byteLength(JSON.stringify(value)) + 1 + (jsonBytes > 2 ? 1 : 0);
  }
  if (jsonBytes > BOUNDS.fieldsJsonBytes) return `all fields together must be at most ${BOUNDS.fieldsJsonBytes} bytes of JSON (these are ${jsonBytes})`;
  return null;
}

/** fieldBoundsProblem as the contract's refusal: 422 validation_failed naming `fields`. */
export function checkFieldBounds(fields: unknown): void {
  const problem = fieldBoundsProblem(fields);
  if (problem) throw new DomainError("validation_failed", `fields: ${problem}`, { field: "fields" });
}
