import { eq } from "drizzle-orm";
import { getToken } from "next-auth/jwt";
import type { Db, DbOrTx } from "../db";
import { memberships, users } from "../db/schema";
import type { Deps } from "../deps";
import { DomainError } from "../errors";
import { publicBaseUrl } from "../http/base-url";
import { getSecret } from "../secrets";
import type { SessionPrincipal } from "./principal";

/** How long a web UI sign-in lasts before the password is asked again. */
export const SESSION_MAX_AGE_SECONDS = 7 * 24 * 3600;

/**
 * Auth.js's session cookie names (its defaults; lib/auth/session.ts does not rename them). The
 * `__Secure-` one is set when the UI is served over https; a browser never sends it over http.
 */
const SESSION_COOKIES = ["__Secure-authjs.session-token", "authjs.session-token"] as const;

/** AUTH_SECRET when the operator sets one, else a secret generated once and kept in the database, so `npm run dev` needs no setup. */
export async function authSecret(db: Db): Promise<string> {
  return process.env.AUTH_SECRET || (await getSecret(db, "auth_secret"));
}

/**
 * Whether a request comes from a page of this origin. Cookies ride along on cross-site requests
 * too, so a session may only write when the browser says the caller is this site itself.
 */
export function isSameOriginRequest(req: Request): boolean {
  if (req.headers.get("sec-fetch-site") === "same-origin") return true;
  const origin = req.headers.get("origin");
  if (!origin) return false;
  return origin === new URL(req.url).origin || origin === publicBaseUrl(req);
}

const hasSessionCookie = (req: Request) => {
  const cookie = req.headers.get("cookie");
  return cookie !== null && SESSION_COOKIES.some((name) => cookie.includes(`${name}=`) || cookie.includes(`${name}.0=`));
};

/**
 * The person signed in to the web UI, from the next-auth session cookie; null when there is none
 * (or it is invalid, expired, or its user is gone). A session on a non-GET/HEAD request from
 * another site is refused with 401, as if the cookie were absent (CSRF).
 */
export async function sessionPrincipal(req: Request, deps: Deps): Promise<SessionPrincipal | null> {
  if (!hasSessionCookie(req)) return null;
  const secret = await authSecret(deps.db);
  let claims: { sub?: string } | null = null;
  for (const cookieName of SESSION_COOKIES) {
    claims = await getToken({ req, secret, cookieName, salt: cookieName, secureCookie: cookieName.startsWith("__Secure-") });
    if (claims) break;
  }
  const userId = Number(claims?.sub);
  if (!Number.isSafeInteger(userId)) return null;
  const principal = await loadSessionPrincipal(deps.db, userId);
  if (!principal) return null;
  if (req.method !== "GET" && req.method !== "HEAD" && !isSameOriginRequest(req)) {
    throw new DomainError("unauthenticated", "A signed-in session is accepted only from this site's own pages");
  }
  return principal;
}

/**
 * A signed-in user as a principal, read from the database now: the owner flag and every
 * membership (one indexed query each). Called on every request, never cached in the cookie, so a
 * removed or demoted member loses the right on their next request.
 */
export async function loadSessionPrincipal(db: DbOrTx, userId: number): Promise<SessionPrincipal | null> {
  const [user] = await db.select({ id: users.id, email: users.email, isOwner: users.isOwner }).from(users).where(eq(users.id, userId)).limit(1);
  if (!user) return null;
  const rows = user.isOwner ? [] : await db.select({ workspaceId: memberships.workspaceId, role: memberships.role }).from(memberships).where(eq(memberships.userId, user.id));
  return { kind: "session", userId: user.id, email: user.email, owner: user.isOwner, roles: new Map(rows.map((r) => [r.workspaceId, r.role])) };
}
