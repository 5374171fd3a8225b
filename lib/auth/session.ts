import NextAuth, { type NextAuthConfig } from "next-auth";
import Credentials from "next-auth/providers/credentials";
import { getDeps } from "../deps";
import { authSecret, SESSION_MAX_AGE_SECONDS } from "./session-principal";
import { verifyUserPassword } from "./users";

/**
 * Sign-in for the web UI: email and password of users made by `npm run easel -- admin create`,
 * kept in a JWT session cookie (no session table). Auth.js marks the cookie `Secure` (and names
 * it `__Secure-…`) when the UI is reached over https. `trustHost`: a self-hosted server answers on
 * whatever host it is given; set AUTH_URL to pin one. The /v1 API accepts this cookie as a
 * SessionPrincipal (lib/auth/session-principal.ts).
 */
export const { handlers, auth, signIn, signOut } = NextAuth(async () => {
  const { db } = await getDeps();
  const config: NextAuthConfig = {
    secret: await authSecret(db),
    trustHost: true,
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SECONDS },
    pages: { signIn: "/login" },
    providers: [
      Credentials({
        credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
        async authorize(input) {
          if (typeof input.email !== "string" || typeof input.password !== "string") return null;
          const user = await verifyUserPassword(db, input.email, input.password);
          return user ? { id: String(user.id), email: user.email } : null;
        },
      }),
    ],
  };
  return config;
});
