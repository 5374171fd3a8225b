import crypto from "node:crypto";

/** An invitation link is valid this long (contract §11). */
export const INVITATION_LIFETIME_MS = 7 * 24 * 3600 * 1000;

/**
 * 32 random bytes, base64url: 256 bits, so guessing a live link is hopeless; lookups of unknown
 * links are throttled per client address besides (invite-throttle.ts). Only the hash is stored.
 */
export function newInvitationToken(): string {
  return crypto.randomBytes(32).toString("base64url");
}

export function hashInvitationToken(token: string): string {
  return crypto.createHash("sha256").update(token).digest("hex");
}

/** The shape of a token we hand out (43 base64url characters); anything else is unknown without a query. */
export function looksLikeInvitationToken(token: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(token);
}
