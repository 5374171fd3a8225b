import crypto from "node:crypto";

/**
 * Request signing of the Inngest SDK protocol (SDK spec §4.1.3): `x-inngest-signature:
 * t=<unix s>&s=<hex HMAC-SHA256(body + t)>`, keyed with the signing key minus its `signkey-*-`
 * prefix. The SDK hashes the JSON Canonicalization Scheme form of the parsed body, so the
 * executor sends exactly that form as the body and the two sides hash the same bytes.
 */

/** The SDK hashes the key's hex form for bearer tokens, so the key must be hex after its prefix. */
export function signingKeyFromSecret(secret: string): string {
  return `signkey-prod-${crypto.createHash("sha256").update(secret).digest("hex")}`;
}

/**
 * RFC 8785 for the JSON values the executor sends: sorted keys, ECMAScript number and string
 * forms. Values are taken as `JSON.stringify` takes them (`toJSON` first; `undefined` and
 * functions dropped from objects, `null` in arrays), so the text is what the SDK gets by parsing
 * the body and canonicalising it again.
 */
export function canonicalJson(value: unknown): string {
  if (value !== null && typeof value === "object" && typeof (value as { toJSON?: unknown }).toJSON === "function") return canonicalJson((value as { toJSON: () => unknown }).toJSON());
  if (typeof value === "function" || typeof value === "symbol") return "null";
  if (value === null || typeof value !== "object") {
    if (typeof value === "number" && !Number.isFinite(value)) return "null";
    return JSON.stringify(value) ?? "null";
  }
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : canonicalJson(v))).join(",")}]`;
  const dropped = (v: unknown) => v === undefined || typeof v === "function" || typeof v === "symbol";
  const entries = Object.keys(value)
    .sort()
    .filter((k) => !dropped((value as Record<string, unknown>)[k]))
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(",")}}`;
}

/** The body to send and its signature header. */
export function signedBody(value: unknown, signingKey: string, nowMs = Date.now()): { body: string; signature: string } {
  const body = canonicalJson(value);
  const t = Math.floor(nowMs / 1000).toString();
  const key = signingKey.replace(/^signkey-\w+-/, "");
  const s = crypto.createHmac("sha256", key).update(body + t).digest("hex");
  return { body, signature: `t=${t}&s=${s}` };
}
