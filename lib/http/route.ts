import { env } from "../env";
import { DomainError } from "../errors";
import { withCors, preflight } from "./cors";
import { toErrorResponse } from "./envelope";
import { countClientRequest, rateHeaders } from "./rate-limit";
import type { RouteContext } from "./with-api";

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
type Handler = (req: Request, ctx: RouteContext) => Promise<Response>;
const METHODS: Method[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/** An error answered before any handler runs (405, unknown route): still enveloped, rate-counted per client address. */
async function early(req: Request, err: DomainError): Promise<Response> {
  const response = toErrorResponse(err);
  const rate = await countClientRequest(req, env().EASEL_RATE_LIMIT_PER_MIN);
  for (const [k, v] of Object.entries(rateHeaders(rate))) response.headers.set(k, v);
  return withCors(response);
}

/**
 * The exports of one route file: the given methods, 405 `method_not_allowed` (with Allow) for the
 * others, and a CORS preflight. Usage: `export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({ GET, POST })`.
 */
export function methods(handlers: Partial<Record<Method, Handler>>) {
  const allow = METHODS.filter((m) => handlers[m]);
  const notAllowed: Handler = async (req) =>
    early(req, new DomainError("method_not_allowed", `${req.method} is not allowed here`, { allow }));
  const out = {} as Record<Method, Handler> & { OPTIONS: Handler };
  for (const m of METHODS) out[m] = handlers[m] ?? notAllowed;
  out.OPTIONS = async () => preflight(allow);
  return out;
}

/** Every method of a path that matches no route under /v1. */
export function unknownRoute() {
  const handler: Handler = async (req) => early(req, new DomainError("route_not_found", `No route ${req.method} ${new URL(req.url).pathname}`));
  return { GET: handler, POST: handler, PUT: handler, PATCH: handler, DELETE: handler, OPTIONS: handler };
}
