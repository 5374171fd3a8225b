import { env } from "../env";
import { requestOrigin } from "./request-origin";

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, "");

/**
 * The origin clients reach this server at, for absolute links to Easel itself (the OpenAPI
 * document's server, the sign-in origin check): EASEL_PUBLIC_URL when set (behind a proxy or
 * CDN), else the origin the request reached (its own Host; X-Forwarded-Host and -Proto only behind
 * EASEL_TRUST_PROXY: lib/http/request-origin.ts).
 */
export function publicBaseUrl(req: Request): string {
  const configured = env().EASEL_PUBLIC_URL;
  if (configured) return withoutTrailingSlash(configured);
  return requestOrigin(req);
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
