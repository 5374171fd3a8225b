import crypto from "node:crypto";

/**
 * The `signed_storage_id` handed out by upload_prepare: an opaque, HMAC-signed reference to one
 * upload session, bound to its workspace and valid 24 hours. Only characters that survive URLs and
 * JSON unchanged (base64url and '.'), so clients pass it back exactly as received.
 */
export const SIGNED_ID_TTL_MS = 24 * 3600 * 1000;

export type SignedIdClaims = { workspaceId: number; handle: string; expiresAt: Date };

const b64 = (buf: Buffer) => buf.toString("base64url");

function mac(secret: string, body: string) {
  return crypto.createHmac("sha256", secret).update(`easel.signed-storage-id.v1\n${body}`).digest();
}

export function signStorageId(secret: string, claims: SignedIdClaims): string {
  const body = b64(Buffer.from(JSON.stringify({ w: claims.workspaceId, h: claims.handle, e: Math.floor(claims.expiresAt.getTime() / 1000) })));
  return `${body}.${b64(mac(secret, body))}`;
}

export type SignedIdCheck = { ok: true; claims: SignedIdClaims } | { ok: false; reason: "malformed" | "signature" | "expired" | "workspace" };

/** Verifies signature (constant time), expiry against `now`, and that the id belongs to `workspaceId`. */
export function verifyStorageId(secret: string, value: string, workspaceId: number, now: Date): SignedIdCheck {
  const parts = value.split(".");
  if (parts.length !== 2 || !/^[A-Za-z0-9_-]+$/.test(parts[0]) || !/^[A-Za-z0-9_-]{43}$/.test(parts[1])) return { ok: false, reason: "malformed" };
  const expected = mac(secret, parts[0]);
  const given = Buffer.from(parts[1], "base64url");
  // Re-encoding guards against non-canonical base64 that decodes to the same bytes.
  if (given.length !== expected.length || b64(given) !== parts[1] || !crypto.timingSafeEqual(given, expected)) return { ok: false, reason: "signature" };
  let payload: { w?: unknown; h?: unknown; e?: unknown };
  try {
    payload = JSON.parse(Buffer.from(parts[0], "base64url").toString("utf8"));
  } catch {
    return { ok: false, reason: "malformed" };
  }
  if (typeof payload.w !== "number" || typeof payload.h !== "string" || typeof payload.e !== "number") return { ok: false, reason: "malformed" };
  if (payload.e * 1000 <= now.getTime()) return { ok: false, reason: "expired" };
  if (payload.w !== workspaceId) return { ok: false, reason: "workspace" };
  return { ok: true, claims: { workspaceId: payload.w, handle: payload.h, expiresAt: new Date(payload.e * 1000) } };
}
