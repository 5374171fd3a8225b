import { headers } from "next/headers";
import { notFound, redirect } from "next/navigation";
import { cache } from "react";
import { authorizeWorkspace, type Operation } from "@/lib/auth/authorize";
import type { SessionPrincipal } from "@/lib/auth/principal";
import { sessionPrincipal } from "@/lib/auth/session-principal";
import type { Workspace } from "@/lib/db/schema";
import { getDeps } from "@/lib/deps";
import { DomainError } from "@/lib/errors";

/**
 * The incoming page request as a Request, for lib functions that read the session cookie or the
 * origin clients reach (media links, presigned URLs) from a request.
 */
export const pageRequest = cache(async (): Promise<Request> => {
  const h = await headers();
  // Only the Host header names this server here; the lib functions that build links from the
  // request read X-Forwarded-* themselves, and only behind EASEL_TRUST_PROXY (lib/http/request-origin.ts).
  const host = h.get("host");
  const url = host && URL.canParse(`http://${host}/`) ? `http://${host}/` : "http://localhost/";
  return new Request(url, { headers: h });
});

/**
 * The signed-in person, resolved exactly as /v1 resolves the cookie (owner flag and memberships
 * read from the database on this request, so a deleted user or a removed member loses access at
 * once); unauthenticated visitors go to the sign-in page.
 */
export const requireSession = cache(async (): Promise<SessionPrincipal> => {
  const principal = await sessionPrincipal(await pageRequest(), await getDeps());
  if (!principal) redirect("/login");
  return principal;
});

/** Pages for owners only (job runs of the whole deployment): anyone else gets not found. */
export async function requireOwner(): Promise<SessionPrincipal> {
  const principal = await requireSession();
  if (!principal.owner) notFound();
  return principal;
}

/**
 * The workspace a page shows, decided as /v1 decides (lib/auth/authorize.ts authorizeWorkspace):
 * null when it is not the person's (404 there) or their role does not allow `operation` (403
 * there). A page answers both as not found, so it never shows that a workspace exists.
 */
export async function authorizedWorkspace(principal: SessionPrincipal, slug: string, operation: Operation): Promise<Workspace | null> {
  try {
    return await authorizeWorkspace((await getDeps()).db, principal, slug, operation);
  } catch (err) {
    if (err instanceof DomainError && (err.code === "workspace_not_found" || err.code === "insufficient_scope")) return null;
    throw err;
  }
}

/** Pages of a workspace that need a role (API tokens, webhooks, settings, members: `manage`): not found unless the person's role there allows `operation`. */
export async function requireWorkspaceRole(slug: string, operation: Operation): Promise<SessionPrincipal> {
  const principal = await requireSession();
  if (!(await authorizedWorkspace(principal, slug, operation))) notFound();
  return principal;
}
