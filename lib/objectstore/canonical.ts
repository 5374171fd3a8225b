import { headerText } from "./header-text";

/**
 * The canonical forms both signature schemes (AWS SigV4 and GCS V4) hash. They differ only in
 * names; the encoding rules are the same: every byte but A-Z a-z 0-9 - _ . ~ is percent-encoded.
 */

export function strictEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** A path as signers encode it: each segment decoded once and re-encoded strictly, slashes kept. */
export function canonicalPath(rawPath: string): string {
  return rawPath
    .split("/")
    .map((segment) => strictEncode(safeDecode(segment)))
    .join("/");
}

/** Query parameters in order of appearance, decoded, with "+" kept literally (signers encode spaces as %20). */
export function rawQueryParams(search: string): [string, string][] {
  const q = search.startsWith("?") ? search.slice(1) : search;
  if (!q) return [];
  return q
    .split("&")
    .filter(Boolean)
    .map((pair) => {
      const eq = pair.indexOf("=");
      return eq < 0 ? [safeDecode(pair), ""] : [safeDecode(pair.slice(0, eq)), safeDecode(pair.slice(eq + 1))];
    });
}

/** Sorted `name=value` pairs joined by "&", leaving out the signature itself. */
export function canonicalQuery(params: [string, string][], omit: string): string {
  return params
    .filter(([name]) => name !== omit)
    .map(([name, value]) => [strictEncode(name), strictEncode(value)] as const)
    .sort((a, b) => (a[0] === b[0] ? compare(a[1], b[1]) : compare(a[0], b[0])))
    .map(([name, value]) => `${name}=${value}`)
    .join("&");
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * `name:value\n` lines for the signed headers, values trimmed and inner runs of spaces collapsed.
 * A value beyond ASCII is read as the UTF-8 text its signer hashed (header-text.ts).
 */
export function canonicalHeaders(signed: string[], valueOf: (name: string) => string | null): string {
  return signed.map((name) => `${name}:${headerText(valueOf(name) ?? "").trim().replace(/\s+/g, " ")}\n`).join("");
}

/** `20260102T030405Z` → Date, or null when malformed. */
export function parseCompactDate(value: string | null | undefined): Date | null {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value ?? "");
  if (!m) return null;
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]));
  return Number.isNaN(d.getTime()) ? null : d;
}
