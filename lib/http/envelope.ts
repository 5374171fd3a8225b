import { databaseErrorCode, isDatabaseUnavailable } from "../db/unavailable";
import { DomainError, ERROR_STATUS, type ErrorCode } from "../errors";
import { currentLogContext, log } from "../log/logger.mjs";

export type ErrorBody = { errors: { message: string; extensions: { code: string } & Record<string, unknown> }[] };

export function errorBody(code: ErrorCode, message: string, extensions: Record<string, unknown> = {}): ErrorBody {
  return { errors: [{ message, extensions: { ...extensions, code } }] };
}

/**
 * An error in the envelope. `nosniff` on every one: routes outside the API's header rules
 * (/media, /storage) answer errors too, and a browser must read none of them as anything but JSON.
 */
export function errorResponse(code: ErrorCode, message: string, extensions: Record<string, unknown> = {}, headers?: HeadersInit) {
  const all = new Headers(headers);
  all.set("X-Content-Type-Options", "nosniff");
  return Response.json(errorBody(code, message, extensions), { status: ERROR_STATUS[code], headers: all });
}

/** A request id a client or proxy may choose (as Easel's server accepts it): printable, no spaces, bounded. */
const WELL_FORMED_REQUEST_ID = /^[A-Za-z0-9._:@\/+=-]{1,128}$/;

/**
 * The id of the request being answered, for its log lines: the log context's (Easel's server runs
 * every request inside one), else the request's own X-Request-Id header (under `next dev` there is
 * no such server; a proxy in front may set it), when well formed.
 */
export function requestIdFor(req?: Request): string | undefined {
  const fromContext = currentLogContext().request_id;
  if (typeof fromContext === "string") return fromContext;
  const header = req?.headers.get("x-request-id");
  return header && WELL_FORMED_REQUEST_ID.test(header) ? header : undefined;
}

/**
 * Renders anything thrown by a handler; unknown errors become a generic 500 and are logged with
 * the request's id (`req`, when given, supplies it outside Easel's server), never echoed.
 */
export function toErrorResponse(err: unknown, req?: Request): Response {
  if (err instanceof DomainError) {
    const headers: Record<string, string> = {};
    if (err.code === "method_not_allowed" && Array.isArray(err.extensions.allow)) headers.Allow = err.extensions.allow.join(", ");
    if (err.code === "rate_limited" && typeof err.extensions.retry_after === "number") headers["Retry-After"] = String(err.extensions.retry_after);
    return errorResponse(err.code, err.message, err.extensions, headers);
  }
  // A lost or refused database connection is not a bug: say so, and that a retry may work.
  if (isDatabaseUnavailable(err)) {
    log().error({ request_id: requestIdFor(req), code: databaseErrorCode(err), err }, "database unavailable; answered 503 database_unavailable");
    return errorResponse("database_unavailable", "The database could not be reached; retry later", {}, { "Retry-After": "1" });
  }
  log().error({ request_id: requestIdFor(req), err }, "unhandled error; answered 500 internal");
  return errorResponse("internal", "Internal error");
}

export function json(body: unknown, status = 200, headers?: HeadersInit) {
  return Response.json(body, { status, headers });
}
