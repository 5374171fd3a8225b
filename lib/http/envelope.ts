import { databaseErrorCode, isDatabaseUnavailable } from "../db/unavailable";
import { DomainError, ERROR_STATUS, type ErrorCode } from "../errors";

export type ErrorBody = { errors: { message: string; extensions: { code: string } & Record<string, unknown> }[] };

export function errorBody(code: ErrorCode, message: string, extensions: Record<string, unknown> = {}): ErrorBody {
  return { errors: [{ message, extensions: { ...extensions, code } }] };
}

export function errorResponse(code: ErrorCode, message: string, extensions: Record<string, unknown> = {}, headers?: HeadersInit) {
  return Response.json(errorBody(code, message, extensions), { status: ERROR_STATUS[code], headers });
}

/** Renders anything thrown by a handler; unknown errors become a generic 500 and are logged, never echoed. */
export function toErrorResponse(err: unknown): Response {
  if (err instanceof DomainError) {
    const headers: Record<string, string> = {};
    if (err.code === "method_not_allowed" && Array.isArray(err.extensions.allow)) headers.Allow = err.extensions.allow.join(", ");
    if (err.code === "rate_limited" && typeof err.extensions.retry_after === "number") headers["Retry-After"] = String(err.extensions.retry_after);
    return errorResponse(err.code, err.message, err.extensions, headers);
  }
  // A lost or refused database connection is not a bug: say so, and that a retry may work.
  if (isDatabaseUnavailable(err)) {
    console.error("[easel] database unavailable:", databaseErrorCode(err));
    return errorResponse("database_unavailable", "The database could not be reached; retry later", {}, { "Retry-After": "1" });
  }
  console.error("[easel] unhandled error", err);
  return errorResponse("internal", "Internal error");
}

export function json(body: unknown, status = 200, headers?: HeadersInit) {
  return Response.json(body, { status, headers });
}
