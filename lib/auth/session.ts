import NextAuth, { type NextAuthConfig } from "next-auth";
import Credentials from "next-auth/providers/credentials";
import { getDeps } from "../deps";
import { clientAddress } from "../http/client-address";
import { log } from "../log/logger.mjs";
import { authSecret, SESSION_MAX_AGE_SECONDS } from "./session-principal";
import { verifySignIn } from "./sign-in";

/**
 * Sign-in for the web UI: email and password of users made by `npm run easel -- admin create`,
 * kept in a JWT session cookie (no session table). Auth.js marks the cookie `Secure` (and names
 * it `__Secure-…`) when the UI is reached over https. `trustHost`: a self-hosted server answers on
 * whatever host it is given; set AUTH_URL to pin one. The /v1 API accepts this cookie as a
 * SessionPrincipal (lib/auth/session-principal.ts). Passwords are checked by verifySignIn
 * (lib/auth/sign-in.ts): throttled per email and client address, unknown emails as slow as wrong
 * passwords, hashing off the event loop.
 */
export const { handlers, auth, signIn, signOut } = NextAuth(async () => {
  const deps = await getDeps();
  const config: NextAuthConfig = {
    secret: await authSecret(deps.db),
    trustHost: true,
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_SECONDS },
    pages: { signIn: "/login" },
    // Auth.js's own messages go to Easel's log (JSON, scrubbed) instead of the console. A wrong
    // password is Auth.js's CredentialsSignin "error": an ordinary event, logged at debug (the
    // sign-in throttle logs the failures that matter).
    logger: {
      // By its `type`: a production build renames the error's class, so its `name` is not "CredentialsSignin" there.
      error: (err) => (isWrongPassword(err) ? log().debug({ component: "auth" }, "sign-in refused: wrong email or password") : log().error({ component: "auth", err }, "sign-in failed")),
      warn: (code) => log().warn({ component: "auth", code }, "Auth.js warning"),
      debug: (message, metadata) => log().debug({ component: "auth", metadata }, message),
    },
    providers: [
      Credentials({
        credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
        // Auth.js hands authorize a copy of the request's headers, Easel's client-address header among them.
        async authorize(input, request) {
          if (typeof input.email !== "string" || typeof input.password !== "string") return null;
          const user = await verifySignIn(deps, { email: input.email, password: input.password, clientAddress: clientAddress(request) });
          return user ? { id: String(user.id), email: user.email } : null;
        },
      }),
    ],
  };
  return config;
});

/** Auth.js's refusal of a wrong email or password (a CredentialsSignin error, whatever its class is called once bundled). */
export function isWrongPassword(err: Error): boolean {
  return (err as Error & { type?: string }).type === "CredentialsSignin" || err.name === "CredentialsSignin";
}
