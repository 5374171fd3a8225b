import type { Workspace } from "../db/schema";
import { getDeps, type Deps } from "../deps";
import { DomainError } from "../errors";
import { toErrorResponse } from "../http/envelope";
import { authorizeWorkspace } from "./authorize";
import type { SessionPrincipal } from "./principal";
import type { Operation } from "./roles";
import { sessionPrincipal } from "./session-principal";

export type AdminContext = { req: Request; params: Record<string, string>; principal: SessionPrincipal; deps: Deps };
export type WorkspaceAdminContext = AdminContext & { workspace: Workspace };
type RouteContext = { params: Promise<Record<string, string | string[]>> };

/**
 * The wrapper of the web UI's own admin routes (/api/admin/…, everything /v1 has no route for:
 * workspaces, API tokens, members). Only a signed-in session may call them, never a bearer token,
 * and a write only from this site's pages (the same CSRF rule as /v1). Errors use the API's
 * envelope. What the person may do is decided by the variants below, through authorizeWorkspace.
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

/** An admin route of the workspace named by `:slug`, for people whose role there allows `operation` (404 when it is not theirs, 403 when the role falls short). */
export function withWorkspaceAdmin(operation: Operation, handler: (ctx: WorkspaceAdminContext) => Promise<Response>) {
  return withAdmin(async (ctx) => handler({ ...ctx, workspace: await authorizeWorkspace(ctx.deps.db, ctx.principal, ctx.params.slug ?? "", operation) }));
}

/** An admin route for owners only (creating workspaces, the job runs of the whole deployment): 403 insufficient_scope for everyone else. */
export function withOwner(handler: (ctx: AdminContext) => Promise<Response>) {
  return withAdmin(async (ctx) => {
    if (!ctx.principal.owner) throw new DomainError("insufficient_scope", "Only an owner may do this", { required_scope: "owner" });
    return handler(ctx);
  });
}
