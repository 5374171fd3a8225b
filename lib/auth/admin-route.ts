import { getDeps, type Deps } from "../deps";
import { DomainError } from "../errors";
import { toErrorResponse } from "../http/envelope";
import type { SessionPrincipal } from "./principal";
import { sessionPrincipal } from "./session-principal";

export type AdminContext = { req: Request; params: Record<string, string>; principal: SessionPrincipal; deps: Deps };
type RouteContext = { params: Promise<Record<string, string | string[]>> };

/**
 * The wrapper of the web UI's own admin routes (/api/admin/…, everything /v1 has no route for:
 * workspaces, API tokens). Only a signed-in session may call them, never a bearer token, and a
 * write only from this site's pages (the same CSRF rule as /v1). Errors use the API's envelope.
 */
export function withAdmin(handler: (ctx: AdminContext) => Promise<Response>) {
  return async (req: Request, ctx: RouteContext): Promise<Response> => {
    try {
      const deps = await getDeps();
      const principal = await sessionPrincipal(req, deps);
      if (!principal) throw new DomainError("unauthenticated", "Sign in to the web UI first");
      const params: Record<string, string> = {};
      for (const [k, v] of Object.entries((await ctx.params) ?? {})) params[k] = Array.isArray(v) ? v.join("/") : v;
      const response = await handler({ req, params, principal, deps });
      response.headers.set("Cache-Control", "no-store");
      return response;
    } catch (err) {
      return toErrorResponse(err, req);
    }
  };
}
