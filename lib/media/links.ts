import crypto from "node:crypto";

/**
 * Public links to an asset's media. They name the asset token, not a storage object, so links
 * already handed out serve the new content after a version write. Each carries an expiry and an
 * HMAC signature; browser code holding a board access token may use `?token=` instead (the media
 * route checks the asset is inside the token's boards).
 */
export type MediaKind = "display" | "stream" | "thumb-small" | "thumb-medium" | "thumb-large" | "original" | "storyboard";

/**
 * Two days (rounded up to the hour below). A signed link cannot be revoked and it serves the head,
 * so whoever holds one sees new versions until it expires, including someone removed from the
 * workspace since: shorter is safer. Every read of an asset hands out a fresh link, but a webhook
 * delivery is retried with its first body for up to 27.6 h (the default schedule), and its
 * `display_url` must still work at the last attempt.
 */
export const MEDIA_LINK_TTL_SECONDS = 2 * 24 * 3600;

/** Which content a link serves: the head (default) or stored version N; `preview` = watermarked, at most 320 px wide. */
export type LinkOptions = { version?: number; preview?: boolean };

export function mediaPath(assetToken: string, kind: MediaKind, opts: LinkOptions = {}): string {
  const version = opts.version !== undefined ? `/v${opts.version}` : "";
  return `/media/${assetToken}${version}/${kind}${opts.preview ? "-preview" : ""}`;
}

export function signMediaPath(secret: string, path: string, expiresAt: number): string {
  return crypto.createHmac("sha256", secret).update(`${path}\n${expiresAt}`).digest("base64url");
}

export function verifyMediaSignature(secret: string, path: string, expiresAt: number, sig: string, nowMs: number): boolean {
  if (!Number.isFinite(expiresAt) || expiresAt * 1000 < nowMs) return false;
  const want = Buffer.from(signMediaPath(secret, path, expiresAt));
  const got = Buffer.from(sig);
  return want.length === got.length && crypto.timingSafeEqual(want, got);
}

export type MediaLinker = (assetToken: string, kind: MediaKind, opts?: LinkOptions) => string;

/** Builds absolute signed links on `baseUrl`, valid MEDIA_LINK_TTL_SECONDS from `now`. */
export function mediaLinker(baseUrl: string, secret: string, now: Date): MediaLinker {
  // Expiry rounded to the hour so repeated reads of one asset hand out identical, cacheable links.
  const expiresAt = Math.ceil((now.getTime() / 1000 + MEDIA_LINK_TTL_SECONDS) / 3600) * 3600;
  return (assetToken, kind, opts) => signedMediaUrl(baseUrl, secret, mediaPath(assetToken, kind, opts), expiresAt);
}

/** The absolute link to a media path, valid until `expiresAt` (epoch seconds). */
export function signedMediaUrl(baseUrl: string, secret: string, path: string, expiresAt: number): string {
  return `${baseUrl}${path}?exp=${expiresAt}&sig=${signMediaPath(secret, path, expiresAt)}`;
}
