import { env } from "../env";

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, "");

/**
 * The origin clients reach this server at, for absolute links to Easel itself (the OpenAPI
 * document's server, the sign-in origin check): EASEL_PUBLIC_URL when set (behind a proxy or
 * CDN), else the request's own host.
 */
export function publicBaseUrl(req: Request): string {
  const configured = env().EASEL_PUBLIC_URL;
  if (configured) return withoutTrailingSlash(configured);
  const url = new URL(req.url);
  const host = req.headers.get("x-forwarded-host") ?? req.headers.get("host") ?? url.host;
  const proto = req.headers.get("x-forwarded-proto") ?? url.protocol.replace(":", "");
  return `${proto}://${host}`;
}

/** The separate origin for user content (EASEL_MEDIA_ORIGIN), or null when none is configured. */
function mediaOrigin(): string | null {
  const configured = env().EASEL_MEDIA_ORIGIN;
  return configured ? new URL(configured).origin : null;
}

/**
 * The origin of every URL that serves or receives user content and is handed to a client: media
 * links, presigned upload URLs, signed read URLs. EASEL_MEDIA_ORIGIN when set (an origin that
 * holds no session cookie, so bytes served there cannot act as the signed-in owner even if a
 * browser ran them), else the same origin as publicBaseUrl.
 */
export function mediaBaseUrl(req: Request): string {
  return mediaOrigin() ?? publicBaseUrl(req);
}

/** Where background work reaches this server when no request gives an origin: EASEL_PUBLIC_URL, else the local port. */
export function jobBaseUrl(): string {
  const configured = env().EASEL_PUBLIC_URL;
  return configured ? withoutTrailingSlash(configured) : `http://127.0.0.1:${env().PORT ?? "3000"}`;
}

/** The origin of media links made by background work (webhook payloads, a published stream's URL). */
export function jobMediaBaseUrl(): string {
  return mediaOrigin() ?? jobBaseUrl();
}
