import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import type { SessionPrincipal } from "@/lib/auth/principal";
import { sessionPrincipal } from "@/lib/auth/session-principal";
import { getDeps } from "@/lib/deps";

/**
 * The incoming page request as a Request, for lib functions that read the session cookie or the
 * origin clients reach (media links, presigned URLs) from a request.
 */
export const pageRequest = cache(async (): Promise<Request> => {
  const h = await headers();
  const host = h.get("x-forwarded-host") ?? h.get("host") ?? "localhost";
  const proto = h.get("x-forwarded-proto") ?? "http";
  return new Request(`${proto}://${host}/`, { headers: h });
});

/**
 * The signed-in admin, resolved exactly as /v1 resolves the cookie (so a deleted user is signed
 * out everywhere at once); unauthenticated visitors go to the sign-in page.
 */
export const requireSession = cache(async (): Promise<SessionPrincipal> => {
  const principal = await sessionPrincipal(await pageRequest(), await getDeps());
  if (!principal) redirect("/login");
  return principal;
});
