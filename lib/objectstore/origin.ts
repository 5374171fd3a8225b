/**
 * The origin the client used to reach the store, for URLs the store hands out (a resumable
 * session's Location). Behind a proxy that terminates TLS, X-Forwarded-Proto says https.
 */
export function clientOrigin(req: Request, url: URL): string {
  const host = req.headers.get("x-forwarded-host") ?? req.headers.get("host") ?? url.host;
  const proto = req.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() || url.protocol.replace(/:$/, "");
  return `${proto}://${host}`;
}
