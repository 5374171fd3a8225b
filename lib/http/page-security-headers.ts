import { env, type Env } from "../env";
import { reachedOverHttps } from "./request-origin";

/**
 * The headers of Easel's HTML pages (contract §12, "Pages"; docs/ui.md): a Content-Security-Policy
 * whose scripts run by a per-request nonce only, no framing, no referrer (board tokens ride in
 * `?token=` URLs), nosniff, and HSTS over https. proxy.ts sets them on every page response and
 * hands the policy to Next.js on the request, which reads the nonce from it and puts it on its own
 * scripts.
 */
export type PageSecurityOptions = {
  /** Fresh for every request (newNonce). */
  nonce: string;
  /** The page was reached over https: HSTS, and insecure subresource URLs upgraded. */
  https: boolean;
  /** next dev: React's dev build evaluates code (server error stacks), so 'unsafe-eval' is allowed there only. */
  development: boolean;
  /** Origins besides this one that pages read media from and upload to (contentOrigins). */
  contentOrigins: string[];
};

/** 128 random bits, base64: the CSP nonce of one response. */
export function newNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}

const originOf = (url: string | undefined): string | null => {
  if (!url) return null;
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
};

/**
 * Where the browser fetches media and sends uploads when that is not this origin: the media
 * origin (EASEL_MEDIA_ORIGIN), the public URL media links are built on, and the external bucket
 * that presigned upload URLs point at (an S3-compatible endpoint, AWS S3 itself, or Google Cloud
 * Storage). The embedded store is on this origin (or the media origin), covered already.
 */
export function contentOrigins(e: Env = env()): string[] {
  const origins = [originOf(e.EASEL_MEDIA_ORIGIN), originOf(e.EASEL_PUBLIC_URL)];
  if (e.EASEL_S3_BUCKET) {
    const endpoint = e.EASEL_S3_ENDPOINT ? new URL(e.EASEL_S3_ENDPOINT) : null;
    const region = e.EASEL_S3_REGION ?? "us-east-1";
    if (endpoint) {
      origins.push(endpoint.origin);
      // Virtual-hosted style puts the bucket in the host name.
      if (!e.EASEL_S3_FORCE_PATH_STYLE) origins.push(`${endpoint.protocol}//${e.EASEL_S3_BUCKET}.${endpoint.host}`);
    } else {
      origins.push(`https://${e.EASEL_S3_BUCKET}.s3.${region}.amazonaws.com`, `https://${e.EASEL_S3_BUCKET}.s3.amazonaws.com`, `https://s3.${region}.amazonaws.com`);
    }
  }
  if (e.EASEL_GCS_BUCKET) origins.push("https://storage.googleapis.com");
  return [...new Set(origins.filter((o): o is string => o !== null))];
}

/** Whether the page is served over https: the configured public URL says so, or the request came that way (X-Forwarded-Proto of a TLS proxy counts only behind EASEL_TRUST_PROXY). */
export function servedOverHttps(req: { url: string; headers: Headers }, e: Env = env()): boolean {
  if (e.EASEL_PUBLIC_URL?.startsWith("https:")) return true;
  return reachedOverHttps(req, e.EASEL_TRUST_PROXY);
}

/** The Content-Security-Policy of a page. */
export function pageContentSecurityPolicy(o: PageSecurityOptions): string {
  const others = o.contentOrigins.join(" ");
  const withOthers = (...sources: string[]) => [...sources, others].filter(Boolean).join(" ");
  const directives = [
    "default-src 'self'",
    // 'strict-dynamic': scripts the nonce'd scripts load (Next.js chunks, hls.js) run too; nothing else does.
    `script-src 'self' 'nonce-${o.nonce}' 'strict-dynamic'${o.development ? " 'unsafe-eval'" : ""}`,
    // Style elements by nonce (next dev injects its own without one); style attributes, which React
    // renders for computed sizes, cannot carry a nonce.
    o.development ? "style-src 'self' 'unsafe-inline'" : `style-src 'self' 'nonce-${o.nonce}'`,
    "style-src-attr 'unsafe-inline'",
    // data: and blob: are the upload dashboard's previews and icons.
    `img-src ${withOthers("'self'", "data:", "blob:")}`,
    // hls.js plays through Media Source Extensions, which hand the <video> a blob: URL.
    `media-src ${withOthers("'self'", "blob:")}`,
    // Uploads (PUT/POST to upload URLs) and hls.js's playlist and segment requests. data: is the
    // uploader answering the S3 control calls Easel's API already made, without leaving the browser
    // (lib/client/uploads/s3-sign-request.ts); fetching a data: URL sends nothing anywhere.
    `connect-src ${withOthers("'self'", "data:")}`,
    // hls.js runs its demuxer in a worker made from a blob: URL.
    "worker-src 'self' blob:",
    "font-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ];
  if (o.https) directives.push("upgrade-insecure-requests");
  return directives.join("; ");
}

export function pageSecurityHeaders(o: PageSecurityOptions): Record<string, string> {
  const headers: Record<string, string> = {
    "Content-Security-Policy": pageContentSecurityPolicy(o),
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    // For browsers that predate frame-ancestors.
    "X-Frame-Options": "DENY",
  };
  if (o.https) headers["Strict-Transport-Security"] = "max-age=31536000; includeSubDomains";
  return headers;
}
