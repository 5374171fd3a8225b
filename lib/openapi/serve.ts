import { env } from "../env";
import { publicBaseUrl } from "../http/base-url";
import { withCors } from "../http/cors";
import { toErrorResponse } from "../http/envelope";
import { countClientRequest, rateHeaders } from "../http/rate-limit";
import { openApiDocument } from "./document";

/**
 * GET /v1/openapi.json: public, like a 404 or 405 of the API it is counted against the client
 * address (the RateLimit-* headers every /v1 answer carries) but never refused, and it names the
 * origin the client reached as its server, so generated clients and try-it tools work behind a proxy.
 * It changes with each release and with that origin under one URL, so no cache may keep it
 * unchecked (`no-cache`; contract §14).
 */
export async function serveOpenApi(req: Request): Promise<Response> {
  let response: Response;
  try {
    response = Response.json(openApiDocument({ serverUrl: publicBaseUrl(req) }), { headers: { "Cache-Control": "no-cache" } });
  } catch (err) {
    response = toErrorResponse(err, req);
  }
  const rate = await countClientRequest(req, env().EASEL_RATE_LIMIT_PER_MIN);
  for (const [k, v] of Object.entries(rateHeaders(rate))) response.headers.set(k, v);
  return withCors(response);
}
