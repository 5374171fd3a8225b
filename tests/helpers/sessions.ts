import { encode } from "next-auth/jwt";
import { authSecret } from "../../lib/auth/session-principal";
import type { Db } from "../../lib/db";
import { users, type User } from "../../lib/db/schema";
import { uniq } from "./factories";

export const SESSION_COOKIE = "authjs.session-token";

/** The request headers of a browser signed in as `user` on one of Easel's own pages (the cookie Auth.js would set). */
export async function sessionHeaders(db: Db, user: Pick<User, "id" | "email">): Promise<Record<string, string>> {
  return sessionHeadersFor(user, await authSecret(db));
}

/** The same, signed with a known auth secret (a server started with AUTH_SECRET set). */
export async function sessionHeadersFor(user: Pick<User, "id" | "email">, secret: string): Promise<Record<string, string>> {
  const token = await encode({ token: { sub: String(user.id), email: user.email }, secret, salt: SESSION_COOKIE, maxAge: 3600 });
  return { cookie: `${SESSION_COOKIE}=${token}`, "sec-fetch-site": "same-origin" };
}

/** A user row without a real password (no hashing: for tests that only need a signed-in session). */
export async function newUser(db: Db, opts: { owner?: boolean; email?: string } = {}): Promise<User> {
  const [row] = await db
    .insert(users)
    .values({ email: opts.email ?? `${uniq("u")}@easel.test`, passwordHash: "$scrypt$unusable", isOwner: opts.owner ?? false, createdAt: new Date() })
    .returning();
  return row;
}
