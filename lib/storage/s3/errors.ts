import { DomainError } from "../../errors";
import { log } from "../../log/logger.mjs";

type SdkError = { name?: string; Code?: string; message?: string; $metadata?: { httpStatusCode?: number } };

export function isS3NotFound(err: unknown): boolean {
  const e = err as SdkError;
  return e?.name === "NotFound" || e?.name === "NoSuchKey" || e?.Code === "NoSuchKey" || e?.$metadata?.httpStatusCode === 404;
}

export function s3ErrorName(err: unknown): string | undefined {
  const e = err as SdkError;
  return e?.Code ?? e?.name;
}

/** "Object missing" becomes storage_object_not_found; anything else the backend did is storage_unavailable. */
export function toStorageError(err: unknown, what: string): DomainError {
  if (err instanceof DomainError) return err;
  if (isS3NotFound(err)) return new DomainError("storage_object_not_found", `${what}: the object is not in storage`);
  // The backend's own message stays in the log: it can name hosts and paths the client need not see.
  log().error({ component: "storage", backend: "s3", operation: what, s3_error: s3ErrorName(err), err }, "storage call failed; answered storage_unavailable");
  return new DomainError("storage_unavailable", `${what}: storage is unavailable (${s3ErrorName(err) ?? "error"})`);
}
