import type { StorageSend } from "./types";

/** Browsers (and any runtime without node:http): fetch, with no credentials and no cache. */
export const sendToStorage: StorageSend = async (method, url, opts) => {
  const response = await fetch(url, { method, body: opts.body as BodyInit | undefined, headers: opts.headers, signal: opts.signal, credentials: "omit", cache: "no-store" });
  let text: Promise<string> | null = null;
  return { status: response.status, header: (name) => response.headers.get(name), text: () => (text ??= response.text()) };
};
