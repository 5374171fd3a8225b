import { xmlDocument } from "../xml";

/** A GCS XML API error answer. */
export class GcsError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly details: Record<string, string> = {},
  ) {
    super(message);
    this.name = "GcsError";
  }
}

export const gcsErrors = {
  accessDenied: (details: string) => new GcsError("AccessDenied", "Access denied.", 403, { Details: details }),
  noSuchUpload: () => new GcsError("NoSuchUpload", "No such upload session: it was never opened, was cancelled, or has expired.", 404),
  noSuchKey: () => new GcsError("NoSuchKey", "The specified key does not exist.", 404),
  noSuchBucket: () => new GcsError("NoSuchBucket", "The specified bucket does not exist.", 404),
  invalidArgument: (details: string) => new GcsError("InvalidArgument", "Invalid argument.", 400, { Details: details }),
  methodNotAllowed: () => new GcsError("MethodNotAllowed", "The specified method is not allowed against this resource.", 405),
  /** A signed upload found another object at its key (as GCS answers a failed `ifGenerationMatch=0`). */
  objectExists: () =>
    new GcsError("PreconditionFailed", "At least one of the pre-conditions you specified did not hold.", 412, {
      Details: "An object already exists at this name; an upload URL can create an object but not replace it.",
    }),
  /** A write's `x-goog-if-generation-match: 0` found an object at its name. */
  preconditionFailed: () => new GcsError("PreconditionFailed", "At least one of the pre-conditions you specified did not hold.", 412),
  internal: () => new GcsError("InternalError", "We encountered an internal error. Please try again.", 500),
  /** Too many bodies at once for an upload URL, a workspace or the process's open files (contract §13). */
  slowDown: () => new GcsError("SlowDown", "Too many uploads at once; retry after the time in Retry-After.", 429),
  storageFull: (message: string) => new GcsError("InsufficientStorage", message, 507),
};

export function gcsErrorResponse(err: GcsError, method: string): Response {
  if (method === "HEAD") return new Response(null, { status: err.status });
  const body = xmlDocument("Error", { Code: err.code, Message: err.message, ...err.details });
  return new Response(body, { status: err.status, headers: { "content-type": "application/xml; charset=UTF-8", "x-content-type-options": "nosniff" } });
}
