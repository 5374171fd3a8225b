import { env } from "../env";
import { DomainError } from "../errors";
import { safeFetch, type SafeFetchOptions, type SafeResponse } from "../net/safe-fetch";
import { UrlGuardError } from "../net/url-guard";
import { MULTIPART_THRESHOLD } from "../storage/limits";

/** Files of 5 MiB and more need a multipart upload (interface, Limits), which a single fetch is not. */
export const MAX_INGEST_BYTES = MULTIPART_THRESHOLD - 1;
export const INGEST_TIMEOUT_MS = 30_000;

export type DownloadOptions = Pick<SafeFetchOptions, "ca" | "timeoutMs" | "resolve" | "trustedAddresses">;

export type DownloadedFile = { bytes: Buffer; contentType: string | null; url: string };

const MIME = /^[\w.+-]+\/[\w.+-]+$/;

const urlRefused = (reason: string, message: string, extra: Record<string, unknown> = {}) =>
  new DomainError("validation_failed", `url: ${message}. Nothing was written.`, { field: "url", reason, ...extra });

function fromGuard(err: UrlGuardError): DomainError {
  if (err.reason === "too_large") {
    return new DomainError(
      "payload_too_large",
      "The file at url is 5 MiB (5,242,880 bytes) or larger. Files that size need a multipart upload through the REST API (upload_prepare, then PATCH the asset with the signed_storage_id). Nothing was written.",
      { field: "url", max_size: MAX_INGEST_BYTES },
    );
  }
  return urlRefused(err.reason, err.message);
}

/**
 * Downloads the file an assistant named: a public https URL (EASEL_WEBHOOK_ALLOW_PRIVATE lifts
 * the address rule for tests and local development, never the scheme), redirects re-checked,
 * under 5 MiB counted while streaming, within one deadline. Every refusal is a DomainError on
 * the `url` field with a `reason`.
 */
export async function downloadFile(url: string, options: DownloadOptions = {}): Promise<DownloadedFile> {
  let res: SafeResponse;
  try {
    res = await safeFetch(url, {
      protocols: ["https:"],
      allowPrivate: env().EASEL_WEBHOOK_ALLOW_PRIVATE,
      maxBytes: MAX_INGEST_BYTES,
      maxRedirects: 5,
      timeoutMs: options.timeoutMs ?? INGEST_TIMEOUT_MS,
      ca: options.ca,
      resolve: options.resolve,
      trustedAddresses: options.trustedAddresses,
      headers: { accept: "*/*", "user-agent": "Easel (create_asset_version)" },
    });
  } catch (err) {
    if (err instanceof UrlGuardError) throw fromGuard(err);
    throw err;
  }
  if (res.status < 200 || res.status > 299) throw urlRefused("http_status", `The URL answered HTTP ${res.status}, not the file`, { status: res.status });
  if (res.body.length === 0) throw urlRefused("empty", "The URL answered with an empty body");
  const declared = res.headers.get("content-type")?.split(";")[0].trim().toLowerCase() ?? "";
  return { bytes: res.body, contentType: MIME.test(declared) ? declared : null, url: res.url };
}
