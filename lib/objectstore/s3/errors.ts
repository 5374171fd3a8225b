import { xmlDocument } from "../xml";

/** An S3 error answer: its code, message and status as S3 documents them. */
export class S3Error extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly details: Record<string, string> = {},
  ) {
    super(message);
    this.name = "S3Error";
  }
}

export const s3Errors = {
  accessDenied: (message = "Access Denied") => new S3Error("AccessDenied", message, 403),
  signatureMismatch: (details: Record<string, string>) =>
    new S3Error("SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided. Check your key and signing method.", 403, details),
  noSuchBucket: (bucket: string) => new S3Error("NoSuchBucket", "The specified bucket does not exist", 404, { BucketName: bucket }),
  noSuchKey: (key: string) => new S3Error("NoSuchKey", "The specified key does not exist.", 404, { Key: key }),
  invalidArgument: (message: string) => new S3Error("InvalidArgument", message, 400),
  invalidRequest: (message: string) => new S3Error("InvalidRequest", message, 400),
  malformedXml: () => new S3Error("MalformedXML", "The XML you provided was not well-formed or did not validate against our published schema.", 400),
  notImplemented: (message = "A header or parameter you provided implies functionality that is not implemented.") => new S3Error("NotImplemented", message, 501),
  methodNotAllowed: (method: string) => new S3Error("MethodNotAllowed", "The specified method is not allowed against this resource.", 405, { Method: method }),
  /** A presigned write found another object at its key (as S3 answers a failed `If-None-Match: *`). */
  objectExists: () => new S3Error("PreconditionFailed", "At least one of the pre-conditions you specified did not hold", 412, { Condition: "If-None-Match" }),
  preconditionFailed: (condition: string) => new S3Error("PreconditionFailed", "At least one of the pre-conditions you specified did not hold", 412, { Condition: condition }),
  internal: () => new S3Error("InternalError", "We encountered an internal error. Please try again.", 500),
  /** Too many bodies at once for an upload URL, a workspace or the process's open files (contract §13). */
  slowDown: () => new S3Error("SlowDown", "Please reduce your request rate.", 503),
  // No S3 code exists for a full disk; 507 is HTTP's own status for it (as other S3-compatible stores answer).
  storageFull: (message: string) => new S3Error("InsufficientStorage", message, 507),
};

export function s3ErrorResponse(err: S3Error, resource: string, method: string, requestId: string): Response {
  // nosniff: a browser reads the XML as XML and nothing else.
  const headers = new Headers({ "x-amz-request-id": requestId, "x-content-type-options": "nosniff" });
  // A HEAD answer carries no body; S3 clients read the status alone.
  if (method === "HEAD") return new Response(null, { status: err.status, headers });
  headers.set("content-type", "application/xml");
  const body = xmlDocument("Error", { Code: err.code, Message: err.message, ...err.details, Resource: resource, RequestId: requestId });
  return new Response(body, { status: err.status, headers });
}
