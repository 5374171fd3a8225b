import { env } from "../env";

/**
 * The origin clients reach this server at, for absolute links (presigned upload URLs, media
 * links): EASEL_PUBLIC_URL when set (behind a proxy or CDN), else the request's own host.
 */
export function publicBaseUrl(req: Request): string {
  const configured = env().EASEL_PUBLIC_URL;
  if (configured) return configured.replace(/\/+$/, "");
  const url = new URL(req.url);
  const host = req.headers.get("x-forwarded-host") ?? req.headers.get("host") ?? url.host;
  const proto = req.headers.get("x-forwarded-proto") ?? url.protocol.replace(":", "");
  return `${proto}://${host}`;
}
