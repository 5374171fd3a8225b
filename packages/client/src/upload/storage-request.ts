// `#transport` is node:http in Node and fetch in a browser build (package.json "imports").
import { sendToStorage } from "#transport";
import type { EaselClient } from "../client";
import { EaselError } from "../errors";
import { retrying } from "../retry";
import type { StorageAnswer } from "./transport/types";

/**
 * Headers a storage URL was signed to require. Easel signs upload URLs of a real bucket with a
 * create-only precondition (docs/uploads.md): the URL's signed-headers parameter names it, and
 * the bucket refuses a request without it. The embedded store's URLs name none.
 */
const SIGNED_CONDITIONS: Record<string, [header: string, value: string]> = {
  "if-none-match": ["If-None-Match", "*"],
  "x-goog-if-generation-match": ["x-goog-if-generation-match", "0"],
};

export function signedConditionHeaders(url: string): Record<string, string> {
  const params = new URL(url).searchParams;
  const signed = (params.get("X-Amz-SignedHeaders") ?? params.get("X-Goog-SignedHeaders") ?? "").toLowerCase().split(";");
  const out: Record<string, string> = {};
  for (const name of signed) {
    const condition = SIGNED_CONDITIONS[name];
    if (condition) out[condition[0]] = condition[1];
  }
  return out;
}

/**
 * One request to a storage URL (no Authorization: the URL carries its signature), retried as
 * the client's API calls are (`retry: false` for a caller with its own recovery: the gcs chunks).
 */
export function storageRequest(
  client: EaselClient,
  method: string,
  url: string,
  opts: { body?: Uint8Array; headers?: Record<string, string>; signal?: AbortSignal; retry?: boolean } = {},
): Promise<StorageAnswer> {
  const send = () => sendToStorage(method, url, opts);
  if (opts.retry === false) return send();
  return retrying(send, (a) => ({ status: a.status, retryAfter: a.header("retry-after"), release: async () => void (await a.text().catch(() => "")) }), { ...client.options.retry, signal: opts.signal });
}

export const isSuccess = (answer: StorageAnswer) => answer.status >= 200 && answer.status < 300;

/** The EaselError of a storage answer that is not a success: its status and the store's own error text. */
export async function storageError(what: string, answer: StorageAnswer): Promise<EaselError> {
  const text = await answer.text().catch(() => "");
  const code = /<Code>([^<]+)<\/Code>/.exec(text)?.[1];
  return new EaselError(answer.status, "storage_error", `${what}: storage answered HTTP ${answer.status}${code ? ` ${code}` : ""}`, { storage_body: text.slice(0, 500) });
}
