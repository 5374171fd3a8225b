import { requestOrigin } from "../http/request-origin";

/**
 * The origin the client used to reach the store, for URLs the store hands out (a resumable
 * session's Location): the request's own Host, or behind EASEL_TRUST_PROXY what the proxy
 * forwarded (lib/http/request-origin.ts). `url` is the request's URL, already parsed.
 */
export function clientOrigin(req: Request, url: URL): string {
  return url.href === req.url ? requestOrigin(req) : requestOrigin(new Request(url, { headers: req.headers }));
}
