import pLimit, { type LimitFunction } from "p-limit";
import type { User } from "../db/schema";
import type { Deps } from "../deps";
import { log } from "../log/logger.mjs";
import { HASHING_CONCURRENCY, hashPassword, MalformedPasswordHashError, verifyAgainstNoUser, verifyPassword, type PasswordCheck } from "./passwords";
import { openSignInAttempt, signInSubjects } from "./sign-in-throttle";
import { findUserByEmail, normalizeEmail, replacePasswordHash } from "./users";

export type SignInInput = { email: string; password: string; clientAddress: string };

/**
 * Signs a web UI user in with email and password (what the login form's Credentials provider
 * calls), or answers null. Every refusal looks the same to the caller: wrong password, unknown
 * email, too many failures (contract §12).
 *
 * An unknown email does the same work as a wrong password: the same queries, and a password check
 * against a hash with the current parameters. A legacy bcrypt hash is replaced by a scrypt hash on
 * the first successful sign-in.
 */
export function verifySignIn(deps: Pick<Deps, "db" | "clock">, input: SignInInput): Promise<User | null> {
  return signInsInProgress(() => signInOnce(deps, input));
}

/**
 * Sign-ins in progress in this process: one more than the hashes that may run at once, so the
 * next sign-in's queries run while a hash is computed and the hashing slot never waits. More
 * would only queue for hashing, and on the embedded database every query runs on the event loop:
 * a burst of sign-ins would put all their queries in front of other tenants' requests at once.
 */
const signInsInProgress: LimitFunction = ((globalThis as { __easelSignIns?: LimitFunction }).__easelSignIns ??= pLimit(HASHING_CONCURRENCY + 1));

async function signInOnce(deps: Pick<Deps, "db" | "clock">, input: SignInInput): Promise<User | null> {
  const { db } = deps;
  const email = normalizeEmail(input.email);
  const attempt = await openSignInAttempt(db, signInSubjects(email, input.clientAddress), deps.clock());
  if (!attempt) return null;

  const user = await findUserByEmail(db, email);
  const check = user ? await checkStoredPassword(user, input.password) : await verifyAgainstNoUser(input.password);
  if (!user || !check.match) {
    attempt.failed();
    return null;
  }
  await attempt.succeeded();
  if (check.rehash) await replacePasswordHash(db, user, await hashPassword(input.password));
  return user;
}

async function checkStoredPassword(user: User, password: string): Promise<PasswordCheck> {
  try {
    return await verifyPassword(password, user.passwordHash);
  } catch (err) {
    if (!(err instanceof MalformedPasswordHashError)) throw err;
    // Nobody can sign in as this user until an admin sets a new password (`easel admin create`).
    log().error({ component: "auth", user_id: user.id, err }, "sign-in refused: the stored password hash is unreadable; set a new password with `npm run easel -- admin create`");
    return { match: false, rehash: false };
  }
}
