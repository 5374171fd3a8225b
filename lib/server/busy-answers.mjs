// @ts-check
import { randomBytes } from "node:crypto";

/** Seconds a refused client is asked to wait before it tries again. */
export const BUSY_RETRY_AFTER_S = 1;

/** @param {string} text */
const xmlText = (text) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/**
 * The answer to a request refused because its client holds too many connections, or because the
 * store has no slot for its body (lib/server/direct-routes.ts), in the
 * protocol of the path it was sent to: the embedded store's S3 endpoint answers `503 SlowDown`
 * (S3's XML error, which S3 clients retry), its GCS endpoint `429` in GCS's XML, anything else
 * `429 rate_limited` in the API's error envelope. Each says when to retry, is sent before any of
 * the request's body is read, and closes the connection (which frees the client's slot).
 * @param {import("node:http").ServerResponse} res @param {string} path
 * @param {string} [why] the message of the GCS and API answers (S3's SlowDown has its own)
 */
export function answerBusy(res, path, why = "Too many connections from this client; retry after the time in Retry-After.") {
  const headers = { "retry-after": String(BUSY_RETRY_AFTER_S), connection: "close", "cache-control": "no-store", "x-content-type-options": "nosniff" };
  if (path.startsWith("/storage/s3/") || path === "/storage/s3") {
    const requestId = randomBytes(8).toString("hex").toUpperCase();
    const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message><Resource>${xmlText(path.slice("/storage/s3".length) || "/")}</Resource><RequestId>${requestId}</RequestId></Error>`;
    res.writeHead(503, { ...headers, ...storageCors, "content-type": "application/xml", "x-amz-request-id": requestId }).end(body);
    return;
  }
  if (path.startsWith("/storage/gcs/") || path === "/storage/gcs") {
    const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code><Message>${xmlText(why)}</Message></Error>`;
    res.writeHead(429, { ...headers, ...storageCors, "content-type": "application/xml; charset=UTF-8" }).end(body);
    return;
  }
  const envelope = { errors: [{ message: why, extensions: { code: "rate_limited" } }] };
  res.writeHead(429, { ...headers, "content-type": "application/json" }).end(JSON.stringify(envelope));
}

/** A browser uploader reads the refusal only if CORS allows it (as every answer of the store does, lib/objectstore/cors.ts). */
const storageCors = { "access-control-allow-origin": "*", "access-control-expose-headers": "Retry-After, x-amz-request-id" };
