/**
 * The API authenticates with bearer tokens, never cookies cross-origin, so any origin may call it
 * (browser code holding a board access token is the intended use).
 */
const EXPOSED = "RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, Idempotent-Replayed, Allow";

export function withCors(response: Response): Response {
  response.headers.set("Access-Control-Allow-Origin", "*");
  response.headers.set("Access-Control-Expose-Headers", EXPOSED);
  return response;
}

export function preflight(allow: string[]): Response {
  return new Response(null, {
    status: 204,
    headers: {
      "Access-Control-Allow-Origin": "*",
      "Access-Control-Allow-Methods": allow.join(", "),
      "Access-Control-Allow-Headers": "Authorization, Content-Type, Idempotency-Key",
      "Access-Control-Max-Age": "600",
      Allow: [...allow, "OPTIONS"].join(", "),
    },
  });
}
